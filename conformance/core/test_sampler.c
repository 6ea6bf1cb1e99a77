/* Conformance: samplers (zeSamplerCreate, zeSamplerDestroy) with every address mode, filter mode and coordinate kind,
 * bound as kernel arguments, and bad inputs. */
#include "zc_image.h"
#include "zc_kernel_files.h"

static ze_sampler_desc_t zc_sampler_desc(ze_sampler_address_mode_t address, ze_sampler_filter_mode_t filter,
                                         ze_bool_t normalized) {
    ze_sampler_desc_t desc = {ZE_STRUCTURE_TYPE_SAMPLER_DESC, NULL, address, filter, normalized};
    return desc;
}

static void sampler_every_mode_created_and_destroyed(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    for (int address = ZE_SAMPLER_ADDRESS_MODE_NONE; address <= ZE_SAMPLER_ADDRESS_MODE_MIRROR; address++) {
        for (int filter = ZE_SAMPLER_FILTER_MODE_NEAREST; filter <= ZE_SAMPLER_FILTER_MODE_LINEAR; filter++) {
            for (ze_bool_t normalized = 0; normalized <= 1; normalized++) {
                ze_sampler_desc_t desc = zc_sampler_desc(address, filter, normalized);
                ze_sampler_handle_t sampler = NULL;
                zc_assert_success(zeSamplerCreate(x->context, x->device, &desc, &sampler));
                assert_non_null(sampler);
                zc_assert_success(zeSamplerDestroy(sampler));
            }
        }
    }
}

static void sampler_on_every_device_of_the_context(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    const zc_system *sys = zc_sys();
    ze_sampler_desc_t desc = zc_sampler_desc(ZE_SAMPLER_ADDRESS_MODE_REPEAT, ZE_SAMPLER_FILTER_MODE_LINEAR, 1);
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_sampler_handle_t sampler = NULL;
        zc_assert_success(zeSamplerCreate(x->context, sys->all[i], &desc, &sampler));
        zc_assert_success(zeSamplerDestroy(sampler));
    }
}

static void sampler_bad_arguments(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_sampler_desc_t desc = zc_sampler_desc(ZE_SAMPLER_ADDRESS_MODE_CLAMP, ZE_SAMPLER_FILTER_MODE_NEAREST, 0);
    ze_sampler_handle_t sampler = NULL;
    zc_assert_result(zeSamplerCreate(NULL, x->device, &desc, &sampler), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeSamplerCreate(x->context, NULL, &desc, &sampler), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeSamplerCreate(x->context, x->device, NULL, &sampler), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeSamplerCreate(x->context, x->device, &desc, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_sampler_desc_t bad = desc;
    bad.addressMode = (ze_sampler_address_mode_t)(ZE_SAMPLER_ADDRESS_MODE_MIRROR + 1);
    zc_assert_result(zeSamplerCreate(x->context, x->device, &bad, &sampler), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    bad = desc;
    bad.filterMode = (ze_sampler_filter_mode_t)(ZE_SAMPLER_FILTER_MODE_LINEAR + 1);
    zc_assert_result(zeSamplerCreate(x->context, x->device, &bad, &sampler), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeSamplerDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (!zc_driver_is_fake())
        return;
    bad = desc;
    bad.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC;
    zc_assert_result(zeSamplerCreate(x->context, x->device, &bad, &sampler), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeSamplerCreate(x->context, x->device, &desc, &sampler));
    zc_assert_success(zeSamplerDestroy(sampler));
    zc_assert_result(zeSamplerDestroy(sampler), ZE_RESULT_ERROR_INVALID_NULL_HANDLE); /* destroyed */
}

static void sampler_device_outside_context(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    if (sys->num_roots < 2 && sys->num_subdevices[0] < 2)
        skip();
    /* A context for one device (or tile), and a sampler asked for another. */
    ze_device_handle_t inside = sys->num_roots >= 2 ? sys->roots[0] : sys->subdevices[0][0];
    ze_device_handle_t outside = sys->num_roots >= 2 ? sys->roots[1] : sys->subdevices[0][1];
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreateEx(sys->driver, &cd, 1, &inside, &context));
    ze_sampler_desc_t desc = zc_sampler_desc(ZE_SAMPLER_ADDRESS_MODE_NONE, ZE_SAMPLER_FILTER_MODE_NEAREST, 0);
    ze_sampler_handle_t sampler = NULL;
    zc_assert_result(zeSamplerCreate(context, outside, &desc, &sampler), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeContextDestroy(context));
}

static void sampler_bound_as_kernel_argument(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "image");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "image_sample");
    ze_sampler_desc_t desc = zc_sampler_desc(ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER, ZE_SAMPLER_FILTER_MODE_LINEAR, 1);
    ze_sampler_handle_t sampler = NULL;
    zc_assert_success(zeSamplerCreate(x->context, x->device, &desc, &sampler));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof sampler, &sampler));
    zc_assert_result(zeKernelSetArgumentValue(kernel, 1, sizeof sampler - 1, &sampler),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    if (zc_driver_is_fake()) {
        ze_sampler_handle_t gone = NULL;
        zc_assert_success(zeSamplerCreate(x->context, x->device, &desc, &gone));
        zc_assert_success(zeSamplerDestroy(gone));
        zc_assert_result(zeKernelSetArgumentValue(kernel, 1, sizeof gone, &gone), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        uint64_t garbage = 0x1234;
        zc_assert_result(zeKernelSetArgumentValue(kernel, 1, sizeof garbage, &garbage),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_assert_success(zeSamplerDestroy(sampler));
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        ZC_T(sampler_every_mode_created_and_destroyed),
        ZC_T(sampler_on_every_device_of_the_context),
        ZC_T(sampler_bad_arguments),
        cmocka_unit_test(sampler_device_outside_context),
        ZC_T(sampler_bound_as_kernel_argument),
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
