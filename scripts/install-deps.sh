#!/usr/bin/env bash
# Installs the Debian 12 packages seglog builds and tests with. Idempotent: packages already
# present are not reinstalled, and apt is not touched at all when nothing is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libisal-dev libzstd-dev liblz4-dev libsnappy-dev zlib1g-dev
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev libasio-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libxxhash-dev libre2-dev
  kcat python3-venv prometheus
  libssl-dev libcurl4-openssl-dev libcpp-httplib-dev prometheus-cpp-dev
  gnuplot-nox python3
  chromium chromium-driver fonts-dejavu-core
  clang-14 libclang-rt-14-dev clang-format
  openjdk-17-jdk-headless maven
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
