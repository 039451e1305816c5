#!/usr/bin/env python3
"""DDL side by side with a single-node Slurm (a benchmark program that prints figures, not a test).

In one run on this machine it pushes N trivial jobs (`true`, default 200) through
  (a) DDL: a local ddl-server and one local ddl-worker with --slots 2; every job is an OpenPAI job
      submitted over the HTTPS API (POST /v1/jobs) and goes through the real scheduler, worker,
      sandbox and log path. Wall time: from the first submit until the last job has ended (the
      latest finished_at the server recorded; the time the client saw all of them SUCCEEDED is
      printed too). From the server's and worker's logs it also prints where each job's time goes
      (submit -> lease -> process started -> process ended -> final state reported -> next lease).
  (b) Slurm 22.05 (Debian's slurm-wlm) on localhost, started by this program as root with its own
      munged, slurm.conf, state and logs in a temporary folder, run twice: with Slurm's default
      scheduler settings, and with those of Slurm's High Throughput Computing Administration Guide
      (listed by --print-htc and in docs/benchmarks.md). Each run submits N
      `sbatch --wrap=true -o /dev/null` one after the other and polls squeue until it is empty.
Then it prints the three wall times, jobs/s, and the ratios DDL/Slurm.

Slurm needs root and the Debian packages slurm-wlm and munge. When they are missing and this runs
as root, it installs them with apt-get (--no-install prints the command instead and skips Slurm).
Where Slurm cannot run, it says why and still prints DDL's figure. Every daemon it started is ended
on the way out, also on failure or Ctrl-C.

The jobs are submitted with "package": null. A worker that refuses an OpenPAI lease without a
code package (those before commit 8fdb4a9 did) makes the DDL run start again with one tiny
uploaded tar (10 KiB, fetched once and then taken from the worker's cache) named by every job,
and the note under the figures says so (--ddl-package null|tiny picks one).

Usage: bench/bench_slurm_vs_ddl.py [--jobs 200] [--slots 2] [--bin build/bin]
           [--ddl-server PATH] [--ddl-worker PATH] [--ddl-package auto|null|tiny]
           [--poll 0.1] [--slurm-poll 0.25] [--timeout 3600]
           [--skip-ddl] [--skip-slurm] [--no-install] [--keep] [--print-htc]
"""
import argparse
import datetime
import hashlib
import http.client
import io
import json
import os
import re
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The private single-node Slurm (munged, slurmctld, slurmd) that tst_e2e_slurm starts too.
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import slurmlocal  # noqa: E402
from slurmlocal import Daemons, LocalSlurm, become_subreaper, wait_for  # noqa: E402
APT_COMMAND = ["apt-get", "install", "-y", "--no-install-recommends", "slurm-wlm", "munge"]

# Settings from Slurm's "High Throughput Computing Administration Guide" (high_throughput.html)
# that apply to one node without a database. The SchedulerParameters are the guide's example set
# "used for running hundreds of jobs per second on a sustained basis", plus `defer`, which the
# guide describes for many jobs submitted at once.
HTC_SCHEDULER_PARAMETERS = [
    "defer",
    "batch_sched_delay=20",
    "bf_continue",
    "bf_interval=300",
    "bf_min_age_reserve=10800",
    "bf_resolution=600",
    "bf_yield_interval=1000000",
    "partition_job_depth=500",
    "sched_max_job_start=200",
    "sched_min_interval=2000000",
]
HTC_SETTINGS = {
    "SchedulerType": "sched/builtin",  # "if most jobs are short lived": FIFO, no priority sorting
    "SchedulerParameters": ",".join(HTC_SCHEDULER_PARAMETERS),
    "PriorityType": "priority/basic",
    "AccountingStorageType": "accounting_storage/none",
    "JobAcctGatherType": "jobacct_gather/none",
    "JobCompType": "jobcomp/none",
    "MessageTimeout": "30",  # default 10; "might need to be increased somewhat"
    "MinJobAge": "2",  # default 300; "should be reduced to a few seconds"
    "MaxJobCount": "10000",  # the default, stated
    "SlurmctldDebug": "error",
    "SlurmdDebug": "error",
}
HTC_MUNGE_THREADS = 10  # "munged --num-threads 10"
HTC_CTLD_PORTS = 4  # "between two and ten ports" for SlurmctldPort


