#!/usr/bin/env bash
# clinfo through Debian's ocl-icd with only the build tree's ICD: the zefake platform and its devices are listed and no
# query answers an error (clinfo prints those as "<function:line: ...: error N>" or "Invalid ...").
set -euo pipefail
icd_dir=$1
out=$(OCL_ICD_VENDORS="$icd_dir" clinfo 2>&1)
grep -q "Platform Name *zefake" <<<"$out" || { echo "check_clinfo: no zefake platform"; echo "$out" | head; exit 1; }
grep -Eq "Number of devices *[1-9]" <<<"$out" || { echo "check_clinfo: no device"; exit 1; }
errors=$(grep -E "<[A-Za-z]+:[0-9]+:|: error -?[0-9]+|Invalid " <<<"$out" || true)
if [ -n "$errors" ]; then
  echo "check_clinfo: clinfo reported errors:"
  echo "$errors"
  exit 1
fi
echo "check_clinfo: $(grep -c "Device Name" <<<"$out") device entries, no error lines"
