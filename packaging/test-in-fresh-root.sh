#!/usr/bin/env bash
# The packages' test: installs the .deb packages into a fresh minbase Debian 12 root (made as
# CI makes its roots, .ci/fresh-root.sh) and runs a job there through the installed programs
# (packaging/test-installed.sh).
#
#   packaging/test-in-fresh-root.sh [DEBDIR]    (as root)
#
# Without DEBDIR the packages are built here first (packaging/make-debs.sh); CI passes the ones
# its first root built (.ci/run).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
debs=$(mktemp -d "${TMPDIR:-/var/tmp}/ddl-debs.XXXXXX")
trap 'rm -rf "$debs"' EXIT
if [ $# -gt 0 ]; then
    cp "$1"/*.deb "$debs/"
else
    "$repo/packaging/make-debs.sh" "$debs"
fi
DDL_CI_EXCHANGE="$debs" "$repo/.ci/fresh-root.sh" "$repo" \
    'packaging/test-installed.sh /work/exchange'
