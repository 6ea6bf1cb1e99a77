# XPTI (layers/xpti, docs/xpti.md), labelled xpti and layers:
#   test_xpti_dispatcher   our dispatcher, libxptifw.so, against the framework contract
#   test_xpti_expectations the framework's own unit-test expectations, one test each (also under threads)
#   test_xpti              the emitter with our dispatcher and the test subscriber, through layers/tracing
#   test_xpti_itt          its ITT stream, the same way
#   test_xpti_stock, test_xpti_itt_stock   the same two through the loader's stock tracing layer
# Each emitter test runs its workload in a child process set up as a user traces an application: LD_PRELOAD of the
# emitter (after the sanitizer runtime in sanitized builds), ZE_ENABLE_TRACING_LAYER=1 and the XPTI variables.
# ZC_XPTI_FRAMEWORK=<libxptifw.so> in the environment runs them against another framework library (docs/xpti.md).
get_property(ZC_XPTI_PRELOAD_PREFIX GLOBAL PROPERTY ZEFAKE_XPTI_PRELOAD_PREFIX)
set(ZC_XPTI_LIBS xptifw zexpti zx_test_subscriber zx_timeline zx_incomplete_subscriber)
set(ZC_XPTI_DEFINITIONS
    ZC_XPTI_DISPATCHER="$<TARGET_FILE:xptifw>" ZC_XPTI_EMITTER="$<TARGET_FILE:zexpti>"
    ZC_XPTI_TEST_SUBSCRIBER="$<TARGET_FILE:zx_test_subscriber>" ZC_XPTI_TIMELINE="$<TARGET_FILE:zx_timeline>"
    ZC_XPTI_INCOMPLETE_SUBSCRIBER="$<TARGET_FILE:zx_incomplete_subscriber>"
    ZC_XPTI_PRELOAD_PREFIX="${ZC_XPTI_PRELOAD_PREFIX}" ZC_OUR_LAYER_DIR="${CMAKE_BINARY_DIR}/layers/tracing"
    ZC_RESULTS_DIR="${ZC_RESULTS_DIR}" ZC_KERNEL_DIR="${ZC_KERNEL_DIR}"
    ZC_XPTI_FUNCTION_IDS="${PROJECT_SOURCE_DIR}/layers/xpti/gen/function_ids.txt")

function(zc_add_xpti name)
  zc_add_conformance(${name} layers SOURCES ${ARGN} LABELS xpti DEFINITIONS ${ZC_XPTI_DEFINITIONS} ${ZC_XPTI_EXTRA})
  if(NOT TARGET zc_${name})
    return()
  endif()
  target_include_directories(zc_${name} PRIVATE "${PROJECT_SOURCE_DIR}/layers/xpti/include"
                             "${PROJECT_SOURCE_DIR}/layers/xpti/subscribers" "${CMAKE_CURRENT_SOURCE_DIR}/kernels")
  target_link_libraries(zc_${name} PRIVATE zx_functions ${CMAKE_DL_LIBS} Threads::Threads)
  add_dependencies(zc_${name} ${ZC_XPTI_LIBS} ze_tracing_layer zc_kernels)
  # The caller's XPTI set-up must not leak into the tests: each child gets exactly the one it needs.
  set_property(TEST conformance.${name} APPEND PROPERTY ENVIRONMENT_MODIFICATION
               "XPTI_TRACE_ENABLE=unset:" "XPTI_SUBSCRIBERS=unset:" "XPTI_FRAMEWORK_DISPATCHER=unset:"
               "ZX_TS_STREAMS=unset:" "ZX_TS_OLD_END=unset:" "ZX_TS_PUBLIC_METADATA=unset:" "ZX_TS_DETAIL=unset:"
               "LD_PRELOAD=unset:")
endfunction()

zc_add_xpti(test_xpti_dispatcher layers/test_xpti_dispatcher.c)
zc_add_xpti(test_xpti_expectations layers/test_xpti_expectations.c)
zc_add_xpti(test_xpti layers/test_xpti.c layers/zc_xpti.c)
zc_add_xpti(test_xpti_itt layers/test_xpti_itt.c layers/zc_xpti.c)
set(ZC_XPTI_EXTRA ZC_XPTI_STOCK_LAYER=1)
zc_add_xpti(test_xpti_stock layers/test_xpti.c layers/zc_xpti.c)
zc_add_xpti(test_xpti_itt_stock layers/test_xpti_itt.c layers/zc_xpti.c)
unset(ZC_XPTI_EXTRA)
