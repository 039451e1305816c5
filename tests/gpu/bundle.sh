#!/usr/bin/env bash
# Packs the built ddl-server, ddl-worker, ddlcli and bubblewrap with the libraries and Qt plugins
# they load into DEST (default .gpu/ in the repository), so that they run on a machine without
# Debian's packages: the lent GPU machine of tests/gpu/run-on-gpu.sh. RPATH (not RUNPATH, which
# dependencies would not inherit) points the copies at DEST/lib; the C and C++ runtimes stay the
# machine's own, so the Python and CUDA programs a task runs never see these libraries.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$root/.gpu}
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/plugins"
qtplugins=$(dirname "$(dirname "$(find /usr/lib -path '*qt6/plugins/tls/libqopensslbackend.so' | head -1)")")
cp -r "$qtplugins/tls" "$qtplugins/sqldrivers" "$dest/plugins/"
rm -f "$dest/plugins/sqldrivers/"*{psql,odbc,mysql}*
programs=("$root/build/bin/ddl-server" "$root/build/bin/ddl-worker" "$root/build/bin/ddlcli" /usr/bin/bwrap)
for program in "${programs[@]}"; do cp "$program" "$dest/bin/"; done
keep='^(libc|libm|libstdc\+\+|libgcc_s|libresolv|libdl|libpthread|librt|ld-linux-x86-64)\.so'
for object in "$dest"/bin/* "$dest"/plugins/*/*.so; do
    ldd "$object" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
    basename "$lib" | grep -Eq "$keep" || cp -L "$lib" "$dest/lib/"
done
strip --strip-debug "$dest"/bin/* "$dest"/lib/* "$dest"/plugins/*/*.so 2>/dev/null || true
for object in "$dest"/bin/*; do patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$object"; done
for object in "$dest"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$object"; done
for object in "$dest"/plugins/*/*.so; do
    patchelf --force-rpath --set-rpath '$ORIGIN/../../lib' "$object"
done
# The job's project as a committed git repository (ddlcli submits HEAD).
cp -r "$root/tests/gpu/project" "$dest/project"
git -C "$dest/project" init -q
git -C "$dest/project" add -A
git -C "$dest/project" -c user.name=gpu-check -c user.email=gpu@ddl.local commit -qm "gpu check"
du -sh "$dest"
# What travels to the GPU machine: one compressed file (the folder is larger than a call carries).
tar -C "$dest" -czf "$dest.tgz" .
du -sh "$dest.tgz"
