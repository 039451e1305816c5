#!/usr/bin/env python3
"""Benchmark of the job loop's latency (a program that prints figures, not a test).

Starts ddl-server and one idle ddl-worker on loopback, registers a user, and for N runs of the
example project measures:
  submit -> running:     from invoking `ddlcli submit` until the server records the task's process
                         as started (the task's started_at, same machine clock);
  end -> downloaded:     from the job's finished_at until `ddlcli download` has every artifact
                         verified on disk (polling `ddlcli progress` every 50 ms).
Usage: bench/bench_jobloop.py [--runs N] [--bin build/bin]
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def iso_to_epoch(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ddl-bench-")
    procs = []
    try:
        server_log = open(os.path.join(work, "server.log"), "w")
        procs.append(subprocess.Popen(
            [os.path.join(args.bin, "ddl-server"), "--data-dir", os.path.join(work, "server"),
             "--listen", "127.0.0.1:0"], stdout=server_log, stderr=subprocess.STDOUT))
        url = None
        for _ in range(200):
            match = re.search(r"listening on (https://\S+)", open(os.path.join(work, "server.log")).read())
            if match:
                url = match.group(1)
                break
            time.sleep(0.05)
        if not url:
            sys.exit("the server did not start")
        token = subprocess.check_output(
            [os.path.join(args.bin, "ddl-server"), "token", "create", "--data-dir",
             os.path.join(work, "server")], text=True).strip()
        ca = os.path.join(work, "server", "tls", "server.crt")
        worker_log = open(os.path.join(work, "worker.log"), "w")
        procs.append(subprocess.Popen(
            [os.path.join(args.bin, "ddl-worker"), *(["--allow-root"] if os.geteuid() == 0 else []), "--server", url, "--token", token, "--ca-cert", ca,
             "--work-dir", os.path.join(work, "worker")], stdout=worker_log, stderr=subprocess.STDOUT))
        env = dict(os.environ, DDL_SERVER=url, DDL_CA_CERT=ca, XDG_CONFIG_HOME=os.path.join(work, "config"))

        def cli(*cli_args, stdin=None, cwd=None):
            return subprocess.run([os.path.join(args.bin, "ddlcli"), *cli_args], input=stdin, text=True,
                                  capture_output=True, env=env, cwd=cwd, check=True).stdout

        cli("register", stdin="bench@ddl.local\nbench-password\nbench-password\n")
        cli("login", stdin="bench@ddl.local\nbench-password\n")
        repo = os.path.join(work, "project")
        shutil.copytree(os.path.join(ROOT, "examples", "iris-numpy"), repo)
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@ddl.local"]
        subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
        subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
        subprocess.run(git + ["commit", "-qm", "bench"], cwd=repo, check=True)
        time.sleep(1.0)  # let the worker enroll and go idle

        to_running, to_downloaded, submit_wall = [], [], []
        for run in range(args.runs):
            started = time.time()
            out = cli("submit", "--task_config=task.yaml", cwd=repo)
            submit_wall.append(time.time() - started)
            uuid = re.search(r"job_uuid: (\S+)", out).group(1)
            while True:
                job = json.loads(cli("progress", "--job_uuid=" + uuid, "--output", "json"))
                if job["state"] in ("SUCCEEDED", "FAILED", "STOPPED"):
                    break
                time.sleep(0.05)
            if job["state"] != "SUCCEEDED":
                sys.exit("job %s ended %s" % (uuid, job["state"]))
            cli("download", "--job_uuid=" + uuid, "--dest=" + os.path.join(work, "model-%d" % run))
            done = time.time()
            to_running.append(iso_to_epoch(job["tasks"][0]["started_at"]) - started)
            to_downloaded.append(done - iso_to_epoch(job["finished_at"]))

        def show(name, values):
            print("%-38s median %6.3f s   min %6.3f s   max %6.3f s" % (
                name, statistics.median(values), min(values), max(values)))

        print("job loop latency, example project iris-numpy, %d runs, one idle worker" % args.runs)
        show("ddlcli submit (package+upload+submit)", submit_wall)
        show("submit -> task running", to_running)
        show("job end -> download finished", to_downloaded)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
