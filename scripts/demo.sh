#!/usr/bin/env bash
# Sets up a fresh Debian bookworm machine, builds zefake and runs the demo through the real Level Zero loader against
# the embedded default device (or ZEFAKE_SCENARIO=<name or path>).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZEFAKE_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
ZEFAKE_BUILD_DIR=$build "$root/scripts/build.sh" >/dev/null
ZE_ENABLE_ALT_DRIVERS="$build/fake_driver/libze_fake.so.1" exec "$build/demo/zefake-demo"