def log(message):
    print(message, flush=True)


def iso_to_epoch(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def local_to_epoch(text):
    """A log timestamp in local time, 'YYYY-MM-DD hh:mm:ss.zzz' or with a 'T'."""
    text = text.replace("T", " ")
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").timestamp()


# ------------------------------------------------------------------------------------------- DDL

class Api:
    """HTTPS JSON client on one kept-alive connection (reconnects when the server closes it)."""

    def __init__(self, url, cafile):
        match = re.match(r"https://([^:/]+):(\d+)", url)
        self.host, self.port = match.group(1), int(match.group(2))
        self.context = ssl.create_default_context(cafile=cafile)
        self.context.check_hostname = False  # the self-signed certificate is pinned by cafile
        self.conn = None
        self.token = None

    def request(self, method, path, body=None, expect=(200, 201), raw=None):
        data = json.dumps(body).encode() if body is not None else raw
        headers = {"Content-Type": "application/json" if raw is None else "application/octet-stream"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        for attempt in range(3):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.context,
                                                        timeout=30)
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                payload = resp.read()
                if resp.getheader("Connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                break
            except (http.client.HTTPException, ConnectionError, ssl.SSLError, OSError):
                if self.conn:
                    self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        if resp.status not in expect:
            raise RuntimeError("%s %s -> %d %s" % (method, path, resp.status, payload[:500]))
        return json.loads(payload) if payload else None


def ddl_spec(index, package):
    return {"spec": {"kind": "openpai", "jobName": "t%d" % index, "image": "none",
                     "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1,
                                    "memoryMB": 100, "gpuNumber": 0, "command": "true"}]},
            "package": package, "dataset": None}


def tiny_package():
    """A plain tar with one small file: the smallest code package a worker can fetch and unpack."""
    content = b"bench_slurm_vs_ddl: an OpenPAI job whose command is `true`\n"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("README")
        info.size, info.mtime, info.mode = len(content), 0, 0o644
        tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


class PackageRefused(RuntimeError):
    pass


def run_ddl(args, work, daemons, package_mode):
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir)
    for name in ("ddl-server", "ddl-worker"):
        # A copy: a rebuild of build/bin during the run must not change what is measured.
        source = getattr(args, name.replace("-", "_")) or os.path.join(args.bin, name)
        shutil.copy2(source, os.path.join(bindir, name))
    server_dir = os.path.join(work, "server")
    server_log = os.path.join(work, "server.log")
    worker_log = os.path.join(work, "worker.log")
    server = daemons.start("ddl-server", [os.path.join(bindir, "ddl-server"), "--data-dir", server_dir,
                                          "--listen", "127.0.0.1:0"], server_log)

    def listening():
        if server.poll() is not None:
            raise RuntimeError("ddl-server exited: " + open(server_log).read()[-2000:])
        match = re.search(r"listening on (https://\S+)", open(server_log).read())
        return match.group(1) if match else None

    url = wait_for(listening, 30, "ddl-server to listen")
    token = subprocess.check_output([os.path.join(bindir, "ddl-server"), "token", "create",
                                     "--data-dir", server_dir], text=True).strip()
    ca = os.path.join(server_dir, "tls", "server.crt")
    worker = daemons.start("ddl-worker", [os.path.join(bindir, "ddl-worker"), *(["--allow-root"] if os.geteuid() == 0 else []), "--server", url,
                                          "--token", token, "--ca-cert", ca, "--work-dir",
                                          os.path.join(work, "worker"), "--slots", str(args.slots),
                                          "--name", "bench"], worker_log)
    api = Api(url, ca)
    api.request("POST", "/v1/auth/register", {"email": "bench@ddl.local", "password": "bench-password"})
    login = api.request("POST", "/v1/auth/login", {"email": "bench@ddl.local", "password": "bench-password"})
    api.token = login["access_token"]

    def enrolled():
        if worker.poll() is not None:
            raise RuntimeError("ddl-worker exited: " + open(worker_log).read()[-2000:])
        return "enrolled as worker" in open(worker_log).read()

    wait_for(enrolled, 30, "ddl-worker to enroll")
    time.sleep(1.0)  # let the worker settle into its lease loop

    package = None
    if package_mode == "tiny":
        blob = tiny_package()
        digest = hashlib.sha256(blob).hexdigest()
        upload = api.request("POST", "/v1/uploads", {"size": len(blob), "sha256": digest})
        if not upload["complete"]:
            api.request("PUT", "/v1/uploads/%s?offset=0" % upload["id"], raw=blob)
        package = {"sha256": digest, "commit": "0" * 40}
    log("DDL: submitting %d jobs (`true`, package %s) to %s, one worker with --slots %d" % (
        args.jobs, "null" if package is None else "of %d bytes" % len(blob), url, args.slots))
    uuids = []
    first_submit = time.time()
    for i in range(args.jobs):
        uuids.append(api.request("POST", "/v1/jobs", ddl_spec(i, package))["uuid"])
    submitted = time.time()
    while True:
        done = api.request("GET", "/v1/jobs?state=SUCCEEDED&limit=1")["total"]
        failed = sum(api.request("GET", "/v1/jobs?state=%s&limit=1" % state)["total"]
                     for state in ("FAILED", "STOPPED")) if done < args.jobs else 0
        if failed:
            refused = re.search(r"unusable lease: (.*package_sha256.*)", open(worker_log).read())
            if refused and package is None:
                raise PackageRefused("the worker refuses OpenPAI leases without a code package "
                                     "(\"%s\"), so jobs submitted with \"package\": null FAIL"
                                     % refused.group(1).strip())
            raise RuntimeError("%d DDL job(s) FAILED or STOPPED; see %s" % (failed, worker_log))
        if done >= args.jobs:
            break
        if time.time() - first_submit > args.timeout:
            raise RuntimeError("DDL: only %d of %d jobs SUCCEEDED after %d s" % (done, args.jobs, args.timeout))
        time.sleep(args.poll)
    seen_done = time.time()
    jobs = [api.request("GET", "/v1/jobs/" + uuid) for uuid in uuids]
    last_end = max(iso_to_epoch(job["finished_at"]) for job in jobs)
    result = {
        "wall": last_end - first_submit,
        "wall_seen": seen_done - first_submit,
        "submit": submitted - first_submit,
    }
    result["breakdown"] = ddl_breakdown(jobs, first_submit, server_log, worker_log)
    return result


