# cl/: the OpenCL face over the same core (docs/opencl.md): ICD entry, platform, devices, contexts, queues, buffers,
# programs, kernels, events. The dispatch table is generated from CL/cl_icd.h (cl.cmake).
zf_area(cl cl_object.c cl_platform.c cl_device_info.c cl_context.c cl_memory.c cl_event.c cl_program.c
        cl_compiler.c cl_arg_info.c cl_kernel.c cl_svm.c cl_image.c cl_hold.c)
