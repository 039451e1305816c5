#!/usr/bin/env bash
# Benchmark (not a test): requests per second of GET /v1/jobs/<uuid> (a job's status with its
# tasks) on a real ddl-server over TLS on loopback, measured with wrk.
#   bench/wrk_jobstatus.sh [BIN_DIR] [DURATION_S] [CONNECTIONS] [THREADS]
# BIN_DIR defaults to build/bin. The server gets a fresh data dir; one user, one waiting job.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/bin}"
duration="${2:-20}"
connections="${3:-64}"
threads="${4:-2}"
command -v wrk >/dev/null || { echo "wrk is not installed (scripts/install-deps.sh)" >&2; exit 1; }

data="$(mktemp -d)"
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$data"
}
trap cleanup EXIT

"$bin/ddl-server" --data-dir "$data/server" --listen 127.0.0.1:0 >"$data/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 150); do
    url="$(grep -o 'listening on https://[^ ]*' "$data/server.log" | head -n1 | cut -d' ' -f3 || true)"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$data/server.log" >&2; exit 1; }
ca="$data/server/tls/server.crt"
api() { curl -sS --fail-with-body --cacert "$ca" -H 'Content-Type: application/json' "$@"; }

credentials='{"email":"bench@example.org","password":"bench-password"}'
api -X POST -d "$credentials" "$url/v1/auth/register" >/dev/null
token="$(api -X POST -d "$credentials" "$url/v1/auth/login" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')"
# A job that waits (no worker exists): its status has a reason and two tasks.
job='{"spec":{"kind":"openpai","jobName":"bench","image":"ubuntu","taskRoles":[{"name":"worker",
"taskNumber":2,"cpuNumber":1,"memoryMB":512,"gpuNumber":1,"command":"true"}]},
"package":null,"dataset":null}'
uuid="$(api -X POST -H "Authorization: Bearer $token" -d "$job" "$url/v1/jobs" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["uuid"])')"
# The answer wrk will see, once, so a wrong one is not measured.
api -H "Authorization: Bearer $token" "$url/v1/jobs/$uuid" | python3 -c \
    'import json,sys; j=json.load(sys.stdin); assert j["state"]=="WAITING" and len(j["tasks"])==2'

echo "wrk: GET /v1/jobs/<uuid> on $url, ${duration}s, $connections connections, $threads threads"
DDL_WRK_TOKEN="$token" wrk -t "$threads" -c "$connections" -d "${duration}s" --latency \
    -s bench/wrk_auth.lua "$url/v1/jobs/$uuid"
