#!/usr/bin/env bash
# Installs what ltt needs on a fresh Debian 12 machine (as root), then
# configures and builds the given preset (default: release).
#   scripts/setup.sh [release|debug]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"

pkgs=(cmake g++ make libeigen3-dev doctest-dev libopenmpi-dev openmpi-bin
      librandom123-dev libcli11-dev nlohmann-json3-dev python3 python3-numpy python3-pip
      python3-torch   # the suite judges PyTorch's own ops on the CPU (torch.tiers_cpu)
      chromium   # the HTML report's test runs it headless
      valgrind   # valgrind.memcheck: ltt check under memcheck
      clang-14 libclang-rt-14-dev)   # clang: the libFuzzer target of the test suite
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: need root to install packages (or install them yourself): ${missing[*]}" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
