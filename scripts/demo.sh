#!/usr/bin/env bash
# README command (1): install, build, then run the main job on this machine: a local ddl-server
# on the embedded SQLite store, one local ddl-worker, and the bundled example project submitted,
# trained and its model downloaded. Everything it makes lives in one temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/install-deps.sh
scripts/build.sh
bin="$root/build/bin"

work=$(mktemp -d "${TMPDIR:-/tmp}/ddl-demo.XXXXXX")
echo "demo: working in $work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

"$bin/ddl-server" --data-dir "$work/server" --listen 127.0.0.1:0 >"$work/server.log" 2>&1 &
pids+=($!)
url=""
for _ in $(seq 100); do
    url=$(grep -o 'listening on https://[^ ]*' "$work/server.log" | cut -d' ' -f3 || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log"; echo "demo: the server did not start" >&2; exit 1; }
echo "demo: ddl-server is up at $url"

token=$("$bin/ddl-server" token create --data-dir "$work/server")
# The worker refuses root (its tasks would be root too) unless told: CI runs this as root.
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-root)
"$bin/ddl-worker" --server "$url" --token "$token" --ca-cert "$work/server/tls/server.crt" \
    --work-dir "$work/worker" --slots 2 "${as_root[@]}" >"$work/worker.log" 2>&1 &
pids+=($!)

export DDL_SERVER="$url" DDL_CA_CERT="$work/server/tls/server.crt" XDG_CONFIG_HOME="$work/config"
printf 'demo@ddl.local\ndemo-password\ndemo-password\n' | "$bin/ddlcli" register
printf 'demo@ddl.local\ndemo-password\n' | "$bin/ddlcli" login

# A user's project is a git repository: make one from the example.
cp -r examples/iris-numpy "$work/project"
cd "$work/project"
git init -q && git add -A
git -c user.name=demo -c user.email=demo@ddl.local commit -qm "iris example"

# Shown as it is (not through `tee /dev/stderr`: reopening stderr truncates a log file it is
# redirected to, which is how CI's log lost its first half).
submitted=$("$bin/ddlcli" submit --task_config=task.yaml)
printf '%s\n' "$submitted"
uuid=$(printf '%s\n' "$submitted" | sed -n 's/^job_uuid: //p')
"$bin/ddlcli" logs --job_uuid="$uuid" -f
"$bin/ddlcli" progress --job_uuid="$uuid" | tee "$work/progress.txt"
grep -q '^status: SUCCEEDED' "$work/progress.txt" || { echo "demo: the job did not succeed" >&2; exit 1; }
"$bin/ddlcli" download --job_uuid="$uuid" --dest="$work/model"
echo
echo "demo: the trained model landed in $work/model:"
ls -l "$work/model"
