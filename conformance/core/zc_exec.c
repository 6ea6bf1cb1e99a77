/* The execution fixture of core/zc_exec.h: a context on the first root device and its queue groups. */
#include "zc_exec.h"

void zc_exec_groups(zc_exec *x) {
    x->num_groups = ZC_COUNT(x->groups);
    for (uint32_t i = 0; i < x->num_groups; i++)
        x->groups[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    zc_assert_success(zeDeviceGetCommandQueueGroupProperties(x->device, &x->num_groups, x->groups));
    x->compute_ordinal = ZC_NO_ORDINAL;
    x->copy_ordinal = ZC_NO_ORDINAL;
    for (uint32_t i = 0; i < x->num_groups; i++) {
        ze_command_queue_group_property_flags_t f = x->groups[i].flags;
        if ((f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) && x->compute_ordinal == ZC_NO_ORDINAL)
            x->compute_ordinal = i;
        if ((f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY) && !(f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) &&
            x->copy_ordinal == ZC_NO_ORDINAL)
            x->copy_ordinal = i;
    }
    assert_int_not_equal(x->compute_ordinal, ZC_NO_ORDINAL);
}

int zc_setup_exec(void **state) {
    zc_exec *x = calloc(1, sizeof *x);
    if (x == NULL)
        return -1;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    if (zeContextCreate(zc_sys()->driver, &desc, &x->context) != ZE_RESULT_SUCCESS) {
        free(x);
        return -1;
    }
    x->device = zc_sys()->roots[0];
    zc_exec_groups(x);
    *state = x;
    return 0;
}

int zc_teardown_exec(void **state) {
    zc_exec *x = *state;
    ze_result_t result = zeContextDestroy(x->context);
    free(x);
    return result == ZE_RESULT_SUCCESS ? 0 : -1;
}
