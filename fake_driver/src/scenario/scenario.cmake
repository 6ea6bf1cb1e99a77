# Scenario loading: the YAML parser and validator, and the embedded copies of scenarios/*.yaml.
# Included from fake_driver/CMakeLists.txt, which sets ZF_GEN_DIR. Paths are taken from this file's location, so the
# module also builds when included from a scratch project.
get_filename_component(ZF_DRIVER_DIR "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
get_filename_component(ZF_SCENARIO_DIR "${ZF_DRIVER_DIR}/../scenarios" ABSOLUTE)

# Every shipped scenario is embedded, so names work wherever the driver is installed; CONFIGURE_DEPENDS picks up
# added or removed files without a manual re-configure.
file(GLOB ZF_SCENARIO_FILES CONFIGURE_DEPENDS "${ZF_SCENARIO_DIR}/*.yaml")
list(SORT ZF_SCENARIO_FILES)
set(ZF_SCENARIO_EMBEDDED_C "${ZF_GEN_DIR}/scenario_embedded.c")
add_custom_command(
  OUTPUT "${ZF_SCENARIO_EMBEDDED_C}"
  COMMAND "${Python3_EXECUTABLE}" "${ZF_DRIVER_DIR}/gen/embed_scenarios.py" --out "${ZF_SCENARIO_EMBEDDED_C}"
          ${ZF_SCENARIO_FILES}
  DEPENDS "${ZF_DRIVER_DIR}/gen/embed_scenarios.py" ${ZF_SCENARIO_FILES}
  COMMENT "Embedding scenarios/*.yaml"
  VERBATIM)

add_library(zf_scenario OBJECT
  "${ZF_DRIVER_DIR}/src/scenario/scenario.c"
  "${ZF_DRIVER_DIR}/src/scenario/scenario_walk.c"
  "${ZF_DRIVER_DIR}/src/scenario/scenario_values.c"
  "${ZF_DRIVER_DIR}/src/scenario/scenario_schema.c"
  "${ZF_DRIVER_DIR}/src/scenario/scenario_metrics.c"
  "${ZF_DRIVER_DIR}/src/scenario/scenario_formula.c"
  "${ZF_DRIVER_DIR}/src/scenario/scenario_faults.c"
  "${ZF_DRIVER_DIR}/src/scenario/scenario_fabric.c"
  "${ZF_SCENARIO_EMBEDDED_C}")
set_target_properties(zf_scenario PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
target_include_directories(zf_scenario PUBLIC "${ZF_DRIVER_DIR}/src")
# Fault rules name API functions and results from the registry the driver hands in (zf_scenario_use_api_names): the
# library includes nothing generated. The parser's own test hands in the same registry (zf_api_table.c).
# Level Zero is needed for its headers only: linking the loader library into a driver the loader loads would be
# wrong, so only the include directories are taken from PkgConfig::LEVEL_ZERO.
target_include_directories(zf_scenario PUBLIC $<TARGET_PROPERTY:PkgConfig::LEVEL_ZERO,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(zf_scenario PUBLIC PkgConfig::YAML)

if(BUILD_TESTING)
  add_executable(zf_test_scenario "${ZF_DRIVER_DIR}/tests/test_scenario.c" "${ZF_GEN_DIR}/zf_api_table.c")
  target_include_directories(zf_test_scenario PRIVATE "${ZF_GEN_DIR}")
  add_dependencies(zf_test_scenario zf_generate)
  target_link_libraries(zf_test_scenario PRIVATE zf_scenario zefake_cmocka Threads::Threads)
  target_compile_definitions(zf_test_scenario PRIVATE
    ZF_TEST_SCENARIO_DIR="${ZF_SCENARIO_DIR}"
    ZF_TEST_BAD_DIR="${ZF_DRIVER_DIR}/tests/scenarios-bad")
  add_test(NAME scenario_parser COMMAND zf_test_scenario)
  set_tests_properties(scenario_parser PROPERTIES LABELS "scenario;unit" TIMEOUT 60)
endif()
