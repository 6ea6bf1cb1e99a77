# module/: modules (build, native binary, link, debug info), module programs, kernels, built-in kernels.
zf_area(module module.c module_build.c module_native.c module_debug.c module_link.c module_program.c module_inspect.c kernel.c kernel_launch.c kernel_isa.c builtins.c)
