#!/usr/bin/env bash
# Installs the Debian 12 packages hetplan needs to build and test. Idempotent: installs only what is
# missing, so a second run does nothing. Runs as root (no sudo needed) or through sudo if available.
# Arguments: extra package lists (one name a line, # comments) for tools only some targets need, e.g.
# packaging/fuzz-packages.txt for `make fuzz`; debian-packages.txt is always read.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t wanted < <(cat "$here/debian-packages.txt" "$@" | grep -v '^\s*#' | sed '/^\s*$/d')
missing=()
for p in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
