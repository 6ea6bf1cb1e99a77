# module/: modules (build, native binary, link, debug info), module programs, kernels, built-in kernels.
zf_area(module module.c module_program.c module_inspect.c kernel.c builtins.c)
