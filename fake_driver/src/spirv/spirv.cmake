# The SPIR-V reader and execution engine (fake_driver/src/spirv): an OBJECT library linked into the driver the way
# zf_scenario is, and their unit tests. Included from fake_driver/CMakeLists.txt right after the scenario module;
# paths come from this file's location.
get_filename_component(ZF_SPIRV_DIR "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
get_filename_component(ZF_SPIRV_DRIVER_DIR "${ZF_SPIRV_DIR}/../.." ABSOLUTE)

add_library(zf_spirv OBJECT
  "${ZF_SPIRV_DIR}/spirv_log.c"
  "${ZF_SPIRV_DIR}/spirv_read.c"
  "${ZF_SPIRV_DIR}/spirv_read_decl.c"
  "${ZF_SPIRV_DIR}/spirv_validate.c"
  "${ZF_SPIRV_DIR}/spirv_layout.c"
  "${ZF_SPIRV_DIR}/spirv_cfg.c"
  "${ZF_SPIRV_DIR}/spirv_decode.c"
  "${ZF_SPIRV_DIR}/spirv_decode_func.c"
  "${ZF_SPIRV_DIR}/spirv_decode_inst.c"
  "${ZF_SPIRV_DIR}/spirv_decode_value.c"
  "${ZF_SPIRV_DIR}/spirv_decode_mem.c"
  "${ZF_SPIRV_DIR}/spirv_decode_call.c"
  "${ZF_SPIRV_DIR}/spirv_decode_group.c"
  "${ZF_SPIRV_DIR}/spirv_decode_ext.c"
  "${ZF_SPIRV_DIR}/spirv_decode_image.c"
  "${ZF_SPIRV_DIR}/spirv_form.c"
  "${ZF_SPIRV_DIR}/spirv_run.c"
  "${ZF_SPIRV_DIR}/spirv_mem.c"
  "${ZF_SPIRV_DIR}/spirv_wave.c"
  "${ZF_SPIRV_DIR}/spirv_tune.c"
  "${ZF_SPIRV_DIR}/spirv_stats.c"
  "${ZF_SPIRV_DIR}/spirv_ops.c"
  "${ZF_SPIRV_DIR}/spirv_ops_mem.c"
  "${ZF_SPIRV_DIR}/spirv_ops_ext.c"
  "${ZF_SPIRV_DIR}/spirv_ops_misc.c"
  "${ZF_SPIRV_DIR}/spirv_image.c"
  "${ZF_SPIRV_DIR}/compiled/cx_disk.c"
  "${ZF_SPIRV_DIR}/compiled/cx_elf.c"
  "${ZF_SPIRV_DIR}/compiled/cx_jit.c"
  "${ZF_SPIRV_DIR}/compiled/cx_run.c")
set_target_properties(zf_spirv PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
target_include_directories(zf_spirv PUBLIC "${ZF_SPIRV_DIR}")
# The SPIR-V Tools validator (Debian's spirv-tools ships it as a static C++ library with a C API).
find_package(SPIRV-Tools CONFIG REQUIRED)
target_link_libraries(zf_spirv PUBLIC Threads::Threads m SPIRV-Tools-static stdc++)
target_compile_definitions(zf_spirv PUBLIC ZEFAKE_VERSION="${PROJECT_VERSION}")
# The compiled tier (compiled/, docs/spirv-execution.md "Compiled tier") generates code with LLVM's C API: Debian's
# llvm-14-dev, linked as its one shared library, into a part of its own, libze_fake_cx.so, which the engine loads from
# its own directory when it first compiles a kernel (compiled/cx_part.h): the driver itself does not link LLVM, so a
# process that never compiles does not load it. The engine reads LLVM-free parts of cx_internal.h, whose LLVM headers
# are system headers (no warnings of ours apply).
find_package(LLVM 14 REQUIRED CONFIG HINTS /usr/lib/llvm-14/lib/cmake/llvm)
target_include_directories(zf_spirv SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})
target_link_libraries(zf_spirv PUBLIC ${CMAKE_DL_LIBS})
add_library(ze_fake_cx MODULE
  "${ZF_SPIRV_DIR}/compiled/cx_part.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit_count.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit_hoist.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit_step.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit_image.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit_mem.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit_recompute.c"
  "${ZF_SPIRV_DIR}/compiled/cx_emit_ops.c")
set_target_properties(ze_fake_cx PROPERTIES PREFIX "lib" OUTPUT_NAME ze_fake_cx C_VISIBILITY_PRESET hidden)
target_include_directories(ze_fake_cx PRIVATE "${ZF_SPIRV_DIR}" "${ZF_SPIRV_DIR}/compiled")
target_include_directories(ze_fake_cx SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(ze_fake_cx PRIVATE ZEFAKE_VERSION="${PROJECT_VERSION}")
target_compile_options(ze_fake_cx PRIVATE -ffp-contract=off)
# Every symbol it uses is LLVM's or the C library's: the driver's come through zf_cx_host.
target_link_libraries(ze_fake_cx PRIVATE LLVM Threads::Threads ${CMAKE_DL_LIBS})
target_link_options(ze_fake_cx PRIVATE ${ZEFAKE_NO_UNDEFINED} "LINKER:--build-id")
# Whatever links the engine runs kernels compiled only with the part built beside it.
add_dependencies(zf_spirv ze_fake_cx)
install(TARGETS ze_fake_cx LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Kernels compute a * b + c as two roundings unless they ask for fma: the host compiler must not fuse them. The
# handlers' lane loops are what the engine spends its time in: optimize them fully (not under coverage, which wants
# -O0 line mapping).
target_compile_options(zf_spirv PRIVATE -ffp-contract=off)
if(NOT ZEFAKE_COVERAGE)
  set_source_files_properties(
    "${ZF_SPIRV_DIR}/spirv_ops.c" "${ZF_SPIRV_DIR}/spirv_ops_mem.c" "${ZF_SPIRV_DIR}/spirv_ops_ext.c"
    "${ZF_SPIRV_DIR}/spirv_run.c"
    PROPERTIES COMPILE_OPTIONS "-O3")
endif()


if(BUILD_TESTING)
  # Fed with the test kernels that conformance/kernels/kernels.cmake compiles (target zc_kernels).
  add_executable(zf_test_spirv_reader "${ZF_SPIRV_DRIVER_DIR}/tests/test_spirv_reader.c")
  target_link_libraries(zf_test_spirv_reader PRIVATE zf_spirv zefake_cmocka)
  target_compile_definitions(zf_test_spirv_reader PRIVATE ZF_TEST_KERNEL_DIR="${CMAKE_BINARY_DIR}/conformance/kernels")
  add_dependencies(zf_test_spirv_reader zc_kernels)
  add_test(NAME spirv_reader COMMAND zf_test_spirv_reader)
  set_tests_properties(spirv_reader PROPERTIES LABELS "driver;unit" TIMEOUT 120)

  # The execution engine without the driver: decoding, the decoded form, launches against a stand-in memory service,
  # faults, and mutated modules and forms.
  add_executable(zf_test_spirv_engine "${ZF_SPIRV_DRIVER_DIR}/tests/test_spirv_engine.c")
  target_link_libraries(zf_test_spirv_engine PRIVATE zf_spirv zefake_cmocka)
  target_compile_definitions(zf_test_spirv_engine PRIVATE ZF_TEST_KERNEL_DIR="${CMAKE_BINARY_DIR}/conformance/kernels")
  add_dependencies(zf_test_spirv_engine zc_kernels)
  # Both compile kernels with LLVM (no cache: each test run compiles them again), which a loaded runner slows down.
  add_test(NAME spirv_engine COMMAND zf_test_spirv_engine)
  set_tests_properties(spirv_engine PROPERTIES LABELS "driver;unit;spirv" TIMEOUT 240
    ENVIRONMENT_MODIFICATION "ZEFAKE_EXEC=unset:")
  # The same launches in the compiled tier (compiled/): what it compiles must give the interpreter's results.
  add_test(NAME spirv_engine.compiled COMMAND zf_test_spirv_engine)
  set_tests_properties(spirv_engine.compiled PROPERTIES LABELS "driver;unit;spirv;compiled" TIMEOUT 240
    ENVIRONMENT "ZEFAKE_EXEC=compiled")

  # The built-in kernels (src/module/builtins.c) on the reader's view of the test kernels, against a stand-in for the
  # memory service; launches through queues are tested by the execution tests.
  add_executable(zf_test_builtins "${ZF_SPIRV_DRIVER_DIR}/tests/test_builtins.c"
                                  "${ZF_SPIRV_DRIVER_DIR}/src/module/builtins.c")
  target_link_libraries(zf_test_builtins PRIVATE zf_spirv zefake_cmocka)
  target_include_directories(zf_test_builtins PRIVATE "${ZF_SPIRV_DRIVER_DIR}/src" "${ZF_GEN_DIR}"
    $<TARGET_PROPERTY:PkgConfig::LEVEL_ZERO,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(zf_test_builtins PRIVATE ZF_TEST_KERNEL_DIR="${CMAKE_BINARY_DIR}/conformance/kernels")
  add_dependencies(zf_test_builtins zc_kernels zf_generate)
  add_test(NAME builtin_kernels COMMAND zf_test_builtins)
  set_tests_properties(builtin_kernels PROPERTIES LABELS "driver;unit" TIMEOUT 60)
endif()
