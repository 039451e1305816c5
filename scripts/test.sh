#!/usr/bin/env bash
# README command (2): install what is needed, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j 2 "$@")
# A short run of each libFuzzer target (tests/fuzz), built with clang in build-fuzz/.
scripts/fuzz.sh "${DDL_FUZZ_SECONDS:-15}"
