#!/usr/bin/env bash
# Runs COMMAND (bash) from the top of a copy of REPO inside a fresh minbase Debian 12 root, as a
# new user of DDL would on a new machine: nothing there but what debootstrap lays down and what
# the project's own scripts install.
#
#   .ci/fresh-root.sh REPO COMMAND
#
# - The root comes from `debootstrap --variant=minbase bookworm` with the Debian mirror that this
#   machine's apt sources already name (no host name is written here).
# - /proc, /sys and /dev are bind-mounted in a private mount namespace of its own, unmounted when
#   the command ends however it ends; the namespace going away takes any that remain with it, so
#   nothing is ever left mounted on the host. The root is entered by pivot_root, not chroot. The root is deleted only after checking that nothing
#   is mounted under it.
# - The copy of REPO holds its tracked files and the untracked ones git does not ignore (what a
#   clean clone plus your edits would have), never build folders.
# - .deb files are kept in DDL_CI_CACHE (default /var/cache/ddl-ci) between runs: a second run
#   does not download them again, and apt still checks every one.
# - DDL_CI_KEEP_ROOT=1 leaves the root in place (unmounted) for a look afterwards.
# - DDL_CI_EXCHANGE=DIR bind-mounts DIR (a folder of this machine) at /work/exchange inside, for
#   what one root hands to the next: CI's first root writes the .deb packages there, and a
#   second fresh root installs them (.ci/run, packaging/test-in-fresh-root.sh).
set -euo pipefail

log() { echo "ci: $*" >&2; }

if [ "${1:-}" = --inside ]; then
    # Second stage, in the private mount namespace made by the first. The root becomes the
    # namespace's own root by pivot_root, not chroot: bubblewrap (the task sandbox the tests run)
    # needs / to be a mount point and refuses to work inside a chroot.
    root=$2
    command=$3
    mount --bind "$root" "$root"
    for fs in proc sys dev; do
        mount --rbind "/$fs" "$root/$fs"
        mount --make-rslave "$root/$fs"
    done
    mount --bind "$DDL_CI_CACHE/apt-archives" "$root/var/cache/apt/archives"
    if [ -n "${DDL_CI_EXCHANGE:-}" ]; then
        mkdir -p "$root/work/exchange"
        mount --bind "$DDL_CI_EXCHANGE" "$root/work/exchange"
    fi
    mkdir -p "$root/.host"
    cd "$root"
    pivot_root . .host
    cd /
    umount -l /.host
    rmdir /.host
    unmount_all() {
        umount /var/cache/apt/archives 2>/dev/null || true
        umount /work/exchange 2>/dev/null || true
        for fs in dev sys proc; do
            umount -R "/$fs" 2>/dev/null || umount -R -l "/$fs" 2>/dev/null || true
        done
    }
    trap unmount_all EXIT
    status=0
    /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-true}" DEBIAN_FRONTEND=noninteractive \
        /bin/bash -c "cd /work/ddl && $command" || status=$?
    exit "$status"
fi

repo=$(cd "$1" && pwd)
command=$2
if [ -n "${DDL_CI_EXCHANGE:-}" ]; then
    DDL_CI_EXCHANGE=$(cd "$DDL_CI_EXCHANGE" && pwd)
    export DDL_CI_EXCHANGE
fi
[ "$(id -u)" = 0 ] || { log "run me as root: debootstrap, mount and chroot need it"; exit 2; }
export DDL_CI_CACHE="${DDL_CI_CACHE:-/var/cache/ddl-ci}"

# The first Debian mirror apt is set up with that serves bookworm itself (not -updates or
# -security), from deb822 .sources files or one-line .list files.
apt_mirror() {
    local file
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk 'BEGIN { RS = ""; FS = "\n" }
            {
                types = ""; uris = ""; suites = ""; enabled = "yes"
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^[ \t]*#/ || !index($i, ":")) continue
                    n = index($i, ":")
                    key = tolower(substr($i, 1, n - 1)); value = substr($i, n + 1)
                    if (key == "types") types = value
                    else if (key == "uris") uris = value
                    else if (key == "suites") suites = value
                    else if (key == "enabled") enabled = value
                }
                if (tolower(enabled) ~ /no/) next
                if ((" " types " ") !~ /[ \t]deb[ \t]/) next
                if ((" " suites " ") !~ /[ \t]bookworm[ \t]/) next
                count = split(uris, list, /[ \t]+/)
                for (j = 1; j <= count; j++) if (list[j] != "") { print list[j]; exit }
            }' "$file"
    done
    { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } | awk '
        $1 == "deb" {
            i = 2
            if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
            if ($(i + 1) == "bookworm") print $i
        }'
}

mirror=$( (apt_mirror || true) | head -n 1)
[ -n "$mirror" ] || { log "no Debian bookworm mirror in /etc/apt/sources*: add one"; exit 2; }
if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap on this machine"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

mkdir -p "$DDL_CI_CACHE/debootstrap" "$DDL_CI_CACHE/apt-archives/partial"
base=$(mktemp -d "${TMPDIR:-/var/tmp}/ddl-ci.XXXXXX")
root="$base/root"

# Lists what is mounted at or under the root, as the host sees it.
mounted_under_root() {
    awk -v root="$root" '$5 == root || index($5, root "/") == 1 { print $5 }' /proc/self/mountinfo
}
remove_root() {
    local status=$?
    if [ -n "$(mounted_under_root)" ]; then
        log "still mounted under $root, so it is left in place:"
        mounted_under_root >&2
    elif [ "${DDL_CI_KEEP_ROOT:-0}" = 1 ]; then
        log "the root is kept in $root"
    else
        rm -rf --one-file-system "$base"
    fi
    exit "$status"
}
trap remove_root EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
log "debootstrap --variant=minbase bookworm from $mirror into $root"
debootstrap --variant=minbase --cache-dir="$DDL_CI_CACHE/debootstrap" bookworm "$root" "$mirror" \
    >"$base/debootstrap.log" 2>&1 || { tail -n 40 "$base/debootstrap.log" >&2; exit 1; }
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" \
    >"$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
log "root ready in $(($(date +%s) - started)) s"

mkdir -p "$root/work/ddl"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) |
    (cd "$repo" && xargs -0 -r tar --no-recursion -cf - --ignore-failed-read) |
    tar -xif - -C "$root/work/ddl"
# Some tests read ../shared beside the checkout, as on a developer's machine.
if [ -d "$repo/../shared" ]; then
    cp -r "$repo/../shared" "$root/work/shared"
fi

status=0
unshare --mount --propagation private -- "$0" --inside "$root" "$command" || status=$?
log "the command ended with status $status after $(($(date +%s) - started)) s in all"
exit "$status"
