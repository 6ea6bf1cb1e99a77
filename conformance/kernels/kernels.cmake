# Test kernels: the OpenCL C sources here (and some SPIR-V assembly files) become SPIR-V modules at build time, each
# checked by spirv-val before tests may use it. Included from conformance/CMakeLists.txt.
#
#   <name>.cl      clang-14 -cl-std=CL2.0 (or ZC_CL_STD_<name>) -target spir64 -O2 -emit-llvm -c, then llvm-spirv-14
#   <name>.spvasm  spirv-as (SPIR-V 1.0)
#
# Outputs: ${ZC_KERNEL_DIR}/<name>.spv (in the build tree). Tests get the directory through ZC_KERNEL_DIR (a compile
# definition) and depend on the target zc_kernels. llvm-spirv-14 writes the lowest SPIR-V version its output needs:
# 1.0 for most kernels, 1.1 with specialization constants, 1.4 when it uses the no-wrap decorations of -O2 code.
find_program(ZC_CLANG NAMES clang-14 clang REQUIRED)
find_program(ZC_LLVM_SPIRV NAMES llvm-spirv-14 llvm-spirv REQUIRED)
find_program(ZC_SPIRV_VAL NAMES spirv-val REQUIRED)
find_program(ZC_SPIRV_AS NAMES spirv-as REQUIRED)

set(ZC_KERNEL_DIR "${CMAKE_BINARY_DIR}/conformance/kernels")
set(ZC_KERNEL_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}")
file(MAKE_DIRECTORY "${ZC_KERNEL_DIR}")

set(ZC_OPENCL_KERNELS copy fill vadd saxpy gemm spec_constant globals export import local_memory reqd_group_size
                      empty image)
# The SPIR-V execution corpus (test_spirv_*.c). Some kernels need more of the toolchain: ZC_CLANG_FLAGS_<name> and
# ZC_LLVM_SPIRV_FLAGS_<name> add options, and the kernels listed in ZC_UNVALIDATED_KERNELS skip spirv-val because
# the SPIR-V Tools of Debian bookworm refuse what their extension requires (a function-pointer constant names a
# function defined later: SPV_INTEL_function_pointers allows it).
list(APPEND ZC_OPENCL_KERNELS spirv_arith spirv_convert spirv_control spirv_math spirv_data spirv_local spirv_atomics
                              spirv_globals spirv_image spirv_printf spirv_itt spirv_gemm spirv_fptr spirv_pointers
                              spirv_generic spirv_faults spirv_padding spirv_fptr_barrier spirv_image_plain
                              spirv_hoist spirv_step spirv_rare)
# OpenCL C 1.2 for one kernel; -fwrapv drops the in-bounds promise of pointer arithmetic (OpPtrAccessChain).
set(ZC_CL_STD_spirv_pointers CL1.2)
set(ZC_CLANG_FLAGS_spirv_pointers -fwrapv)
set(ZC_CLANG_FLAGS_spirv_local -Xclang -cl-ext=+cl_khr_subgroups)
set(ZC_LLVM_SPIRV_FLAGS_spirv_local --spirv-ext=+SPV_INTEL_subgroups)
set(ZC_LLVM_SPIRV_FLAGS_spirv_fptr --spirv-ext=+SPV_INTEL_function_pointers)
set(ZC_LLVM_SPIRV_FLAGS_spirv_fptr_barrier --spirv-ext=+SPV_INTEL_function_pointers)
set(ZC_UNVALIDATED_KERNELS spirv_fptr spirv_fptr_barrier)
# An entry point that leaves out a UniformConstant variable it uses (test_tolerances.c): spirv-val refuses it.
list(APPEND ZC_OPENCL_KERNELS spirv_unlisted)
list(APPEND ZC_UNVALIDATED_KERNELS spirv_unlisted)
list(APPEND ZC_OPENCL_KERNELS spirv_float_atomics)
set(ZC_CLANG_FLAGS_spirv_float_atomics
    -Xclang -cl-ext=+cl_ext_float_atomics,+__opencl_c_ext_fp32_global_atomic_add,+__opencl_c_ext_fp64_global_atomic_add,+__opencl_c_ext_fp32_local_atomic_add,+__opencl_c_ext_fp32_global_atomic_min_max,+cl_khr_fp64)
set(ZC_LLVM_SPIRV_FLAGS_spirv_float_atomics --spirv-ext=+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max)
# The sub-group block reads and writes of cl_intel_subgroups: the kernel declares the intel_* functions itself
# (clang-14 declares none of them), cl_khr_subgroups gives it the sub-group built-ins.
list(APPEND ZC_OPENCL_KERNELS spirv_subgroups)
set(ZC_CLANG_FLAGS_spirv_subgroups -Xclang -cl-ext=+cl_khr_subgroups)
set(ZC_LLVM_SPIRV_FLAGS_spirv_subgroups --spirv-ext=+SPV_INTEL_subgroups)
# ZE_experimental_module_program (test_module_program.c): three inputs linked into one module, and a bad one.
list(APPEND ZC_OPENCL_KERNELS program_main program_scale program_offset program_mismatch)