def ddl_breakdown(jobs, first_submit, server_log, worker_log):
    """Per task: created -> leased (server) -> process running -> process ended -> final state
    reported (worker) -> finished_at (server); and per slot the gap from a report to the next
    lease."""
    tasks = {}
    for job in jobs:
        task = job["tasks"][0]
        tasks[task["id"]] = {"created": iso_to_epoch(job["created_at"]),
                             "started_at": iso_to_epoch(task["started_at"]),
                             "finished_at": iso_to_epoch(job["finished_at"])}
    stamp = r"^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\.\d{3})"
    patterns = [
        ("leased_srv", re.compile(stamp + r".*task (\d+) of job \S+ leased to worker")),
        ("leased", re.compile(stamp + r".*ddl\.worker\.agent: task (\d+) leased")),
        ("running", re.compile(stamp + r".*ddl\.worker\.runner: task (\d+) running, pid")),
        ("ended", re.compile(stamp + r".*ddl\.worker\.runner: task (\d+) finished:")),
        ("rep_running", re.compile(stamp + r".*ddl\.worker\.runner: task (\d+) reported RUNNING")),
        ("reported", re.compile(stamp + r".*ddl\.worker\.runner: task (\d+) reported (?:SUCCEEDED|FAILED|STOPPED)")),
        ("done", re.compile(stamp + r".*ddl\.worker\.agent: task (\d+) done:")),
    ]
    for path in (server_log, worker_log):
        for line in open(path, errors="replace"):
            for key, pattern in patterns:
                match = pattern.search(line)
                if match and int(match.group(2)) in tasks:
                    tasks[int(match.group(2))][key] = local_to_epoch(match.group(1))
    steps = [
        ("submit (created_at) -> lease seen by worker", "created", "leased"),
        ("submit (created_at) -> leased (server)", "created", "leased_srv"),
        ("leased (server) -> lease seen by worker", "leased_srv", "leased"),
        ("lease seen -> process running (prep + sandbox)", "leased", "running"),
        ("process running -> process ended", "running", "ended"),
        ("process ended -> final state reported", "ended", "reported"),
        ("  of which RUNNING report (started -> acked)", "running", "rep_running"),
        ("server started_at -> server finished_at", "started_at", "finished_at"),
        ("worker lease seen -> final state reported", "leased", "reported"),
    ]
    rows = []
    for label, a, b in steps:
        values = [t[b] - t[a] for t in tasks.values() if a in t and b in t]
        if values:
            values.sort()
            rows.append((label, statistics.median(values), values[int(0.9 * (len(values) - 1))],
                         max(values), len(values)))
    # A slot's idle gap: from a task's final report to the next lease the worker saw, in order.
    leases = sorted(t["leased"] for t in tasks.values() if "leased" in t)
    reports = sorted(t["reported"] for t in tasks.values() if "reported" in t)
    gaps = []
    for report in reports:
        later = [lease for lease in leases if lease >= report]
        if later:
            gaps.append(later[0] - report)
    if gaps:
        gaps.sort()
        rows.append(("final report -> next lease on the worker", statistics.median(gaps),
                     gaps[int(0.9 * (len(gaps) - 1))], max(gaps), len(gaps)))
    cycle = None
    if "leased" in next(iter(tasks.values())):
        spans = [t["reported"] - t["leased"] for t in tasks.values() if "leased" in t and "reported" in t]
        cycle = statistics.mean(spans) if spans else None
    first_lease = min((t["leased"] for t in tasks.values() if "leased" in t), default=None)
    return {"rows": rows, "tasks": len(tasks), "mean_busy": cycle,
            "first_lease": first_lease - first_submit if first_lease else None}


