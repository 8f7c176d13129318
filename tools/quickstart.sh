#!/usr/bin/env bash
# Quick start on Debian 12 as root: installs what steptime needs, builds it, runs the what-if examples.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  g++ cmake make python3 \
  libboost-dev libboost-graph-dev nlohmann-json3-dev libcli11-dev doctest-dev libbenchmark-dev libeigen3-dev gnuplot-nox >/dev/null

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2 --target alexnet_whatif vgg_whatif steptime_cli
./build/examples/alexnet_whatif
./build/examples/vgg_whatif
