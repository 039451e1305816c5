#!/usr/bin/env bash
# Builds a tiny OCI image from this machine's own files, with no registry and no network: the
# image the tests run jobs in (docs/images.md). Its root holds bash, a few coreutils, python3 at
# /usr/local/bin (the host has it at /usr/bin, so a task can tell which one it runs) with the
# standard library, the libraries they link (ldd), and an /etc/os-release with ID=ddl-test.
#
#   scripts/make-test-image.sh [NAME]      (default: localhost/ddl-test:1)
#
# Prints the image's ID. Runs `podman import`, so it needs podman and, unless run as root, user
# namespaces.
set -euo pipefail

name=${1:-localhost/ddl-test:1}
work=$(mktemp -d "${TMPDIR:-/tmp}/ddl-test-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{etc,tmp,usr/bin,usr/local/bin,usr/local/lib,proc,dev,sys,run}
chmod 1777 "$root/tmp"

# Debian's python3, not a shim on the caller's PATH (pyenv).
python=$(readlink -f /usr/bin/python3)
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

programs=(bash sh cat ls echo env id sleep touch mkdir rm true false head tail grep readlink)
copy_with_libraries() {
    local file=$1 dest=$2
    cp -L "$file" "$dest"
    # "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and the loader's own line.
    { ldd "$file" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; } | while read -r library; do
        mkdir -p "$root$(dirname "$library")"
        [ -e "$root$library" ] || cp -L "$library" "$root$library"
    done
}
for program in "${programs[@]}"; do
    path=$(type -P "$program" || true)
    [ -n "$path" ] && [ -f "$path" ] && copy_with_libraries "$path" "$root/usr/bin/$program"
done
ln -s usr/bin "$root/bin"
copy_with_libraries "$python" "$root/usr/local/bin/python3"
ln -s python3 "$root/usr/local/bin/python"

# The standard library without its tests, caches and the host's site-packages; the C extension
# modules it loads need their own libraries too.
tar -C /usr/lib --exclude=test --exclude=tests --exclude=__pycache__ --exclude=idlelib \
    --exclude=tkinter --exclude=site-packages --exclude=dist-packages \
    -cf - "python$version" | tar -C "$root/usr/local/lib" -xf -
for module in "$root/usr/local/lib/python$version"/lib-dynload/*.so; do
    { ldd "$module" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; } | while read -r library; do
        mkdir -p "$root$(dirname "$library")"
        [ -e "$root$library" ] || cp -L "$library" "$root$library"
    done
done

cat >"$root/etc/os-release" <<'EOF'
ID=ddl-test
NAME="DDL test image"
PRETTY_NAME="DDL test image (made by scripts/make-test-image.sh)"
EOF
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >>"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
echo 'nogroup:x:65534:' >>"$root/etc/group"

tar -C "$root" --numeric-owner --owner=0 --group=0 -cf "$work/root.tar" .
podman import --quiet --change 'CMD ["/bin/sh"]' "$work/root.tar" "$name"