# ----------------------------------------------------------------------------------------- Slurm

def slurm_missing():
    return slurmlocal.missing_programs()


def ensure_slurm(args):
    """None when Slurm can run, else why not."""
    if os.name != "posix" or os.geteuid() != 0:
        return "Slurm runs here only as root (slurmd and SlurmUser=root); this runs as uid %d" % os.geteuid()
    missing = slurm_missing()
    if not missing:
        return None
    command = " ".join(APT_COMMAND)
    if args.no_install:
        return "missing %s; install with: %s" % (", ".join(missing), command)
    log("Slurm: %s missing; running apt-get update && %s" % (", ".join(missing), command))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(APT_COMMAND + ["-qq"], check=True, env=env)
    except (subprocess.CalledProcessError, OSError) as error:
        return "could not install Slurm (%s); install by hand with: %s" % (error, command)
    missing = slurm_missing()
    return "still missing after apt-get: %s" % ", ".join(missing) if missing else None


def sdiag(env):
    """The main scheduler's and backfill's cycle counts from sdiag."""
    out = subprocess.run(["sdiag"], env=env, capture_output=True, text=True).stdout
    main = re.search(r"Main schedule statistics.*?Total cycles:\s*(\d+)", out, re.S)
    backfill = re.search(r"Backfilling stats.*?Total backfilled jobs \(since last slurm start\):\s*(\d+)"
                         r".*?Total cycles:\s*(\d+)", out, re.S)
    return {"main_cycles": int(main.group(1)) if main else None,
            "backfilled": int(backfill.group(1)) if backfill else None,
            "backfill_cycles": int(backfill.group(2)) if backfill else None}


def slurmctld_breakdown(path):
    """From slurmctld's log at its default (info) level: when each job was started (by the main
    scheduler or backfill) and when it was done; empty at SlurmctldDebug=error."""
    stamp = r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] "
    started = re.compile(stamp + r"(?:sched: Allocate|sched/backfill: _start_job: Started) JobId=(\d+)")
    done = re.compile(stamp + r"_job_complete: JobId=(\d+) done")
    jobs = {}
    for line in open(path, errors="replace") if os.path.exists(path) else []:
        for key, pattern in (("start", started), ("done", done)):
            match = pattern.search(line)
            if match:
                jobs.setdefault(int(match.group(2)), {})[key] = local_to_epoch(match.group(1))
    runs = sorted(j["done"] - j["start"] for j in jobs.values() if "start" in j and "done" in j)
    starts = sorted(j["start"] for j in jobs.values() if "start" in j)
    passes = sorted(set(round(t, 1) for t in starts))
    gaps = sorted(b - a for a, b in zip(passes, passes[1:]))
    if not runs:
        return None
    return {"run_median": statistics.median(runs), "passes": len(passes),
            "gap_median": statistics.median(gaps) if gaps else None}


