#!/usr/bin/env bash
# Runs fuzz targets for a while each (docs/fuzzing.md): fuzz/run.sh <target|all> [seconds per target, default 45].
# Needs the targets built with libFuzzer:
#   cmake -S . -B build-fuzz -DZEFAKE_FUZZ=ON -DCMAKE_C_COMPILER=clang && cmake --build build-fuzz --target fuzz
# (ZEFAKE_FUZZ_BUILD names another build directory). Each target first replays the reproducers of
# fuzz/regressions/<target>/, then fuzzes a temporary copy of its seeds; it prints the executions and the coverage of
# libFuzzer's final stats. Exits non-zero when a target crashes, hangs, leaks or a sanitizer reports: the input is
# kept in the printed directory. Extra libFuzzer options come from ZEFAKE_FUZZ_ARGS.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ZEFAKE_FUZZ_BUILD:-$root/build-fuzz}"
targets=(zz_spirv zz_native zz_scenario zz_metrics zz_metric_export zz_ipc zz_pnext zz_chain_garbage zz_command_addresses
         zz_cx_entry)
seconds="${2:-45}"

usage() {
  local IFS='|'
  echo "usage: $0 <${targets[*]}|all> [seconds]" >&2
  exit 2
}

# The seeds of a target: those kept in the tree, those the build writes, and for scenarios the shipped and the
# refused files the scenario tests use.
copy_seeds() {
  local target="$1" corpus="$2"
  for dir in "$root/fuzz/seeds/$target" "$build/fuzz/seeds/$target"; do
    if [[ -d "$dir" ]]; then cp "$dir"/* "$corpus"/; fi
  done
  if [[ "$target" == zz_scenario ]]; then
    cp "$root"/scenarios/integrated.yaml "$root"/scenarios/single-tile.yaml "$corpus"/
    for bad in deep-nesting recursive-alias metric-decimal-in-integer-formula metric-unknown-signal overflow \
               two-documents syntax-error root-sequence xe-link-port-reused; do
      cp "$root/fake_driver/tests/scenarios-bad/$bad.yaml" "$corpus"/
    done
  fi
}

# Saved reproducers of fixed findings must run clean (open/ holds findings not fixed yet: not replayed).
replay() {
  local target="$1" dir="$root/fuzz/regressions/$1"
  shopt -s nullglob
  local files=("$dir"/*)
  shopt -u nullglob
  local regular=()
  for f in "${files[@]}"; do [[ -f "$f" ]] && regular+=("$f"); done
  if ((${#regular[@]} > 0)); then
    echo "== $target: replaying ${#regular[@]} reproducer(s)"
    "$build/fuzz/$target" "${regular[@]}" >/dev/null 2>&1 || {
      echo "== $target: a reproducer of fuzz/regressions/$target fails again:" >&2
      "$build/fuzz/$target" "${regular[@]}" 2>&1 | tail -30 >&2
      return 1
    }
  fi
}

fuzz_one() {
  local target="$1" work
  [[ -x "$build/fuzz/$target" ]] || { echo "$build/fuzz/$target is not built (see $0)" >&2; return 1; }
  replay "$target" || return 1
  work="$(mktemp -d "${TMPDIR:-/tmp}/zefake-$target.XXXXXX")"
  mkdir -p "$work/corpus" "$work/artifacts"
  copy_seeds "$target" "$work/corpus"
  local status=0
  # shellcheck disable=SC2086 # ZEFAKE_FUZZ_ARGS is a list of options
  (cd "$work" && ZEFAKE_LOG=none "$build/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/" ${ZEFAKE_FUZZ_ARGS:-} corpus >"$work/log" 2>&1) || status=$?
  local execs cov
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)"
  cov="$(grep -o 'cov: [0-9]*' "$work/log" | tail -1 | cut -d' ' -f2)"
  echo "== $target: ${seconds}s, ${execs:-?} executions, coverage ${cov:-?} edges"
  if ((status != 0)); then
    echo "== $target FAILED (exit $status): log and input in $work" >&2
    grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$work/log" | head -20 >&2
    return 1
  fi
  rm -rf "$work"
}

(($# >= 1)) || usage
if [[ "$1" == all ]]; then selected=("${targets[@]}"); else selected=("$1"); fi
for t in "${selected[@]}"; do [[ " ${targets[*]} " == *" $t "* ]] || usage; done
failed=0
for t in "${selected[@]}"; do fuzz_one "$t" || failed=1; done
exit "$failed"
