/* Names of result codes, and assertions that print them: "got 0x78000005" says less than the name. */
#include "zc_harness.h"

#include <stdio.h>

#define ZC_RESULTS(X)                                                                                                  \
    X(ZE_RESULT_SUCCESS)                                                                                               \
    X(ZE_RESULT_NOT_READY)                                                                                             \
    X(ZE_RESULT_ERROR_DEVICE_LOST)                                                                                     \
    X(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)                                                                              \
    X(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)                                                                            \
    X(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)                                                                            \
    X(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)                                                                             \
    X(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)                                                                           \
    X(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE)                                                                       \
    X(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX)                                                                        \
    X(ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE)                                                                        \
    X(ZE_RESULT_EXP_ERROR_REMOTE_DEVICE)                                                                               \
    X(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS)                                                                        \
    X(ZE_RESULT_ERROR_NOT_AVAILABLE)                                                                                   \
    X(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE)                                                                          \
    X(ZE_RESULT_WARNING_DROPPED_DATA)                                                                                  \
    X(ZE_RESULT_ERROR_UNINITIALIZED)                                                                                   \
    X(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)                                                                             \
    X(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)                                                                             \
    X(ZE_RESULT_ERROR_INVALID_ARGUMENT)                                                                                \
    X(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)                                                                             \
    X(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)                                                                            \
    X(ZE_RESULT_ERROR_INVALID_NULL_POINTER)                                                                            \
    X(ZE_RESULT_ERROR_INVALID_SIZE)                                                                                    \
    X(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)                                                                                \
    X(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)                                                                           \
    X(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)                                                                  \
    X(ZE_RESULT_ERROR_INVALID_ENUMERATION)                                                                             \
    X(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)                                                                         \
    X(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)                                                                        \
    X(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)                                                                           \
    X(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)                                                                             \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)                                                                             \
    X(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)                                                                           \
    X(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)                                                                    \
    X(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)                                                                  \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)                                                                   \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)                                                                    \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE)                                                                  \
    X(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)                                                                         \
    X(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)                                                                       \
    X(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)                                                                             \
    X(ZE_RESULT_WARNING_ACTION_REQUIRED)                                                                               \
    X(ZE_RESULT_ERROR_UNKNOWN)

const char *zc_result_name(ze_result_t result) {
    switch (result) {
#define ZC_RESULT_CASE(name)                                                                                           \
    case name:                                                                                                         \
        return #name;
        ZC_RESULTS(ZC_RESULT_CASE)
#undef ZC_RESULT_CASE
    default:
        return "unknown ze_result_t";
    }
}

void zc_fail_at(const char *file, int line, const char *format, ...) {
    /* cmocka puts what _assert_true reports into the XML <failure> element; print_error would only reach stderr.
     * Static: the failure ends the test with a longjmp, which would leak a heap buffer. */
    static char message[16384];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    _assert_true(0, message, file, line);
}

void zc_assert_result_at(ze_result_t got, ze_result_t expected, const char *call, const char *file, int line) {
    if (got == expected)
        return;
    zc_fail_at(file, line, "%s\n    returned %s (0x%x), expected %s (0x%x)", call, zc_result_name(got), (unsigned)got,
               zc_result_name(expected), (unsigned)expected);
}

void zc_assert_error_at(ze_result_t got, const char *call, const char *file, int line) {
    if (got != ZE_RESULT_SUCCESS)
        return;
    zc_fail_at(file, line, "%s\n    returned ZE_RESULT_SUCCESS, expected an error", call);
}
