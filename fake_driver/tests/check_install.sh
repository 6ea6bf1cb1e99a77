#!/usr/bin/env bash
# Installs the build into a scratch prefix and checks what users rely on: the driver at the path pkg-config names
# with the compiled tier's part beside it, the extension header, and a CMake package that gives zefake::ze_fake.
# Usage: check_install.sh <build dir> <scratch>
set -euo pipefail
build=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
pcdir=$(dirname "$(find "$scratch/prefix" -name zefake.pc | head -n 1)")
driver=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=driver zefake)
[ -f "$driver" ] || { echo "check_install: pkg-config names $driver, which is not installed" >&2; exit 1; }
# The compiled tier's LLVM part is loaded from the driver's own directory.
for part in libze_fake_cx.so libze_fake_clc.so; do
  [ -f "$(dirname "$driver")/$part" ] || { echo "check_install: $part is not next to $driver" >&2; exit 1; }
done
[ -f "$scratch/prefix/include/zefake/zefake_ext.h" ] || { echo "check_install: zefake_ext.h missing" >&2; exit 1; }
mkdir -p "$scratch/consumer"
cat >"$scratch/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(consumer NONE)
find_package(zefake REQUIRED)
file(GENERATE OUTPUT driver.txt CONTENT "$<TARGET_FILE:zefake::ze_fake>")
CMAKE
cmake -S "$scratch/consumer" -B "$scratch/consumer/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
target=$(cat "$scratch/consumer/build/driver.txt")
[ -f "$target" ] || { echo "check_install: find_package(zefake) gives $target, which does not exist" >&2; exit 1; }
echo "check_install: driver $driver; CMake target $target"
