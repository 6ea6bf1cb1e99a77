#!/usr/bin/env python3
"""The layer check (check_layers.py) on small trees: a tree that calls only downward passes, and each kind of upward
include fails with the line naming it (the Level Zero face using the OpenCL face, an area using a face or a face's
generated header, a leaf using the core's generated header or an area's header found from the top of its folder, a
folder in no layer)."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layers.py")
ARGS = ["--leaves", "scenario", "spirv", "tracecore", "--areas", "core", "driver", "ze", "cl",
        "--generated", "zf_generated.h=core", "zfcl_generated.h=cl"]

# A tree that only calls downward, with includes of every form the check resolves.
CLEAN = {
    "core/zf_core.h": '#include "zf_generated.h"\n',
    "driver/zf_driver.h": '#include "core/zf_core.h"\n#include "zf_tracecore.h"\n',
    "tracecore/zf_tracecore.h": "",
    "spirv/spirv_form.h": '#include <stdint.h>\n#include "zefake/zefake_ext.h"\n',
    "spirv/compiled/cx.c": '#include "spirv_form.h"\n#include "../spirv_form.h"\n',
    "scenario/scenario.c": '#include "scenario/scenario.h"\n',
    "scenario/scenario.h": "",
    "ze/ze_root.c": '#include "driver/zf_driver.h"\n#include "zf_generated.h"\n',
    "cl/cl_platform.c": '#include "core/zf_core.h"\n#include "zfcl_generated.h"\n#include "cl_internal.h"\n'
                        '#include "ze/zf_ze.h"\n',
    "ze/zf_ze.h": "",
    "cl/cl_internal.h": "",
}

# Each: files added to the clean tree, and the line the check must print.
BROKEN = [
    ({"ze/ze_cl.c": '#include "cl/cl_internal.h"\n'}, "include: ze/ze_cl.c (ze) includes cl/cl_internal.h (cl)"),
    ({"core/zf_up.c": '#include "cl/cl_internal.h"\n'}, "include: core/zf_up.c (core) includes cl/cl_internal.h (cl)"),
    ({"core/zf_cl.c": '#include "zfcl_generated.h"\n'}, "include: core/zf_cl.c (core) includes zfcl_generated.h (cl)"),
    ({"driver/zf_ze.c": '#include "../ze/zf_ze.h"\n'},
     "include: driver/zf_ze.c (driver) includes ../ze/zf_ze.h (ze)"),
    ({"scenario/scenario_faults.c": '#include "zf_generated.h"\n'},
     "include: scenario/scenario_faults.c (scenario) includes zf_generated.h (core)"),
    ({"spirv/spirv_up.c": '#include "zf_driver.h"\n'}, "include: spirv/spirv_up.c (spirv) includes zf_driver.h (driver)"),
    ({"extra/thing.c": ""}, "folder: src/extra is in no layer (neither a leaf nor an area)"),
]


def run(files):
    with tempfile.TemporaryDirectory() as src:
        for path, text in files.items():
            os.makedirs(os.path.join(src, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(src, path), "w", encoding="utf-8") as f:
                f.write(text)
        done = subprocess.run([sys.executable, CHECK, "--src", src, *ARGS], capture_output=True, text=True)
        return done.returncode, done.stdout


def main():
    failures = []
    code, out = run(CLEAN)
    if code != 0:
        failures.append(f"the clean tree fails:\n{out}")
    for extra, line in BROKEN:
        code, out = run({**CLEAN, **extra})
        if code != 1 or line not in out.splitlines():
            failures.append(f"expected exit 1 with '{line}', got {code}:\n{out}")
    for failure in failures:
        print(failure)
    print(f"test_check_layers: {1 + len(BROKEN) - len(failures)} of {1 + len(BROKEN)} trees judged as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