set(ZC_ASSEMBLY_KERNELS spec_global)
# Assembly: SPIR-V 1.0 unless ZC_SPIRV_AS_ENV_<name> names another target environment.
list(APPEND ZC_ASSEMBLY_KERNELS spirv_unsupported spirv_irreducible spirv_foreign_set spirv_block3 spirv_core_ops)
# Forms other producers emit (test_spirv_producers.c): built-ins declared UniformConstant and imported, debug sets,
# program-scope samplers, calls of functions defined later.
list(APPEND ZC_ASSEMBLY_KERNELS spirv_builtins_uniform spirv_debug_sets spirv_global_sampler spirv_forward_calls)
set(ZC_SPIRV_AS_ENV_spirv_unsupported spv1.3)
# ZE_extension_linkonce_odr (test_module_program.c): LinkOnceODR definitions in two modules, a strong export, an
# importer, and LinkOnceODR definitions of other types. SPIR-V 1.0 for all five: LinkOnceODR needs the
# SPV_KHR_linkonce_odr extension (declared by the modules that use it), no later SPIR-V version.
list(APPEND ZC_ASSEMBLY_KERNELS linkonce_a linkonce_b linkonce_strong linkonce_user linkonce_mismatch)
foreach(name IN ITEMS linkonce_a linkonce_b linkonce_strong linkonce_user linkonce_mismatch)
  set(ZC_SPIRV_AS_ENV_${name} spv1.0)
endforeach()

# Modules spirv-val refuses, which the driver must refuse too (test_spirv_faults.c): assembled, never validated.
set(ZC_INVALID_KERNELS invalid_undef_void invalid_operand_types invalid_store_type invalid_after_debug)
list(APPEND ZC_ASSEMBLY_KERNELS ${ZC_INVALID_KERNELS})
# Modules spirv-val of SPIR-V Tools 2023.1 refuses where Intel's compiler takes them (test_spirv_faults.c): assembled,
# never validated either.
set(ZC_UNVALIDATED_ASSEMBLY spirv_arbitrary_int)
list(APPEND ZC_ASSEMBLY_KERNELS ${ZC_UNVALIDATED_ASSEMBLY})

set(ZC_KERNEL_OUTPUTS)
# zc_opencl_kernel(<name> <output name> <cl std> <validate: ON/OFF> <options...>): <name>.cl compiled with the
# kernel's own flags and <options> (optimization level, -g, llvm-spirv's --spirv-debug-info-version after the word
# LLVM_SPIRV) into ${ZC_KERNEL_DIR}/<output name>.spv.
function(zc_opencl_kernel name output cl_std validate_it)
  set(clang_options)
  set(spirv_options)
  set(target clang_options)
  foreach(option IN LISTS ARGN)
    if(option STREQUAL "LLVM_SPIRV")
      set(target spirv_options)
    else()
      list(APPEND ${target} ${option})
    endif()
  endforeach()
  set(out "${ZC_KERNEL_DIR}/${output}")
  # The module only appears under its final name once spirv-val accepted it, so a failed validation is not
  # mistaken for an up-to-date output by the next build.
  set(validate COMMAND "${ZC_SPIRV_VAL}" "${out}.unchecked.spv")
  if(NOT validate_it OR name IN_LIST ZC_UNVALIDATED_KERNELS)
    set(validate)
  endif()
  add_custom_command(
    OUTPUT "${out}.spv"
    COMMAND "${ZC_CLANG}" -cl-std=${cl_std} -target spir64 ${clang_options} ${ZC_CLANG_FLAGS_${name}} -emit-llvm -c
            "${ZC_KERNEL_SOURCE_DIR}/${name}.cl" -o "${out}.bc"
    COMMAND "${ZC_LLVM_SPIRV}" ${ZC_LLVM_SPIRV_FLAGS_${name}} ${spirv_options} "${out}.bc" -o "${out}.unchecked.spv"
    ${validate}
    COMMAND "${CMAKE_COMMAND}" -E rename "${out}.unchecked.spv" "${out}.spv"
    DEPENDS "${ZC_KERNEL_SOURCE_DIR}/${name}.cl"
    COMMENT "Compiling test kernel ${name}.cl to SPIR-V (${output})"
    VERBATIM)
  set(ZC_KERNEL_OUTPUTS ${ZC_KERNEL_OUTPUTS} "${out}.spv" PARENT_SCOPE)
endfunction()

foreach(name IN LISTS ZC_OPENCL_KERNELS)
  set(cl_std CL2.0)
  if(DEFINED ZC_CL_STD_${name})
    set(cl_std ${ZC_CL_STD_${name}})
  endif()
  zc_opencl_kernel(${name} ${name} ${cl_std} ON -O2)
endforeach()

