# The tracer core (common/tracecore): a leaf static library that the driver's zetTracerExp* tracers (zf_core)
# and the tracing layer (layers/tracing) both link, so that the tracing rules are written once. Included from
# fake_driver/CMakeLists.txt; paths come from this file's location. Built position-independent with hidden
# visibility: each shared library that links it keeps its own private copy (its own tracers and thread state).
get_filename_component(ZF_TRACECORE_DIR "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)

add_library(zf_tracecore STATIC "${ZF_TRACECORE_DIR}/tracecore.c")
set_target_properties(zf_tracecore PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
target_include_directories(zf_tracecore PUBLIC "${ZF_TRACECORE_DIR}")
# Level Zero is needed for its headers only (ze_result_t), as for the other leaves.
target_include_directories(zf_tracecore PUBLIC
                           $<TARGET_PROPERTY:PkgConfig::LEVEL_ZERO,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(zf_tracecore PUBLIC Threads::Threads)
