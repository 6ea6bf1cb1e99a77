# The OpenCL face's checks (docs/opencl.md), label "opencl": the conformance executables through Debian's ocl-icd with
# only the build tree's ICD (OCL_ICD_VENDORS), and clinfo listing the platform without error lines.
# Included from conformance/CMakeLists.txt for the fake target.
find_program(ZC_CLINFO NAMES clinfo)
find_library(ZC_OPENCL_LIBRARY NAMES OpenCL libOpenCL.so.1)
if(NOT ZC_TARGET_NAME STREQUAL "fake" OR NOT ZC_OPENCL_LIBRARY)
  return()
endif()
# Four executables by area (test_opencl.c, test_opencl_events.c, test_opencl_lifetime.c, test_opencl_kernels.c), each run as is and with the cards' tiles as
# sub-devices (clCreateSubDevices), the latter on the deterministic clock (docs/cost-model.md, "Device time").
foreach(zc_cl_test test_opencl test_opencl_events test_opencl_lifetime test_opencl_kernels)
  add_executable(zc_${zc_cl_test} "${CMAKE_CURRENT_LIST_DIR}/${zc_cl_test}.c")
  set_target_properties(zc_${zc_cl_test} PROPERTIES OUTPUT_NAME ${zc_cl_test}
                        RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/conformance")
  target_link_libraries(zc_${zc_cl_test} PRIVATE zefake_cmocka "${ZC_OPENCL_LIBRARY}" ze_loader)
  target_include_directories(zc_${zc_cl_test} PRIVATE
                             $<TARGET_PROPERTY:PkgConfig::LEVEL_ZERO,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(zc_${zc_cl_test} PRIVATE ZC_KERNEL_DIR="${ZC_KERNEL_DIR}")
  add_dependencies(zc_${zc_cl_test} ze_fake zc_kernels)
  add_test(NAME conformance.${zc_cl_test} COMMAND zc_${zc_cl_test})
  set_tests_properties(conformance.${zc_cl_test} PROPERTIES
    ENVIRONMENT "OCL_ICD_VENDORS=${ZEFAKE_ICD_DIR};ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE_DIR:ze_fake>/libze_fake.so.1;ZEFAKE_INSTANCE=${zc_cl_test}"
    ENVIRONMENT_MODIFICATION "ZEFAKE_SCENARIO=unset:;ZE_AFFINITY_MASK=unset:;ZE_FLAT_DEVICE_HIERARCHY=unset:"
    LABELS "conformance;opencl"
    TIMEOUT 120)
  add_test(NAME conformance.${zc_cl_test}.composite COMMAND zc_${zc_cl_test})
  set_tests_properties(conformance.${zc_cl_test}.composite PROPERTIES
    ENVIRONMENT "OCL_ICD_VENDORS=${ZEFAKE_ICD_DIR};ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE_DIR:ze_fake>/libze_fake.so.1;ZEFAKE_INSTANCE=${zc_cl_test}_composite;ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE;ZEFAKE_CLOCK=modelled"
    ENVIRONMENT_MODIFICATION "ZEFAKE_SCENARIO=unset:;ZE_AFFINITY_MASK=unset:"
    LABELS "conformance;opencl"
    TIMEOUT 120)
endforeach()
# The strict profile's refusals of what the default one tolerates (docs/tolerances.md).
add_test(NAME conformance.test_opencl_kernels.strict COMMAND zc_test_opencl_kernels)
set_tests_properties(conformance.test_opencl_kernels.strict PROPERTIES
  ENVIRONMENT "OCL_ICD_VENDORS=${ZEFAKE_ICD_DIR};ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE_DIR:ze_fake>/libze_fake.so.1;ZEFAKE_INSTANCE=test_opencl_kernels_strict;ZEFAKE_STRICT=1"
  ENVIRONMENT_MODIFICATION "ZEFAKE_SCENARIO=unset:;ZE_AFFINITY_MASK=unset:;ZE_FLAT_DEVICE_HIERARCHY=unset:"
  LABELS "conformance;opencl"
  TIMEOUT 120)
if(ZC_CLINFO)
  # clinfo is not built with the sanitizers: in a sanitizer build their runtime is preloaded for the driver it loads
  # (clinfo's own leaks are not the driver's).
  set(zc_clinfo_env "")
  if(ZEFAKE_SANITIZERS MATCHES "address")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE zc_asan
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(zc_clinfo_env "LD_PRELOAD=${zc_asan}" "ASAN_OPTIONS=detect_leaks=0")
  endif()
  add_test(NAME opencl.clinfo COMMAND "${CMAKE_CURRENT_LIST_DIR}/check_clinfo.sh" "${ZEFAKE_ICD_DIR}")
  set_tests_properties(opencl.clinfo PROPERTIES LABELS "opencl" TIMEOUT 120 ENVIRONMENT "${zc_clinfo_env}"
    ENVIRONMENT_MODIFICATION "ZEFAKE_SCENARIO=unset:;ZE_AFFINITY_MASK=unset:;ZE_FLAT_DEVICE_HIERARCHY=unset:")
  add_test(NAME opencl.clinfo.composite COMMAND "${CMAKE_CURRENT_LIST_DIR}/check_clinfo.sh" "${ZEFAKE_ICD_DIR}")
  set_tests_properties(opencl.clinfo.composite PROPERTIES LABELS "opencl" TIMEOUT 120
    ENVIRONMENT "ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE;${zc_clinfo_env}"
    ENVIRONMENT_MODIFICATION "ZEFAKE_SCENARIO=unset:;ZE_AFFINITY_MASK=unset:")
endif()
