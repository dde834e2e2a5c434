#!/usr/bin/env bash
# Installs the Debian 12 packages the build needs, if any are missing. Safe to re-run.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  nlohmann-json3-dev libspdlog-dev libcli11-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  qtbase5-dev libqt5charts5-dev
  python3-dev python3-numpy python3-pytest pybind11-dev
  ffmpeg  # moe-workbench --record: frames to an animated GIF and an MP4 for slides
  libopenmpi-dev openmpi-bin  # moe-sim sweep across machines (mpirun); the build works without
  libsimgrid-dev  # bench/simgrid_peer: the flow model beside SimGrid; the build works without
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "Installing: ${missing[*]}"
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
