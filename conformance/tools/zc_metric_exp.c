/* The fixture of tools/zc_metric_exp.h: the execution fixture and the vadd module. */
#include "zc_metric_exp.h"

int zc_setup_metric_fixture(void **state) {
    void *exec = NULL;
    if (zc_setup_exec(&exec) != 0)
        return -1;
    zc_metric_fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    f->x = *(zc_exec *)exec;
    free(exec);
    f->vadd = zc_module_create(f->x.context, f->x.device, "vadd");
    *state = f;
    return 0;
}

int zc_teardown_metric_fixture(void **state) {
    zc_metric_fixture *f = *state;
    ze_result_t deactivate = zetContextActivateMetricGroups(f->x.context, f->x.device, 0, NULL);
    bool ok = zeModuleDestroy(f->vadd) == ZE_RESULT_SUCCESS && zeContextDestroy(f->x.context) == ZE_RESULT_SUCCESS;
    free(f);
    return ok && deactivate == ZE_RESULT_SUCCESS ? 0 : -1;
}
