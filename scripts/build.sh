#!/usr/bin/env bash
# Configures and builds zefake. Environment: ZEFAKE_BUILD_DIR (default build), ZEFAKE_CMAKE_ARGS (extra -D options).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZEFAKE_BUILD_DIR:-$root/build}
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" ${ZEFAKE_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
