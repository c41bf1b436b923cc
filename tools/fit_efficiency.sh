#!/bin/sh
# Fits the time model's global efficiency constants on tests/fixtures/published_runs.json and the
# RL rows and prints them with the per-row error table (docs/accuracy.md). Run from the repository
# root with a configured build folder; `--check` only says whether the fit still gives the
# constants the model ships (a ctest runs it).
set -e
BUILD=${BUILD:-build}
cmake --build "$BUILD" --target fit_efficiency >/dev/null
exec "$BUILD/fit_efficiency" "$@"
