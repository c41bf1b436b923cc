#!/usr/bin/env bash
# Installs the Debian 12 packages meshplan builds with, when any is missing.
# Only Debian packages; nothing is downloaded at build or run time.
# `install-deps.sh dist` adds what `make dist` / `make test-dist` need (wheel, venv, pre-commit).
set -euo pipefail
packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev
          doctest-dev libbenchmark-dev ccache zlib1g-dev)
if [[ "${1:-}" == dist ]]; then
  packages+=(libc6-dev python3-wheel python3-venv python3-pip pre-commit git)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "installing: ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  SUDO=sudo
else
  SUDO=
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
