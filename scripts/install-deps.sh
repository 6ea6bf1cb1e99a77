#!/usr/bin/env bash
# Installs the Debian packages zefake builds and tests with (only those missing). Uses sudo when not root.
set -euo pipefail
packages=(build-essential cmake pkg-config python3 libze-dev libze1 libcmocka-dev libyaml-dev lcov clang libclang-rt-14-dev
          llvm-14-dev llvm-spirv-14 spirv-tools spirv-headers ocl-icd-opencl-dev opencl-headers clinfo)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "zefake: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