# The producer matrix (test_spirv_producers.c, docs/spirv-execution.md "Producer matrix"): the spirv_*.cl corpus as
# other compilations produce it, into <name>.<variant>.spv, each built by the driver and its results compared with
# those of <name>.spv. Variants:
#   O0        -O0 (every value in a private variable)
#   g-legacy  -O0 -g, llvm-spirv --spirv-debug-info-version=legacy (the SPIRV.debug set)
#   g-ocl100  -O2 -g, --spirv-debug-info-version=ocl-100 (OpenCL.DebugInfo.100)
#   CL1.2, CL2.0, CL3.0  -O2 under another OpenCL C version than the kernel's own (where the kernel compiles)
# spirv-val refuses every -g module of llvm-spirv-14: it does not know SPIRV.debug, and the OpenCL.DebugInfo.100 that
# llvm-spirv-14 writes breaks its rules (undefined ids, operands of the wrong kind). Those variants are not validated
# here; the driver validates them without their debug information (docs/modules.md, "What zeModuleCreate checks").
set(ZC_PRODUCER_CORPUS spirv_arith spirv_convert spirv_control spirv_math spirv_data spirv_local spirv_atomics
                       spirv_globals spirv_image spirv_printf spirv_itt spirv_gemm spirv_fptr spirv_pointers
                       spirv_generic spirv_faults spirv_float_atomics spirv_subgroups)
# llvm-spirv-14 aborts on the debug information of these two ("unsupported opcode found in DIExpression").
set(ZC_PRODUCER_NO_OCL100 spirv_globals spirv_local)
# OpenCL C 1.2 lacks what the others use (atomic types, generic pointers, work-group functions...); spirv_local's
# work-group functions need features clang-14 does not enable for OpenCL C 3.0.
set(ZC_PRODUCER_CL1.2 spirv_arith spirv_convert spirv_control spirv_gemm spirv_image spirv_itt spirv_printf
                      spirv_faults)
set(ZC_PRODUCER_CL3.0 spirv_arith spirv_convert spirv_control spirv_math spirv_data spirv_atomics spirv_globals
                      spirv_image spirv_printf spirv_itt spirv_gemm spirv_fptr spirv_pointers spirv_generic
                      spirv_faults spirv_float_atomics spirv_subgroups)
set(ZC_PRODUCER_FILES)
foreach(name IN LISTS ZC_PRODUCER_CORPUS)
  set(cl_std CL2.0)
  if(DEFINED ZC_CL_STD_${name})
    set(cl_std ${ZC_CL_STD_${name}})
  endif()
  zc_opencl_kernel(${name} ${name}.O0 ${cl_std} ON -O0)
  zc_opencl_kernel(${name} ${name}.g-legacy ${cl_std} OFF -O0 -g LLVM_SPIRV --spirv-debug-info-version=legacy)
  list(APPEND ZC_PRODUCER_FILES ${name}.O0 ${name}.g-legacy)
  if(NOT name IN_LIST ZC_PRODUCER_NO_OCL100)
    zc_opencl_kernel(${name} ${name}.g-ocl100 ${cl_std} OFF -O2 -g LLVM_SPIRV --spirv-debug-info-version=ocl-100)
    list(APPEND ZC_PRODUCER_FILES ${name}.g-ocl100)
  endif()
  foreach(std IN ITEMS CL1.2 CL2.0 CL3.0)
    if(NOT std STREQUAL cl_std AND (std STREQUAL "CL2.0" OR name IN_LIST ZC_PRODUCER_${std}))
      zc_opencl_kernel(${name} ${name}.${std} ${std} ON -O2)
      list(APPEND ZC_PRODUCER_FILES ${name}.${std})
    endif()
  endforeach()
endforeach()
foreach(name IN LISTS ZC_ASSEMBLY_KERNELS)
  set(out "${ZC_KERNEL_DIR}/${name}")
  set(target_env spv1.0)
  if(DEFINED ZC_SPIRV_AS_ENV_${name})
    set(target_env ${ZC_SPIRV_AS_ENV_${name}})
  endif()
  set(validate COMMAND "${ZC_SPIRV_VAL}" "${out}.unchecked.spv")
  if(name IN_LIST ZC_INVALID_KERNELS OR name IN_LIST ZC_UNVALIDATED_ASSEMBLY)
    set(validate)
  endif()
  add_custom_command(
    OUTPUT "${out}.spv"
    COMMAND "${ZC_SPIRV_AS}" --target-env ${target_env} "${ZC_KERNEL_SOURCE_DIR}/${name}.spvasm"
            -o "${out}.unchecked.spv"
    ${validate}
    COMMAND "${CMAKE_COMMAND}" -E rename "${out}.unchecked.spv" "${out}.spv"
    DEPENDS "${ZC_KERNEL_SOURCE_DIR}/${name}.spvasm"
    COMMENT "Assembling test kernel ${name}.spvasm"
    VERBATIM)
  list(APPEND ZC_KERNEL_OUTPUTS "${out}.spv")
endforeach()
add_custom_target(zc_kernels ALL DEPENDS ${ZC_KERNEL_OUTPUTS})