def run_slurm(args, base, daemons, htc):
    name = "htc" if htc else "default"
    run_dir = os.path.join(base, name)
    os.makedirs(run_dir)
    # munged with its default 2 threads for the default run, the guide's 10 for the HTC run.
    cluster = LocalSlurm(run_dir, daemons, args.slurm_cpus or os.cpu_count(),
                         settings=HTC_SETTINGS if htc else None,
                         ctld_ports=HTC_CTLD_PORTS if htc else 1,
                         munge_threads=HTC_MUNGE_THREADS if htc else None, cluster="ddlbench")
    env = cluster.env
    try:
        cluster.start()
        log("Slurm (%s settings): node idle; submitting %d `sbatch --wrap=true -o /dev/null`" % (name, args.jobs))
        first_submit = time.time()
        for i in range(args.jobs):
            subprocess.run(["sbatch", "--wrap=true", "-o", "/dev/null", "-J", "t%d" % i, "--parsable"],
                           env=env, check=True, capture_output=True)
        submitted = time.time()
        next_note = first_submit + 60
        left = args.jobs
        while True:
            out = subprocess.run(["squeue", "-h", "-o", "%i"], env=env, capture_output=True, text=True)
            if out.returncode == 0:
                left = len(out.stdout.split())
                if not left:
                    break
            now = time.time()
            if now - first_submit > args.timeout:
                # A partial figure: how many ended in the time given, and the rate so far.
                return {"wall": None, "partial": (args.jobs - left, now - first_submit),
                        "submit": submitted - first_submit, "sdiag": sdiag(env)}
            if now >= next_note:
                log("  Slurm (%s): %d of %d jobs ended after %.0f s" % (name, args.jobs - left, args.jobs,
                                                                    now - first_submit))
                next_note += 60
            time.sleep(args.slurm_poll)
        wall = time.time() - first_submit
        return {"wall": wall, "submit": submitted - first_submit, "sdiag": sdiag(env),
                "log": slurmctld_breakdown(os.path.join(run_dir, "slurmctld.log"))}
    finally:
        cluster.stop()


