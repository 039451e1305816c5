#!/usr/bin/env python3
"""Benchmark of a task's start (a program that prints figures, not a test).

Measures, N times each, the time from starting a task's first process until its first line of
output reaches the worker, for the two runtimes of ddl-worker, with the arguments the worker
gives them (worker/sandbox/sandbox_linux.cpp, worker/container/podmanruntime.cpp):
  bubblewrap:  bwrap with the system folders read-only, a task folder bound, python3 -u -c print;
  podman:      podman --runtime runc run --rm ... IMAGE python3 -u -c print, the image cached.
The rest of the way from lease to first line (the code package from the worker's cache, its
extraction) is the same for both. Usage: bench/bench_task_start.py [--runs N] [--image NAME]
(the image defaults to the test image of scripts/make-test-image.sh, built when missing).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = ["python3", "-u", "-c", "print('first line')"]


def first_line_seconds(command):
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = process.stdout.readline()
    elapsed = time.monotonic() - start
    process.wait()
    if not line.startswith(b"first line"):
        sys.exit("%s printed %r; stderr: %s" % (command[0], line, process.stderr.read().decode()))
    return elapsed


def bubblewrap_command(task):
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
            "--cap-drop", "ALL"]
    for folder in ["/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64"]:
        if not os.path.isdir(folder):
            continue
        real = os.path.realpath(folder)
        if os.path.islink(folder) and real != folder:
            args += ["--symlink", real, folder]
        else:
            args += ["--ro-bind", real, folder]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp"]
    args += ["--ro-bind", task + "/code", task + "/code", "--bind", task + "/output",
             task + "/output", "--remount-ro", "/", "--chdir", task + "/code"]
    return args + ["--"] + ["/usr/bin/python3"] + PROGRAM[1:]


def podman_command(task, image):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return ["podman", "--runtime", shutil.which("runc"), "run", "--rm", "--log-driver", "none",
            "--pull", "missing", "--read-only", "--read-only-tmpfs", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges", "--ulimit", "nofile=%d:%d" % (hard, hard),
            "--ulimit", "nproc=4096:4096", "--pids-limit", "4096", "--user",
            "%d:%d" % (os.getuid(), os.getgid()), "--network", "host", "--cpuset-cpus", "0",
            "--memory", str(256 * 1024 * 1024), "--volume", task + "/code:" + task + "/code:ro",
            "--volume", task + "/output:" + task + "/output:rw", "--workdir", task + "/code",
            image] + PROGRAM


def report(name, times):
    print("%-12s median %.3f s  min %.3f s  max %.3f s  (%d runs)" % (
        name, statistics.median(times), min(times), max(times), len(times)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--image", default="localhost/ddl-test:1")
    args = parser.parse_args()
    if subprocess.run(["podman", "image", "exists", args.image]).returncode != 0:
        subprocess.run([os.path.join(ROOT, "scripts", "make-test-image.sh"), args.image],
                       check=True)
    task = tempfile.mkdtemp(prefix="ddl-bench-start-")
    try:
        for sub in ("code", "output"):
            os.makedirs(os.path.join(task, sub))
        first_line_seconds(podman_command(task, args.image))  # podman's own caches warm
        report("bubblewrap", [first_line_seconds(bubblewrap_command(task))
                              for _ in range(args.runs)])
        report("podman", [first_line_seconds(podman_command(task, args.image))
                          for _ in range(args.runs)])
    finally:
        shutil.rmtree(task)


if __name__ == "__main__":
    main()
