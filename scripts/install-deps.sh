#!/usr/bin/env bash
# Installs the Debian 12 packages DDL builds, tests and runs with. Safe to run again.
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config git ca-certificates curl
    qt6-base-dev libqt6sql6-sqlite libqt6sql6-psql postgresql
    libgit2-dev libyaml-cpp-dev libarchive-dev libzstd-dev libsodium-dev libssl-dev
    python3 python3-numpy python3-venv python3-pip bubblewrap
    podman runc uidmap
    slurm-wlm munge
    qt6-charts-dev libqt6opengl6-dev qtkeychain-qt6-dev qt6-tools-dev qt6-l10n-tools qt6-svg-dev
    qt6-translations-l10n xvfb xauth
    clang libclang-rt-14-dev wrk
    dpkg-dev file   # packaging/make-debs.sh: cpack runs dpkg-shlibdeps and file
)

sudo=""
if [ "$(id -u)" != 0 ]; then
    sudo="sudo"
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages are installed"
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
