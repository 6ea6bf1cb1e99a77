/* Conformance: physical memory objects (zePhysicalMemCreate, zePhysicalMemDestroy): sizes in pages, devices of the
 * context, destruction while mapped, and bad inputs. Mapping them is test_virtual_memory's. */
#include "zc_exec.h"

static size_t zc_page_size(zc_exec *x, size_t size) {
    size_t page = 0;
    zc_assert_success(zeVirtualMemQueryPageSize(x->context, x->device, size, &page));
    assert_true(page > 0 && (page & (page - 1)) == 0);
    return page;
}

static ze_result_t zc_physical(zc_exec *x, ze_device_handle_t device, size_t size, ze_physical_mem_handle_t *out) {
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, 0, size};
    return zePhysicalMemCreate(x->context, device, &desc, out);
}

static void physical_create_destroy_page_multiples(void **state) {
    zc_exec *x = *state;
    size_t page = zc_page_size(x, 1);
    for (size_t pages = 1; pages <= 64; pages *= 4) {
        ze_physical_mem_handle_t physical = NULL;
        zc_assert_success(zc_physical(x, x->device, pages * page, &physical));
        assert_non_null(physical);
        zc_assert_success(zePhysicalMemDestroy(x->context, physical));
    }
}

static void physical_on_every_device_of_the_context(void **state) {
    zc_exec *x = *state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        size_t page = 0;
        zc_assert_success(zeVirtualMemQueryPageSize(x->context, sys->all[i], 1, &page));
        ze_physical_mem_handle_t physical = NULL;
        zc_assert_success(zc_physical(x, sys->all[i], page, &physical));
        zc_assert_success(zePhysicalMemDestroy(x->context, physical));
    }
}

static void physical_mapped_cannot_be_destroyed(void **state) {
    zc_exec *x = *state;
    size_t page = zc_page_size(x, 1);
    ze_physical_mem_handle_t physical = NULL;
    zc_assert_success(zc_physical(x, x->device, page, &physical));
    void *hint = (void *)(uintptr_t)(page * 4096), *va = NULL;
    zc_assert_success(zeVirtualMemReserve(x->context, hint, page, &va));
    zc_assert_success(zeVirtualMemMap(x->context, va, page, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    ze_result_t result = zePhysicalMemDestroy(x->context, physical);
    if (zc_driver_is_fake())
        zc_assert_result(result, ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_success(zeVirtualMemUnmap(x->context, va, page));
    if (result != ZE_RESULT_SUCCESS)
        zc_assert_success(zePhysicalMemDestroy(x->context, physical));
    zc_assert_success(zeVirtualMemFree(x->context, va, page));
}

static void physical_charges_device_memory(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake(); /* exact accounting (docs/virtual-memory.md) */
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(x->device, &p));
    size_t page = zc_page_size(x, 1);
    size_t too_big = (size_t)((p.maxMemAllocSize + page) / page * page);
    ze_physical_mem_handle_t physical = NULL;
    zc_assert_result(zc_physical(x, x->device, too_big, &physical), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    /* Physical memory takes device memory: the device's whole capacity cannot be allocated on top of it. */
    uint32_t n = 8;
    ze_device_memory_properties_t memories[8];
    for (uint32_t i = 0; i < n; i++)
        memories[i] = (ze_device_memory_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    zc_assert_success(zeDeviceGetMemoryProperties(x->device, &n, memories));
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += memories[i].totalSize;
    zc_assert_success(zc_physical(x, x->device, page, &physical));
    ze_relaxed_allocation_limits_exp_desc_t relaxed = {ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC, NULL,
                                                       ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &relaxed, 0, 0};
    void *all = NULL;
    zc_assert_result(zeMemAllocDevice(x->context, &desc, (size_t)total, 0, x->device, &all),
                     ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
    zc_assert_success(zeMemAllocDevice(x->context, &desc, (size_t)total, 0, x->device, &all));
    zc_assert_success(zeMemFree(x->context, all));
}

static void physical_bad_arguments(void **state) {
    zc_exec *x = *state;
    size_t page = zc_page_size(x, 1);
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, 0, page};
    ze_physical_mem_handle_t physical = NULL;
    zc_assert_result(zePhysicalMemCreate(NULL, x->device, &desc, &physical), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zePhysicalMemCreate(x->context, NULL, &desc, &physical), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zePhysicalMemCreate(x->context, x->device, NULL, &physical), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zePhysicalMemCreate(x->context, x->device, &desc, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_physical_mem_desc_t bad = desc;
    bad.flags = 0x4; /* no flag; ZE_BIT(1) is ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_HOST since 1.11 */
    zc_assert_result(zePhysicalMemCreate(x->context, x->device, &bad, &physical), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    bad = desc;
    bad.size = 0;
    zc_assert_result(zePhysicalMemCreate(x->context, x->device, &bad, &physical), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_result(zePhysicalMemDestroy(x->context, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (!zc_driver_is_fake())
        return;
    bad = desc;
    bad.size = page + 1;
    zc_assert_result(zePhysicalMemCreate(x->context, x->device, &bad, &physical),
                     ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    bad = desc;
    bad.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    zc_assert_result(zePhysicalMemCreate(x->context, x->device, &bad, &physical), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Destroyed in the context it belongs to, once. */
    zc_assert_success(zePhysicalMemCreate(x->context, x->device, &desc, &physical));
    ze_context_handle_t other = NULL;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &other));
    zc_assert_result(zePhysicalMemDestroy(other, physical), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeContextDestroy(other));
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
    zc_assert_result(zePhysicalMemDestroy(x->context, physical), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        ZC_T(physical_create_destroy_page_multiples),
        ZC_T(physical_on_every_device_of_the_context),
        ZC_T(physical_mapped_cannot_be_destroyed),
        ZC_T(physical_charges_device_memory),
        ZC_T(physical_bad_arguments),
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
