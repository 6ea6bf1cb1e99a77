#!/usr/bin/env bash
# Sets up a fresh Debian bookworm machine, builds zefake and runs the demo through the real Level Zero loader against
# the embedded default device (or ZEFAKE_SCENARIO=<name or path>), then the OpenCL demo through Debian's ICD loader.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZEFAKE_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
ZEFAKE_BUILD_DIR=$build "$root/scripts/build.sh" >/dev/null
ZE_ENABLE_ALT_DRIVERS="$build/fake_driver/libze_fake.so.1" "$build/demo/zefake-demo"
# The same devices through OpenCL (docs/opencl.md), when the OpenCL loader was found at build time.
if [ -x "$build/demo/zefake-demo-opencl" ]; then
  echo
  ZE_ENABLE_ALT_DRIVERS="$build/fake_driver/libze_fake.so.1" OCL_ICD_VENDORS="$build/fake_driver/icd" \
    exec "$build/demo/zefake-demo-opencl"
fi
