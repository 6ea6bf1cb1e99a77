# The OpenCL face's generated files (fake_driver/gen/clgen.py): the ICD dispatch table with every slot filled, the
# prototypes of the implementations, the version script with the two ICD exports added to the Level Zero getters,
# and the slot table of docs/opencl-support.md. Also the ICD file of the build tree (OCL_ICD_VENDORS=<dir>).
set(ZEFAKE_CL_HEADER_DIR "/usr/include/CL" CACHE PATH "Directory of the OpenCL headers (cl_icd.h)")
set(ZF_CL_GENERATED "${ZF_GEN_DIR}/zfcl_generated.h" "${ZF_GEN_DIR}/zfcl_dispatch.c" "${ZF_GEN_DIR}/ze_fake_all.map"
    "${ZF_GEN_DIR}/opencl-support.md")
add_custom_command(
  OUTPUT ${ZF_CL_GENERATED}
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/gen/clgen.py" --headers "${ZEFAKE_CL_HEADER_DIR}"
          --ze-map "${ZF_GEN_DIR}/ze_fake.map" --out "${ZF_GEN_DIR}" ${ZF_AREA_SOURCES_cl}
  DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/gen/clgen.py" "${CMAKE_CURRENT_SOURCE_DIR}/gen/clheaders.py"
          "${ZEFAKE_CL_HEADER_DIR}/cl_icd.h" "${ZF_GEN_DIR}/ze_fake.map" ${ZF_AREA_SOURCES_cl}
  COMMENT "Generating the OpenCL dispatch table from CL/cl_icd.h"
  VERBATIM)
add_custom_target(zf_cl_generate DEPENDS ${ZF_CL_GENERATED})
add_dependencies(zf_cl_generate zf_generate)
set(ZF_EXPORT_MAP "${ZF_GEN_DIR}/ze_fake_all.map")

# OCL_ICD_VENDORS may name this directory or the file in it.
set(ZEFAKE_ICD_DIR "${CMAKE_CURRENT_BINARY_DIR}/icd")
file(GENERATE OUTPUT "${ZEFAKE_ICD_DIR}/zefake.icd" CONTENT "$<TARGET_FILE_DIR:ze_fake>/libze_fake.so.1\n")
set(ZEFAKE_ICD_DIR "${ZEFAKE_ICD_DIR}" PARENT_SCOPE)

add_custom_target(opencl-support-doc
  COMMAND ${CMAKE_COMMAND} -E copy "${ZF_GEN_DIR}/opencl-support.md" "${PROJECT_SOURCE_DIR}/docs/opencl-support.md"
  DEPENDS zf_cl_generate
  COMMENT "Updating docs/opencl-support.md from the build")
add_test(NAME docs_opencl_support_current
         COMMAND ${CMAKE_COMMAND} -E compare_files "${ZF_GEN_DIR}/opencl-support.md"
                 "${PROJECT_SOURCE_DIR}/docs/opencl-support.md")
set_tests_properties(docs_opencl_support_current PROPERTIES LABELS "docs;opencl")

# The face's LLVM part (src/cl/cl_bitcode.h): its compiler's bitcode pass, built as a shared object of its own next to
# the driver and loaded at the first compile from source, so that the driver does not link LLVM.
add_library(ze_fake_clc MODULE "${CMAKE_CURRENT_SOURCE_DIR}/src/cl/cl_bitcode.c")
set_target_properties(ze_fake_clc PROPERTIES PREFIX "lib" OUTPUT_NAME ze_fake_clc C_VISIBILITY_PRESET hidden)
target_include_directories(ze_fake_clc PRIVATE $<TARGET_PROPERTY:zf_core,INCLUDE_DIRECTORIES>)
target_include_directories(ze_fake_clc SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(ze_fake_clc PRIVATE ZEFAKE_VERSION="${PROJECT_VERSION}")
# Every symbol it uses is LLVM's or the C library's.
target_link_libraries(ze_fake_clc PRIVATE LLVM)
target_link_options(ze_fake_clc PRIVATE ${ZEFAKE_NO_UNDEFINED})
add_dependencies(ze_fake_clc zf_generate zf_cl_generate)
install(TARGETS ze_fake_clc LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
