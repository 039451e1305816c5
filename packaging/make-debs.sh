#!/usr/bin/env bash
# Builds DDL (scripts/build.sh) and packs it into the four Debian packages: ddl-server,
# ddl-worker, ddlcli and ddl-desktop (CPack, packaging/cpack.cmake). They land in
# build/packages/, and are copied to OUT when one is given.
#
#   packaging/make-debs.sh [OUT]
#
# Where lintian is installed, its findings are printed (they do not fail the build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
rm -rf build/packages
(cd build && cpack -G DEB >/dev/null)
debs=(build/packages/*.deb)
echo "make-debs: ${debs[*]}"
if command -v lintian >/dev/null; then
    lintian --no-tag-display-limit "${debs[@]}" || true
fi
if [ $# -gt 0 ]; then
    mkdir -p "$1"
    cp "${debs[@]}" "$1/"
fi