# ------------------------------------------------------------------------------------------ main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--slots", type=int, default=2, help="ddl-worker --slots")
    parser.add_argument("--slurm-cpus", type=int, default=0, help="CPUs of the Slurm node (default nproc)")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--ddl-server", default=None, help="this ddl-server binary (default BIN/ddl-server)")
    parser.add_argument("--ddl-worker", default=None, help="this ddl-worker binary (default BIN/ddl-worker)")
    parser.add_argument("--ddl-package", choices=["auto", "null", "tiny"], default="auto",
                        help="null: jobs without a code package; tiny: each job names one tiny "
                             "uploaded tar; auto: null, and tiny when the worker refuses null")
    parser.add_argument("--poll", type=float, default=0.1, help="seconds between completion polls")
    parser.add_argument("--slurm-poll", type=float, default=0.25, help="seconds between squeue polls")
    parser.add_argument("--timeout", type=int, default=3600,
                        help="stop waiting for a run after this many s (Slurm: report a partial figure)")
    parser.add_argument("--skip-ddl", action="store_true")
    parser.add_argument("--skip-slurm", action="store_true")
    parser.add_argument("--no-install", action="store_true",
                        help="do not apt-get Slurm when missing: print the command and skip it")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    parser.add_argument("--print-htc", action="store_true", help="print the HTC settings and exit")
    args = parser.parse_args()
    if args.print_htc:
        for key, value in HTC_SETTINGS.items():
            print("%s=%s" % (key, value))
        print("SlurmctldPort=<%d consecutive ports>\nmunged --num-threads %d" % (HTC_CTLD_PORTS, HTC_MUNGE_THREADS))
        return

    def on_signal(signum, _frame):
        raise KeyboardInterrupt("signal %d" % signum)

    become_subreaper()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    work = tempfile.mkdtemp(prefix="ddl-slurm-bench-")
    os.chmod(work, 0o711)  # munged wants its socket folder reachable by all
    daemons = Daemons()
    ddl, slurm, slurm_why, ddl_notes = None, {}, None, []
    try:
        if not args.skip_ddl:
            modes = {"auto": ["null", "tiny"], "null": ["null"], "tiny": ["tiny"]}[args.ddl_package]
            for attempt, mode in enumerate(modes):
                try:
                    ddl = run_ddl(args, os.path.join(work, "ddl-" + mode), daemons, mode)
                    ddl["package"] = mode
                    break
                except PackageRefused as error:
                    ddl_notes.append("with \"package\": null: %s" % error)
                    log("DDL: %s%s" % (error, "; running again with a tiny code package"
                                       if attempt + 1 < len(modes) else ""))
                except Exception as error:  # report and go on with Slurm
                    log("DDL run failed: %s" % error)
                    break
                finally:
                    daemons.stop_all()
        if args.skip_slurm:
            slurm_why = "skipped (--skip-slurm)"
        else:
            slurm_why = ensure_slurm(args)
        if not slurm_why:
            base = os.path.join(work, "slurm")
            os.makedirs(base)
            try:
                for htc in (False, True):
                    slurm["htc" if htc else "default"] = run_slurm(args, base, daemons, htc)
            except Exception as error:
                slurm_why = "Slurm could not run here: %s" % error
            finally:
                daemons.stop_all()
    finally:
        daemons.stop_all()
        if args.keep:
            log("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print("=== %d trivial jobs (`true`) on this machine (%d CPUs) ===" % (args.jobs, os.cpu_count()))
    for note in ddl_notes:
        print("DDL note: " + note)
    if ddl:
        b = ddl["breakdown"]
        print("DDL (package %s), one ddl-worker --slots %d: wall %.3f s (first submit -> last finished_at), "
              "%.1f jobs/s; client saw all SUCCEEDED at %.3f s; submits took %.3f s" % (
                  ddl["package"], args.slots, ddl["wall"], args.jobs / ddl["wall"], ddl["wall_seen"], ddl["submit"]))
    else:
        print("DDL: skipped (--skip-ddl)" if args.skip_ddl else "DDL: no figure (see above)")
    for name in ("default", "htc"):
        if name not in slurm:
            continue
        r = slurm[name]
        cycles = r["sdiag"]
        if r["wall"] is not None:
            print("Slurm %-7s settings: wall %8.3f s (first sbatch -> squeue empty), %6.2f jobs/s; "
                  "sbatch x%d took %.3f s" % (name, r["wall"], args.jobs / r["wall"], args.jobs, r["submit"]))
        else:
            ended, after = r["partial"]
            print("Slurm %-7s settings: NOT FINISHED: %d of %d jobs ended in %.0f s (--timeout), "
                  "%.3f jobs/s so far" % (name, ended, args.jobs, after, ended / after))
        print("      main scheduler cycles %s, backfill cycles %s, jobs started by backfill %s" % (
            cycles["main_cycles"], cycles["backfill_cycles"], cycles["backfilled"]))
        if r.get("log"):
            print("      from slurmctld.log: a job runs %.3f s (start -> done, median); jobs were "
                  "started in %d scheduling passes, %.3f s apart (median)" % (
                      r["log"]["run_median"], r["log"]["passes"], r["log"]["gap_median"] or 0))
    if slurm_why:
        print("Slurm: %s" % slurm_why)
    if ddl:
        for name in ("default", "htc"):
            if name in slurm:
                r = slurm[name]
                if r["wall"] is not None:
                    print("ratio DDL / Slurm %-7s = %.4f (goal <= 0.05)" % (name, ddl["wall"] / r["wall"]))
                else:
                    ended, after = r["partial"]
                    print("ratio DDL / Slurm %-7s < %.4f (Slurm unfinished after %.0f s)" % (
                        name, ddl["wall"] / after, after))
        b = ddl["breakdown"]
        print()
        print("DDL per job (%d tasks; seconds; submit->lease includes queueing behind the 2 slots):" % b["tasks"])
        print("  %-50s %8s %8s %8s" % ("step", "median", "p90", "max"))
        for label, median, p90, worst, _n in b["rows"]:
            print("  %-50s %8.3f %8.3f %8.3f" % (label, median, p90, worst))
        if b["mean_busy"]:
            print("  a slot is busy %.3f s per job on average (lease seen -> final report); %d slots "
                  "=> at most %.1f jobs/s from the worker's side" % (
                      b["mean_busy"], args.slots, args.slots / b["mean_busy"]))
        if b["first_lease"] is not None:
            print("  the worker saw its first lease %.3f s after the first submit" % b["first_lease"])
    return 0 if ddl else 1


if __name__ == "__main__":
    sys.exit(main())
