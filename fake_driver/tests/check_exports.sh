#!/usr/bin/env bash
# Fails unless the driver's dynamic symbol table defines exactly the functions named in the version script.
set -euo pipefail
lib=$1
map=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort)
wanted=$(sed -n 's/^ *\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$map" | sort)
if [ "$exported" != "$wanted" ]; then
  diff <(echo "$wanted") <(echo "$exported") || true
  echo "check_exports: $lib exports other symbols than $map (left: wanted, right: exported)" >&2
  exit 1
fi
echo "check_exports: $(echo "$exported" | wc -l) getters exported, nothing else"
