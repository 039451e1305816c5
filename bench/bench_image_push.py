#!/usr/bin/env python3
"""Benchmark of images pushed to DDL (a program that prints figures, not a test; issue 12).

Builds, offline, an image of the test image (scripts/make-test-image.sh) plus a layer of SIZE MiB
of random bytes and a small layer, and a second version that changes only the small layer. Starts
ddl-server and a ddl-worker --container-runtime podman whose podman has an image store of its own
(CONTAINERS_STORAGE_CONF, driver --driver), so that the worker does not have the image to begin
with. Then measures:
  push:       `ddlcli image push` of version 1, again unchanged, then version 2: bytes sent and
              bytes the server had (as ddlcli prints them), and the wall time of each push;
  start:      lease -> the task's first line (tasks.leased_at in the server's store to the time the
              task's command prints as its first line, same machine clock) for a job naming the
              image: new (layers fetched from the server, then podman load), loaded again from the
              worker's blob cache after `podman rmi` (load only), and with podman having the image.
Usage: bench/bench_image_push.py [--size-mib 1024] [--runs 3] [--driver overlay] [--bin build/bin]
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "localhost/ddl-test:1"
IMAGE = "localhost/ddl-bench"


def run(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def build_images(work, size_mib):
    if subprocess.run(["podman", "image", "exists", BASE]).returncode != 0:
        run([os.path.join(ROOT, "scripts", "make-test-image.sh"), BASE])
    context = os.path.join(work, "context")
    os.makedirs(context)
    with open(os.path.join(context, "big.bin"), "wb") as big:
        for _ in range(size_mib):
            big.write(os.urandom(1 << 20))
    with open(os.path.join(context, "Containerfile"), "w") as recipe:
        recipe.write("FROM %s\nCOPY big.bin /data/big.bin\nCOPY small.txt /data/small.txt\n" % BASE)
    for version in (1, 2):
        with open(os.path.join(context, "small.txt"), "w") as small:
            small.write("version %d\n" % version)
        # The big layer comes from podman's layer cache the second time: only small.txt changes.
        run(["podman", "build", "--quiet", "--pull=never", "--layers", "-t",
             "%s:%d" % (IMAGE, version), context], stdout=subprocess.DEVNULL)
    os.remove(os.path.join(context, "big.bin"))


def start_cluster(work, bin_dir, driver):
    procs = []
    server_log = os.path.join(work, "server.log")
    procs.append(subprocess.Popen(
        [os.path.join(bin_dir, "ddl-server"), "--data-dir", os.path.join(work, "server"),
         "--listen", "127.0.0.1:0"], stdout=open(server_log, "w"), stderr=subprocess.STDOUT))
    url = None
    for _ in range(200):
        match = re.search(r"listening on (https://\S+)", open(server_log).read())
        if match:
            url = match.group(1)
            break
        time.sleep(0.05)
    if not url:
        sys.exit("the server did not start: " + open(server_log).read()[-2000:])
    token = subprocess.check_output(
        [os.path.join(bin_dir, "ddl-server"), "token", "create", "--data-dir",
         os.path.join(work, "server")], text=True).strip()
    ca = os.path.join(work, "server", "tls", "server.crt")
    storage = os.path.join(work, "worker-storage.conf")
    with open(storage, "w") as conf:
        conf.write('[storage]\ndriver = "%s"\ngraphroot = "%s"\nrunroot = "%s"\n' % (
            driver, os.path.join(work, "worker-podman"), os.path.join(work, "worker-podman-run")))
    worker_env = dict(os.environ, CONTAINERS_STORAGE_CONF=storage)
    procs.append(subprocess.Popen(
        [os.path.join(bin_dir, "ddl-worker"), *(["--allow-root"] if os.geteuid() == 0 else []), "--server", url, "--token", token, "--ca-cert", ca,
         "--work-dir", os.path.join(work, "worker"), "--container-runtime", "podman"],
        stdout=open(os.path.join(work, "worker.log"), "w"), stderr=subprocess.STDOUT,
        env=worker_env))
    env = dict(os.environ, DDL_SERVER=url, DDL_CA_CERT=ca,
               XDG_CONFIG_HOME=os.path.join(work, "config"))
    return procs, env, worker_env


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--driver", default="overlay")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ddl-bench-image-", dir="/var/tmp")
    procs = []
    try:
        build_images(work, args.size_mib)
        procs, env, worker_env = start_cluster(work, args.bin, args.driver)

        def cli(*cli_args, stdin=None, cwd=None):
            done = subprocess.run([os.path.join(args.bin, "ddlcli"), *cli_args], input=stdin,
                                  text=True, capture_output=True, env=env, cwd=cwd)
            if done.returncode != 0:
                sys.exit("ddlcli %s failed: %s%s" % (" ".join(cli_args), done.stdout, done.stderr))
            return done.stdout

        cli("register", stdin="bench@ddl.local\nbench-password\nbench-password\n")
        cli("login", stdin="bench@ddl.local\nbench-password\n")

        print("image push, %d MiB random layer + small layer on %s, 2-core machine" % (
            args.size_mib, BASE))
        sent_pattern = re.compile(r"sent (\d+) bytes, (\d+) bytes were on the server already")
        for label, version in (("first push", 1), ("same image again", 1),
                               ("one small layer changed", 2)):
            started = time.time()
            out = cli("image", "push", "%s:%d" % (IMAGE, version), "--name", "bench")
            wall = time.time() - started
            sent, had = (int(value) for value in sent_pattern.search(out).groups())
            print("  %-24s sent %13d bytes, server had %13d bytes, %6.1f s" % (
                label, sent, had, wall))

        repo = os.path.join(work, "project")
        os.makedirs(repo)
        job = {"jobName": "bench-image", "image": "ddl://bench",
               "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256,
                              "gpuNumber": 0,
                              "command": "python3 -c 'import time; print(\"first-line\", "
                                         "repr(time.time()))'"}]}
        with open(os.path.join(repo, "job.json"), "w") as out:
            json.dump(job, out)
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@ddl.local"]
        run(git + ["init", "-q"], cwd=repo)
        run(git + ["add", "-A"], cwd=repo)
        run(git + ["commit", "-qm", "bench"], cwd=repo)
        store = os.path.join(work, "server", "ddl.sqlite")

        def lease_to_first_line():
            out = cli("submit", "--job_config=job.json", cwd=repo)
            uuid = re.search(r"job_uuid: (\S+)", out).group(1)
            while True:
                state = json.loads(cli("progress", "--job_uuid=" + uuid, "--output", "json"))
                if state["state"] in ("SUCCEEDED", "FAILED", "STOPPED"):
                    break
                time.sleep(0.1)
            log = cli("logs", "--job_uuid=" + uuid)
            if state["state"] != "SUCCEEDED":
                sys.exit("job %s ended %s:\n%s" % (uuid, state["state"], log[-3000:]))
            printed = float(re.search(r"first-line ([0-9.]+)", log).group(1))
            with sqlite3.connect(store) as db:
                leased = db.execute("SELECT t.leased_at FROM tasks t JOIN jobs j ON "
                                    "j.id = t.job_id WHERE j.uuid = ?", (uuid,)).fetchone()[0]
            loaded = re.search(r"image loaded in ([0-9.]+) s", log)
            return printed - leased / 1000.0, float(loaded.group(1)) if loaded else None

        def image_id():
            return subprocess.check_output(["podman", "image", "inspect", "--format", "{{.Id}}",
                                            "%s:2" % IMAGE], text=True).strip()

        def forget_image():
            subprocess.run(["podman", "rmi", "--force", image_id()], env=worker_env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        print("lease -> first line of a task in ddl://bench (worker podman store: %s)" % args.driver)
        first, load = lease_to_first_line()
        print("  %-40s %7.2f s (podman load %.2f s)" % ("new: layers from the server + load",
                                                        first, load))
        reloads, loads = [], []
        for _ in range(args.runs):
            forget_image()
            seconds, load = lease_to_first_line()
            reloads.append(seconds)
            loads.append(load)
        print("  %-40s median %7.2f s, min %.2f, max %.2f (podman load median %.2f s), %d runs" % (
            "new to podman, layers in the blob cache", statistics.median(reloads), min(reloads),
            max(reloads), statistics.median(loads), args.runs))
        cached = [lease_to_first_line()[0] for _ in range(args.runs)]
        print("  %-40s median %7.2f s, min %.2f, max %.2f, %d runs" % (
            "cached: podman has the image", statistics.median(cached), min(cached), max(cached),
            args.runs))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(30)
        for version in (1, 2):
            subprocess.run(["podman", "rmi", "--force", "%s:%d" % (IMAGE, version)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Only the worker's own store is emptied (never `podman system reset`, which would touch
        # the machine's volumes); overlay leaves its home mounted under the work folder.
        storage = os.path.join(work, "worker-storage.conf")
        if os.path.exists(storage):
            subprocess.run(["podman", "rmi", "--all", "--force"],
                           env=dict(os.environ, CONTAINERS_STORAGE_CONF=storage),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open("/proc/self/mounts") as mounts:
            points = [line.split()[1] for line in mounts if line.split()[1].startswith(work)]
        for point in sorted(points, reverse=True):
            subprocess.run(["umount", point], stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
