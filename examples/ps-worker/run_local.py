"""Runs the job on this machine without DDL: the OpenPAI environment made by hand on loopback.

  python3 run_local.py [--ps N] [--workers M] [--out DIR]

Starts the workers first and the servers a second later (as on a cluster, roles do not start at
the same instant), waits for all, and exits non-zero unless every task exited 0 and the model and
metrics were written.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ps", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="ps-worker-")
    roles = {"ps": args.ps, "worker": args.workers}
    ports = {role: [free_port() for _ in range(count)] for role, count in roles.items()}
    shared = {"PAI_JOB_NAME": "ps-worker-local", "PAI_TASK_ROLE_LIST": "ps,worker",
              "PAI_TASK_ROLES_NUM": "2", "PAI_TASKS_NUM": str(args.ps + args.workers)}
    for i, role in enumerate(roles):
        shared[f"PAI_TASK_ROLE_{i}_HOST_LIST"] = ",".join(f"127.0.0.1:{p}" for p in ports[role])

    processes = []
    for role in ("worker", "ps"):
        if role == "ps":
            time.sleep(1.0)
        for index in range(roles[role]):
            env = dict(os.environ, **shared, PAI_TASK_ROLE_NAME=role,
                       PAI_TASK_ROLE_INDEX=str(index), PAI_TASK_ROLE_NUM=str(roles[role]),
                       PAI_CURRENT_CONTAINER_IP="127.0.0.1",
                       PAI_CURRENT_CONTAINER_PORT=str(ports[role][index]),
                       DDL_DATASET_DIR=os.path.join(HERE, "data"),
                       DDL_OUTPUT_DIR=os.path.join(out, f"{role}-{index}"))
            processes.append((f"{role} {index}", subprocess.Popen(
                [sys.executable, f"{role}.py"], cwd=HERE, env=env)))

    started = time.monotonic()
    failed = False
    for name, process in processes:
        try:
            code = process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            code = "timeout"
        print(f"run_local: {name} exited {code}", flush=True)
        failed |= code != 0
    metrics_path = os.path.join(out, "ps-0", "metrics.json")
    if failed or not os.path.isfile(os.path.join(out, "ps-0", "model.npz")):
        print("run_local: FAILED", flush=True)
        return 1
    with open(metrics_path) as f:
        metrics = json.load(f)
    print(f"run_local: {json.dumps(metrics)} in {time.monotonic() - started:.1f} s; output in {out}")
    return 0 if metrics["final_loss"] < metrics["initial_loss"] else 1


if __name__ == "__main__":
    sys.exit(main())
