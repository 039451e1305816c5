#!/usr/bin/env bash
# The real-GPU check of the worker's GPU paths, run on a lent GPU machine (as root, no network):
# unpacks the bundle of tests/gpu/bundle.sh, starts ddl-server and ddl-worker (bubblewrap sandbox,
# --only-when-idle, GPU 0 lent, 1 s samples, checkpoints every 10 s) and, through ddlcli, (1) runs
# a job on one GPU and reads its GPU utilisation, (2) runs a second job and starts a CUDA process
# outside DDL while it runs: the worker must preempt the task and rerun it, from its checkpoint,
# once the GPU is free again; (3) reads the worker's contribution ledger (ddl-worker report).
# Prints CHECK lines and copies the logs into $OUT (or ./gpu-check-out).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
work=$(mktemp -d /tmp/ddl-gpu.XXXXXX)
bundle=$work/bundle
mkdir -p "$bundle" && tar -C "$bundle" -xzf "${GPU_BUNDLE:-$root/.gpu.tgz}"
export PATH="$bundle/bin:$PATH" QT_PLUGIN_PATH="$bundle/plugins"
pids=()
finish() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    sleep 1
    cp "$work"/*.log "$work"/*.txt "$out/" 2>/dev/null
}
trap finish EXIT
check() { echo "CHECK $1: $2"; }

nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
python3 -c 'import torch; print("host torch", torch.__version__, torch.cuda.is_available())'

sandbox=()
if ! bwrap --unshare-all --ro-bind / / --dev /dev true 2>"$work/bwrap.txt"; then
    check sandbox "bubblewrap cannot run here ($(cat "$work/bwrap.txt")): --no-sandbox"
    sandbox=(--no-sandbox)
fi

ddl-server --data-dir "$work/server" --listen 127.0.0.1:0 >"$work/server.log" 2>&1 &
pids+=($!)
url=""
for _ in $(seq 100); do
    url=$(grep -o 'listening on https://[^ ]*' "$work/server.log" | cut -d' ' -f3)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log"; exit 1; }
token=$(ddl-server token create --data-dir "$work/server")
ddl-worker --server "$url" --token "$token" --ca-cert "$work/server/tls/server.crt" \
    --work-dir "$work/worker" --slots 1 --allow-root --only-when-idle --preempt-notice 5 \
    --sample-interval 1 --lend-gpus 0 --checkpoint-interval 10 --python "$(command -v python3)" \
    "${sandbox[@]}" >"$work/worker.log" 2>&1 &
pids+=($!)

export DDL_SERVER="$url" DDL_CA_CERT="$work/server/tls/server.crt" XDG_CONFIG_HOME="$work/config"
printf 'gpu@ddl.local\ngpu-password\ngpu-password\n' | ddlcli register >/dev/null
printf 'gpu@ddl.local\ngpu-password\n' | ddlcli login >/dev/null
cp -r "$bundle/project" "$work/project"
cd "$work/project" || exit 1

status() { ddlcli progress --job_uuid="$1" | sed -n 's/^status: //p'; }
wait_status() { # uuid, wanted (regex), seconds
    for _ in $(seq "$3"); do
        [[ $(status "$1") =~ $2 ]] && return 0
        sleep 1
    done
    return 1
}

# (1) one job on the GPU, its utilisation read while it runs
uuid=$(ddlcli submit --task_config=task.yaml | sed -n 's/^job_uuid: //p')
wait_status "$uuid" RUNNING 120 && sleep 12
ddlcli top --job_uuid="$uuid" >"$work/top.txt" 2>&1
wait_status "$uuid" 'SUCCEEDED|FAILED|STOPPED' 180
ddlcli logs --job_uuid="$uuid" >"$work/job1.txt" 2>&1
ddlcli progress --job_uuid="$uuid" >>"$work/job1.txt" 2>&1
check job1 "status $(status "$uuid")"
check job1-device "$(grep -m1 '^device 0' "$work/job1.txt")"
check job1-visible "$(grep -m1 CUDA_VISIBLE_DEVICES "$work/job1.txt")"
check job1-nodes "$(grep -m1 'device nodes:' "$work/job1.txt")"
check job1-sandbox "$(grep -m1 "sandbox:" "$work/job1.txt")"
check worker-gpus "$(grep -im2 'gpu' "$work/worker.log" | tr '\n' ' ')"
check top "$(tr '\n' ' ' <"$work/top.txt" | cut -c1-600)"
ddlcli download --job_uuid="$uuid" --dest="$work/model" >/dev/null 2>&1
check job1-model "$(cat "$work/model/result.json" 2>/dev/null || find "$work/model")"

# (2) the owner starts a CUDA program while a DDL task runs: preempted, then run again
uuid=$(ddlcli submit --task_config=task.yaml | sed -n 's/^job_uuid: //p')
wait_status "$uuid" RUNNING 120 && sleep 8
python3 -c 'import torch, time; x = torch.ones(1 << 28, device="cuda"); print("owner on GPU", flush=True); time.sleep(25)' >"$work/owner.txt" 2>&1 &
owner=$!
sleep 2
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader >"$work/apps.txt" 2>&1
if wait_status "$uuid" WAITING 30; then
    check preempted "job waiting after $(grep -c . "$work/apps.txt") compute apps: $(ddlcli progress --job_uuid="$uuid" | grep -i -m2 'preempt\|reason' | tr '\n' ' ')"
else
    check preempted "NO: status $(status "$uuid"); compute apps: $(tr '\n' ' ' <"$work/apps.txt")"
fi
wait "$owner"
wait_status "$uuid" 'SUCCEEDED|FAILED' 150
ddlcli logs --job_uuid="$uuid" >"$work/job2.txt" 2>&1
ddlcli progress --job_uuid="$uuid" >>"$work/job2.txt" 2>&1
check job2 "status $(status "$uuid"); attempts seen: $(grep -c '^DDL_TASK_ATTEMPT\|DDL_TASK_ATTEMPT=' "$work/job2.txt")"
check job2-resumed "$(grep -m1 'resumed from the checkpoint' "$work/job2.txt"; grep -m1 '^checkpoint:' "$work/job2.txt")"
ddl-worker report --server "$url" --ca-cert "$work/server/tls/server.crt" --work-dir "$work/worker" \
    >"$work/report.txt" 2>&1
check ledger "$(tr '\n' ' ' <"$work/report.txt" | cut -c1-500)"
check owner-busy-log "$(grep -m2 -i 'owner\|preempt' "$work/worker.log" | tr '\n' ' ' | cut -c1-400)"
