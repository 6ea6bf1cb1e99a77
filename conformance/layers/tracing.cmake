# API tracing (conformance/layers/test_tracing.c), one executable per tracer implementation, labelled tracing:
#   test_tracing_driver            the driver's zetTracerExp* tracers through the loader
#   test_tracing_driver_intercept  the same under ZE_ENABLE_LOADER_INTERCEPT=1
#   test_tracing_stock             the loader's stock tracing layer (ZE_ENABLE_TRACING_LAYER=1)
#   test_tracing_ours              layers/tracing, put first in LD_LIBRARY_PATH
# Each executable sets its own environment (docs/tracing.md). The stock layer's known defects are expected failures
# in expected/tracing-stock.txt, which replaces the driver target's list for that executable: they belong to the
# layer, whatever the driver.
set(ZC_TRACING_LAYER_DIR "${CMAKE_BINARY_DIR}/layers/tracing")
set(ZC_TRACING_GENERATED_DIR "${ZC_TRACING_LAYER_DIR}/generated")

function(zc_add_tracing variant target)
  zc_add_conformance(test_tracing_${variant} layers SOURCES layers/test_tracing.c LABELS tracing
    DEFINITIONS ZC_TRACING_TARGET=${target} ZC_OUR_LAYER_DIR="${ZC_TRACING_LAYER_DIR}" ${ARGN})
  target_include_directories(zc_test_tracing_${variant} PRIVATE "${ZC_TRACING_GENERATED_DIR}")
  target_link_libraries(zc_test_tracing_${variant} PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(zc_test_tracing_${variant} zl_generate)
endfunction()

zc_add_tracing(driver ZC_TRACING_DRIVER)
zc_add_tracing(driver_intercept ZC_TRACING_DRIVER ZC_TRACING_INTERCEPT=1)
zc_add_tracing(stock ZC_TRACING_STOCK)
zc_add_tracing(ours ZC_TRACING_OURS)
add_dependencies(zc_test_tracing_ours ze_tracing_layer)
set_property(TEST conformance.test_tracing_stock APPEND PROPERTY ENVIRONMENT_MODIFICATION
             "ZC_EXPECTED_FAILURES=set:${CMAKE_CURRENT_SOURCE_DIR}/expected/tracing-stock.txt")
