# cl/: the OpenCL face over the same core (docs/opencl.md): ICD entry, platform, devices, contexts, queues, buffers,
# programs, kernels, events. The dispatch table is generated from CL/cl_icd.h (cl.cmake).
zf_area(cl object.c platform.c device_info.c context.c memory.c event.c program.c compiler.c kernel.c)
