#!/usr/bin/env bash
# Unpacks the Level Zero 1.12 headers of Debian trixie's libze-dev into a directory of the build tree, without touching
# the system: apt reads trixie's package list into a private state directory, downloads the .deb and dpkg unpacks it.
# The headers are all that is used (trixie's loader binary needs a newer glibc than bookworm's). Prints the directory
# to pass as -DZEFAKE_L0_HEADERS (docs/generated-code.md, "Headers").
# Usage: scripts/fetch-l0-headers.sh [destination]   (default: build-l0-headers/trixie in the source tree)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/build-l0-headers/trixie}
if [ -f "$dest/level_zero/ze_api.h" ]; then
  echo "$dest"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/sources.list.d" "$work/deb"
cat >"$work/sources.list.d/trixie.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_options=(-o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$work/sources.list.d"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "Dir::State::status=/dev/null"
             -o "APT::Sandbox::User=$(id -un)" -o "Debug::NoLocking=1" -qq)
apt-get "${apt_options[@]}" update >&2
(cd "$work/deb" && apt-get "${apt_options[@]}" download libze-dev >&2)
dpkg-deb -x "$work"/deb/libze-dev_*.deb "$work/unpacked"
version=$(grep -o 'ZE_API_VERSION_CURRENT = ZE_MAKE_VERSION( *[0-9]*, *[0-9]* *)' \
            "$work/unpacked/usr/include/level_zero/ze_api.h" | grep -o '[0-9]*, *[0-9]*' | tr -d ' ' | tr , .)
echo "zefake: trixie's $(basename "$work"/deb/libze-dev_*.deb) carries the Level Zero $version headers" >&2
mkdir -p "$dest"
cp -r "$work/unpacked/usr/include/level_zero" "$dest/"
echo "$dest"
