#!/usr/bin/env bash
# Makes docs/screenshots/*.png: runs tst_desktop_screenshots (real ddl-server and ddl-worker,
# real jobs) on an Xvfb display with the xcb platform, as the desktop would draw it.
#   scripts/screenshots.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
cmake --build "$build" --target tst_desktop_screenshots ddl-server ddl-worker
mkdir -p "$root/docs/screenshots"
DDL_BIN_DIR="$build/bin" DDL_SOURCE_DIR="$root" DDL_SCREENSHOT_DIR="$root/docs/screenshots" \
    QT_QPA_PLATFORM=xcb QT_FORCE_ASSERTS=1 \
    xvfb-run -a -s "-screen 0 1400x900x24" "$build/tests/tst_desktop_screenshots"
ls -l "$root/docs/screenshots"
