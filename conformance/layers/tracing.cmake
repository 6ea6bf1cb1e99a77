# API tracing (conformance/layers/test_tracing.c, and test_tracing_threads.c for tracers under threads), two
# executables per tracer implementation, labelled tracing:
#   test_tracing[_threads]_driver            the driver's zetTracerExp* tracers through the loader
#   test_tracing[_threads]_driver_intercept  the same under ZE_ENABLE_LOADER_INTERCEPT=1
#   test_tracing[_threads]_stock             the loader's stock tracing layer (ZE_ENABLE_TRACING_LAYER=1)
#   test_tracing[_threads]_ours              layers/tracing, put first in LD_LIBRARY_PATH
# Each executable sets its own environment (docs/tracing.md). The stock layer's known defects are expected failures
# in expected/tracing-stock.txt, which replaces the driver target's list for those executables: they belong to the
# layer, whatever the driver.
set(ZC_TRACING_LAYER_DIR "${CMAKE_BINARY_DIR}/layers/tracing")
set(ZC_TRACING_GENERATED_DIR "${ZC_TRACING_LAYER_DIR}/generated")

# Each variant builds both executables of the tracing contract: test_tracing.c and test_tracing_threads.c.
function(zc_add_tracing variant target)
  foreach(source IN ITEMS test_tracing test_tracing_threads)
    set(name ${source}_${variant})
    zc_add_conformance(${name} layers SOURCES layers/${source}.c layers/zc_tracing.c LABELS tracing
      DEFINITIONS ZC_TRACING_TARGET=${target} ZC_OUR_LAYER_DIR="${ZC_TRACING_LAYER_DIR}" ${ARGN})
    target_include_directories(zc_${name} PRIVATE "${ZC_TRACING_GENERATED_DIR}")
    target_link_libraries(zc_${name} PRIVATE ${CMAKE_DL_LIBS})
    add_dependencies(zc_${name} zl_generate)
    if(target STREQUAL "ZC_TRACING_OURS")
      add_dependencies(zc_${name} ze_tracing_layer)
    elseif(target STREQUAL "ZC_TRACING_STOCK")
      set_property(TEST conformance.${name} APPEND PROPERTY ENVIRONMENT_MODIFICATION
                   "ZC_EXPECTED_FAILURES=set:${CMAKE_CURRENT_SOURCE_DIR}/expected/tracing-stock.txt")
    endif()
  endforeach()
endfunction()

zc_add_tracing(driver ZC_TRACING_DRIVER)
zc_add_tracing(driver_intercept ZC_TRACING_DRIVER ZC_TRACING_INTERCEPT=1)
zc_add_tracing(stock ZC_TRACING_STOCK)
zc_add_tracing(ours ZC_TRACING_OURS)
