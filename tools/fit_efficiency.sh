#!/bin/sh
# Fits the time model's global efficiency constants on tests/fixtures/published_runs.json and
# prints them with the per-row error table (docs/accuracy.md). Run from the repository root
# after building the library: cmake --build build --target meshplan_core
set -e
BUILD=${BUILD:-build}
c++ -std=c++20 -O2 -Isrc tools/fit_efficiency.cpp "$BUILD/libmeshplan_core.a" -lfmt -lyaml-cpp -o "$BUILD/fit_efficiency"
exec "$BUILD/fit_efficiency" "${1:-tests/fixtures/published_runs.json}"
