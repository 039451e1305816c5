#!/usr/bin/env bash
# Installs the .deb packages in DEBDIR into this Debian 12 system with apt-get and runs one job
# through the installed programs only: ddl-server as the user ddl and ddl-worker as the user
# ddl-worker (started directly, with the privileges their systemd units leave them: there is
# no systemd in a fresh root), a user of the machine registering and submitting the packaged
# example with ddlcli, and downloading the model. Then the units, the .desktop file and the
# AppStream metadata are validated, and purging removes the state folders.
#
#   packaging/test-installed.sh DEBDIR
#
# As root, in a fresh root (packaging/test-in-fresh-root.sh makes one): it changes the system.
set -euo pipefail
debs=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ddl-installed.XXXXXX")
chmod 0755 "$work"
say() { echo "test-installed: $*"; }
fail() { echo "test-installed: FAILED: $*" >&2; exit 1; }
pids=()
# Stopped and waited for: nothing may still write under /var/lib when the purge removes it.
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
}
trap cleanup EXIT

say "installing $(cd "$debs" && echo *.deb)"
apt-get update -qq
# Only what the packages declare, plus what the example needs (numpy, a Recommends of
# ddl-worker) and what its user makes the project's repository with (git).
apt-get install -y -qq --no-install-recommends "$debs"/*.deb python3-numpy git >/dev/null

for program in ddl-server ddl-worker ddlcli ddl-desktop; do
    missing=$(ldd "/usr/bin/$program" | grep 'not found' || true)
    [ -z "$missing" ] || fail "/usr/bin/$program misses libraries: $missing"
done
{ id ddl && id ddl-worker; } >/dev/null || fail "no system user ddl or ddl-worker"
[ "$(stat -c %U:%a /var/lib/ddl)" = ddl:750 ] || fail "/var/lib/ddl is $(stat -c %U:%a /var/lib/ddl)"

# As the units run them: the service's user, its home, no new privileges, no capabilities.
# Only in the background (`as_service ... &`): it execs, so that $! is the program itself and
# cleanup's kill reaches it (a plain call left the program running after the script ended).
as_service() {
    local user=$1 home=$2
    shift 2
    exec env HOME="$home" setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs \
        --bounding-set=-all --inh-caps=-all "$@"
}

# The server's settings come from its packaged /etc/ddl/server.yaml; only the port is free.
as_service ddl /var/lib/ddl /usr/bin/ddl-server --config /etc/ddl/server.yaml \
    --listen 127.0.0.1:0 >"$work/server.log" 2>&1 &
pids+=($!)
url=""
for _ in $(seq 300); do
    url=$(grep -o 'listening on https://[^ ]*' "$work/server.log" | cut -d' ' -f3 || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log"; fail "ddl-server did not start"; }
say "ddl-server (user ddl) is up at $url"

# What docs/packaging.md tells an admin: a token, the certificate, the worker's settings file.
token=$(runuser -u ddl -- /usr/bin/ddl-server token create --config /etc/ddl/server.yaml)
install -m 0644 /var/lib/ddl/tls/server.crt /etc/ddl/server.crt
sed -i -e "s|^server: .*|server: $url|" -e "s|^token: .*|token: \"$token\"|" /etc/ddl/worker.yaml
as_service ddl-worker /var/lib/ddl-worker /usr/bin/ddl-worker --config /etc/ddl/worker.yaml \
    >"$work/worker.log" 2>&1 &
pids+=($!)

# A user of this machine submits the packaged example with the installed ddlcli.
id alice >/dev/null 2>&1 || useradd --create-home alice
cp -r /usr/share/ddl/examples/iris-numpy /home/alice/project
chown -R alice: /home/alice/project
status=0
runuser -u alice -- env HOME=/home/alice DDL_SERVER="$url" DDL_CA_CERT=/etc/ddl/server.crt \
    bash -euo pipefail -c '
        cd ~/project
        printf "alice@ddl.local\nalice-password\nalice-password\n" | ddlcli register
        printf "alice@ddl.local\nalice-password\n" | ddlcli login
        git init -q && git add -A
        git -c user.name=alice -c user.email=alice@ddl.local commit -qm "iris example"
        uuid=$(ddlcli submit --task_config=task.yaml | sed -n "s/^job_uuid: //p")
        [ -n "$uuid" ]
        timeout 600 ddlcli logs --job_uuid="$uuid" -f   # a worker that never came: no hang
        ddlcli progress --job_uuid="$uuid" | tee ~/progress.txt
        grep -q "^status: SUCCEEDED" ~/progress.txt
        ddlcli download --job_uuid="$uuid" --dest=model
        ls -l model
        [ -n "$(ls -A model)" ]' || status=$?
if [ "$status" != 0 ]; then
    echo "--- server log"; tail -n 30 "$work/server.log"
    echo "--- worker log"; tail -n 30 "$work/worker.log"
    fail "the job did not run through the installed programs"
fi
say "the job succeeded and its model was downloaded"
grep 'tasks run in a sandbox' "$work/worker.log" || fail "the worker ran no sandbox"
cleanup
pids=()

# ddl-desktop starts (offscreen: no display here) and keeps running until stopped.
status=0
timeout 5 env QT_QPA_PLATFORM=offscreen HOME="$work" ddl-desktop >"$work/desktop.log" 2>&1 \
    || status=$?
[ "$status" = 124 ] || { cat "$work/desktop.log"; fail "ddl-desktop exited with $status"; }
say "ddl-desktop starts"

apt-get install -y -qq --no-install-recommends systemd desktop-file-utils appstream >/dev/null
# Warnings count too (an unknown or misspelt setting is only a warning), and the podman drop-in
# that docs/packaging.md tells a worker's admin to install is checked with the unit it extends.
verify_units() {
    local out
    out=$(systemd-analyze verify /lib/systemd/system/ddl-server.service \
        /lib/systemd/system/ddl-worker.service 2>&1) || fail "systemd-analyze verify: $out"
    [ -z "$out" ] || fail "systemd-analyze verify warns: $out"
}
verify_units
mkdir -p /etc/systemd/system/ddl-worker.service.d
cp /usr/share/doc/ddl-worker/examples/ddl-worker-podman.conf \
    /etc/systemd/system/ddl-worker.service.d/podman.conf
verify_units
rm -r /etc/systemd/system/ddl-worker.service.d
desktop-file-validate /usr/share/applications/ddl-desktop.desktop
appstreamcli validate --no-net /usr/share/metainfo/org.ddl.desktop.metainfo.xml
say "systemd-analyze verify, desktop-file-validate and appstreamcli validate pass"

apt-get purge -y -qq ddl-server ddl-worker >/dev/null
for folder in /var/lib/ddl /var/lib/ddl-worker /etc/ddl/server.yaml /etc/ddl/worker.yaml; do
    [ ! -e "$folder" ] || fail "$folder is left after purging"
done
say "purging removed /var/lib/ddl, /var/lib/ddl-worker and the settings; all passed"
