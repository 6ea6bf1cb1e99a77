#!/usr/bin/env bash
# Builds zefake and runs the whole test suite with ctest (extra ctest arguments are passed on, e.g. -L conformance).
# Environment: ZEFAKE_BUILD_DIR, ZEFAKE_CMAKE_ARGS as for scripts/build.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZEFAKE_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
ZEFAKE_BUILD_DIR=$build "$root/scripts/build.sh"
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure "$@"
