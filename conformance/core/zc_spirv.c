/* The SPIR-V fixture of core/zc_spirv.h: the execution fixture and a synchronous immediate list. */
#include "zc_spirv.h"

int zc_setup_spirv(void **state) {
    void *exec = NULL;
    if (zc_setup_exec(&exec) != 0)
        return -1;
    zc_sx *s = calloc(1, sizeof *s);
    if (s == NULL)
        return -1;
    s->x = *(zc_exec *)exec;
    free(exec);
    s->list = zc_immediate(&s->x, s->x.compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    *state = s;
    return 0;
}

int zc_teardown_spirv(void **state) {
    zc_sx *s = *state;
    bool ok = zeCommandListDestroy(s->list) == ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < s->num_modules; i++)
        ok = ok && zeModuleDestroy(s->modules[i]) == ZE_RESULT_SUCCESS;
    ok = ok && zeContextDestroy(s->x.context) == ZE_RESULT_SUCCESS;
    free(s);
    return ok ? 0 : -1;
}
