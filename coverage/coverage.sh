#!/usr/bin/env bash
# Builds zefake instrumented in <build>/coverage-build, runs the test suite there, and writes an lcov HTML report to
# <build>/coverage-report/index.html with a one-line summary. Usage: coverage/coverage.sh <source dir> <build dir>
set -euo pipefail
src=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
cov_build="$out/coverage-build"
report="$out/coverage-report"
rc="$src/coverage/lcovrc"

cmake -S "$src" -B "$cov_build" -DZEFAKE_COVERAGE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$cov_build" -j"$(nproc)" >/dev/null
find "$cov_build" -name '*.gcda' -delete
ctest --test-dir "$cov_build" -j"$(nproc)" --output-on-failure >"$out/coverage-ctest.log" || {
  tail -n 30 "$out/coverage-ctest.log"
  echo "coverage: the test suite failed (full log: $out/coverage-ctest.log)" >&2
  exit 1
}
lcov --config-file "$rc" --quiet --capture --directory "$cov_build" --output-file "$out/coverage.all.info"
# Only the driver's own sources count: not generated code, system headers, tests or tools.
lcov --config-file "$rc" --quiet --extract "$out/coverage.all.info" "$src/fake_driver/src/*" "$src/layers/*" \
  --output-file "$out/coverage.info"
genhtml --config-file "$rc" --quiet --title "zefake" --output-directory "$report" "$out/coverage.info"

summary=$(lcov --config-file "$rc" --summary "$out/coverage.info" 2>&1)
pct() { echo "$summary" | sed -n "s/^ *$1\.*: \([0-9.]*\)%.*/\1/p"; }
lines=$(pct lines)
functions=$(pct functions)
branches=$(pct branches)
echo "coverage: lines ${lines}%, functions ${functions}%, branches ${branches:-n/a}% — report: $report/index.html"

status=0
while read -r kind minimum; do
  case "$kind" in ''|'#'*) continue ;; esac
  value=$(pct "$kind")
  if awk -v v="$value" -v m="$minimum" 'BEGIN { exit !(v < m) }'; then
    echo "coverage: $kind ${value}% is below the threshold ${minimum}% (coverage/thresholds.txt)" >&2
    status=1
  fi
done <"$src/coverage/thresholds.txt"
exit $status
