/* Fuzz target: scenario files (docs/scenarios.md, docs/fuzzing.md). The input is YAML text as ZEFAKE_SCENARIO names
 * it, given to the validated reader zeInit uses. A refused file must come with its diagnostic, as the reader
 * promises (scenario/scenario.h). */
#include "scenario/scenario.h"
#include "zf_generated.h"
#include "zz_common.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static zf_scenario scenario; /* large: kept out of the stack */
    static const zf_scenario_api_names api_names = {zf_api_number_from_name, zf_result_from_name};
    zf_scenario_use_api_names(&api_names); /* fault rules are read as zeInit reads them */
    char error[ZF_SCENARIO_ERROR_MAX] = "";
    if (!zf_scenario_parse((const char *)data, size, "<fuzz>", &scenario, error) && error[0] == '\0') {
        fprintf(stderr, "a scenario was refused without a diagnostic\n");
        abort();
    }
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
