#!/usr/bin/env bash
# Installs the Debian packages wildfire needs, skipping those already present (idempotent).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ccache  # toolchain
  zlib1g-dev                              # gzip input
  libfmt-dev nlohmann-json3-dev libcli11-dev  # formatting, JSON output, command line
  libgtest-dev libgmock-dev libbenchmark-dev  # tests and micro-benchmarks
  libopenmpi-dev openmpi-bin              # scale-out (optional at build time)
  clang libclang-rt-14-dev                # libFuzzer and sanitizer runtimes
  python3 python3-numpy                   # ../shared/tools/gen_powerlaw.py for benchmarks
  libcairo2-dev                           # degree-distribution plots (info --plot), optional
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
