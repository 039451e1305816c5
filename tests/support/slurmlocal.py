#!/usr/bin/env python3
"""A private single-node Slurm for tests and benchmarks: its own munged (own key and socket),
slurmctld -D and slurmd -D -N localhost with a generated slurm.conf, state and logs in one folder.

Used two ways:
  * as a module (bench/bench_slurm_vs_ddl.py): LocalSlurm(run_dir, daemons, ...).start() / .stop();
  * as a program (tests/worker/tst_slurm_backend.cpp):
        slurmlocal.py --dir DIR [--cpus N] [--memory-mb M] [--gpus G] [--partition P]
    starts everything, prints "SLURM_CONF=<path>" once the node is idle, and stops everything when
    its standard input closes or it gets SIGTERM/SIGINT. It exits 77 (with the reason on stderr)
    when Slurm cannot run here: not root, or the programs are missing.

Slurm needs root here (slurmd, SlurmUser=root) and the Debian packages slurm-wlm and munge.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

SLURM_PROGRAMS = ["slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel", "munged"]
SKIP_EXIT_CODE = 77


def wait_for(predicate, timeout, what, interval=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise RuntimeError("timed out after %.0f s waiting for %s" % (timeout, what))


class Daemons:
    """Processes this program started; ended in reverse order, each by its own id."""

    def __init__(self):
        self.procs = []

    def start(self, name, argv, log_path, env=None):
        out = open(log_path, "ab")
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, stdin=subprocess.DEVNULL)
        out.close()
        self.procs.append((name, proc))
        return proc

    def stop(self, proc, grace=10.0):
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(5)
        self.procs = [(n, p) for n, p in self.procs if p is not proc]

    def stop_all(self):
        for _, proc in reversed(list(self.procs)):
            self.stop(proc)


def free_port_block(count):
    """count consecutive free TCP ports on localhost."""
    for _ in range(200):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        if base + count > 65535:
            continue
        sockets = []
        try:
            for port in range(base, base + count):
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sockets.append(s)
                s.bind(("0.0.0.0", port))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no block of %d free ports" % count)


def which(program):
    return shutil.which(program) or os.path.join("/usr/sbin", program)


def missing_programs():
    return [p for p in SLURM_PROGRAMS if not (shutil.which(p) or os.path.exists("/usr/sbin/" + p))]


def why_not_runnable():
    """None when Slurm can run here, else why not."""
    if os.name != "posix" or os.geteuid() != 0:
        return "Slurm runs here only as root (slurmd and SlurmUser=root); this runs as uid %d" % (
            os.geteuid())
    missing = missing_programs()
    if missing:
        return "missing %s (Debian packages slurm-wlm and munge)" % ", ".join(missing)
    return None


class Munge:
    def __init__(self, base, daemons, threads=None):
        self.dir = os.path.join(base, "munge")
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o755)  # munged: "execute permissions for all required" on the socket folder
        self.key = os.path.join(self.dir, "munge.key")
        self.socket = os.path.join(self.dir, "munge.socket")
        with open(self.key, "wb") as key:
            key.write(os.urandom(1024))
        os.chmod(self.key, 0o400)
        argv = [which("munged"), "--foreground", "--key-file", self.key, "--socket", self.socket,
                "--pid-file", os.path.join(self.dir, "munged.pid"),
                "--log-file", os.path.join(self.dir, "munged.log"),
                "--seed-file", os.path.join(self.dir, "munged.seed")]
        if threads:
            argv += ["--num-threads", str(threads)]
        self.proc = daemons.start("munged", argv, os.path.join(self.dir, "munged.out"))
        wait_for(lambda: self._alive() and os.path.exists(self.socket), 20, "munged's socket")

    def _alive(self):
        if self.proc.poll() is not None:
            out = open(os.path.join(self.dir, "munged.out")).read()
            logf = os.path.join(self.dir, "munged.log")
            out += open(logf).read() if os.path.exists(logf) else ""
            raise RuntimeError("munged exited: " + out[-2000:])
        return True


def slurm_env(conf):
    """The environment of Slurm's client commands for this cluster: SLURM_CONF, and none of the
    caller's SLURM_/SBATCH_/SQUEUE_ settings."""
    env = dict(os.environ, SLURM_CONF=conf)
    for key in list(env):
        if (key.startswith("SLURM_") and key != "SLURM_CONF" or key.startswith("SBATCH_")
                or key.startswith("SQUEUE_")):
            del env[key]
    return env


def reap_orphans():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def reap_adopted(daemons):
    """Reaps exited processes this program adopted as subreaper (slurmstepd), never its own
    daemons, whose Popen objects must see their own exit."""
    own = {proc.pid for _, proc in daemons.procs}
    me = str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] == "Z" and int(pid) not in own:
            try:
                os.waitpid(int(pid), os.WNOHANG)
            except ChildProcessError:
                pass


def become_subreaper():
    """slurmstepd detaches from slurmd; as the child subreaper this program inherits (and reaps)
    the ones of its own Slurm runs instead of leaving zombies to an init that may not reap."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def kill_stray_stepds(run_dir):
    """slurmstepd processes detach from slurmd; end those (only those) that hold files of this
    run's spool folder."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open("/proc/%s/comm" % pid).read().strip() != "slurmstepd":
                continue
            fds = "/proc/%s/fd" % pid
            if any(os.readlink(os.path.join(fds, fd)).startswith(run_dir) for fd in os.listdir(fds)):
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            continue


class LocalSlurm:
    """One node, `localhost`, in one partition. memory_mb > 0 makes memory a consumable resource
    (CR_CPU_Memory) of that size; gpus > 0 gives the node that many `gpu` GRES without device
    files (Slurm counts and allocates them; nothing binds real devices). settings: more
    slurm.conf lines as a dict; ctld_ports: how many ports slurmctld listens on."""

    def __init__(self, run_dir, daemons, cpus, memory_mb=0, gpus=0, partition="debug",
                 settings=None, ctld_ports=1, munge_threads=None, cluster="ddllocal"):
        self.run_dir = run_dir
        self.daemons = daemons
        self.cpus = cpus
        self.memory_mb = memory_mb
        self.gpus = gpus
        self.partition = partition
        self.settings = settings or {}
        self.ctld_ports = ctld_ports
        self.munge_threads = munge_threads
        self.cluster = cluster
        self.conf = os.path.join(run_dir, "slurm.conf")
        self.env = slurm_env(self.conf)
        self.munge = self.ctld = self.slurmd = None

    def conf_text(self, munge_socket, ports):
        run_dir = self.run_dir
        ctld_port = ("%d-%d" % (ports, ports + self.ctld_ports - 1)) if self.ctld_ports > 1 else str(ports)
        node = "NodeName=localhost CPUs=%d State=UNKNOWN" % self.cpus
        if self.memory_mb:
            node += " RealMemory=%d" % self.memory_mb
        if self.gpus:
            node += " Gres=gpu:%d" % self.gpus
        lines = [
            "ClusterName=%s" % self.cluster,
            "SlurmctldHost=localhost",
            "SlurmctldPort=%s" % ctld_port,
            "SlurmdPort=%d" % (ports + self.ctld_ports),
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            "AuthInfo=socket=%s" % munge_socket,
            "StateSaveLocation=%s/state" % run_dir,
            "SlurmdSpoolDir=%s/spool" % run_dir,
            "SlurmctldPidFile=%s/slurmctld.pid" % run_dir,
            "SlurmdPidFile=%s/slurmd.pid" % run_dir,
            "SlurmctldLogFile=%s/slurmctld.log" % run_dir,
            "SlurmdLogFile=%s/slurmd.log" % run_dir,
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=%s" % ("CR_CPU_Memory" if self.memory_mb else "CR_CPU"),
            "ReturnToService=2",
            "MpiDefault=none",
            "MailProg=/bin/true",
        ]
        if self.gpus:
            lines.append("GresTypes=gpu")
        lines += [
            node,
            "PartitionName=%s Nodes=localhost Default=YES MaxTime=INFINITE State=UP" % self.partition,
        ]
        lines += ["%s=%s" % item for item in self.settings.items()]
        return "\n".join(lines) + "\n"

    def start(self, timeout=60):
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(self.run_dir, sub), exist_ok=True)
        self.munge = Munge(self.run_dir, self.daemons, self.munge_threads)
        ports = free_port_block(self.ctld_ports + 1)
        with open(self.conf, "w") as f:
            f.write(self.conf_text(self.munge.socket, ports))
        if self.gpus:
            # Next to slurm.conf, where Slurm looks for it. Slurm drops a GPU without a device file,
            # so each gets an empty stand-in file: counted and allocated, no real device bound.
            devices = os.path.join(self.run_dir, "dev")
            os.makedirs(devices, exist_ok=True)
            for index in range(self.gpus):
                open(os.path.join(devices, "fakegpu%d" % index), "w").close()
            with open(os.path.join(self.run_dir, "gres.conf"), "w") as f:
                f.write("NodeName=localhost Name=gpu File=%s/fakegpu[0-%d]\n" % (devices, self.gpus - 1))
        self.ctld = self.daemons.start("slurmctld", [which("slurmctld"), "-D", "-c", "-i", "-f", self.conf],
                                       os.path.join(self.run_dir, "slurmctld.out"), self.env)
        time.sleep(0.5)
        self.slurmd = self.daemons.start("slurmd", [which("slurmd"), "-D", "-N", "localhost", "-f", self.conf],
                                         os.path.join(self.run_dir, "slurmd.out"), self.env)
        wait_for(self._node_idle, timeout, "sinfo to show node localhost idle", interval=0.25)

    def _node_idle(self):
        for proc, what in ((self.ctld, "slurmctld"), (self.slurmd, "slurmd")):
            if proc.poll() is not None:
                tail = ""
                for f in (what + ".out", what + ".log"):
                    p = os.path.join(self.run_dir, f)
                    tail += open(p, errors="replace").read()[-1500:] if os.path.exists(p) else ""
                raise RuntimeError("%s exited (code %s): %s" % (what, proc.returncode, tail))
        out = subprocess.run(["sinfo", "-h", "-n", "localhost", "-o", "%t"], env=self.env,
                             capture_output=True, text=True)
        return out.returncode == 0 and out.stdout.strip() == "idle"

    def stop(self):
        if self.ctld:
            subprocess.run(["scancel", "--quiet", "--user", "root"], env=self.env, capture_output=True)
        if self.slurmd:
            self.daemons.stop(self.slurmd)
        if self.ctld:
            self.daemons.stop(self.ctld)
        kill_stray_stepds(self.run_dir)
        if self.munge:
            self.daemons.stop(self.munge.proc)
        self.munge = self.ctld = self.slurmd = None
        if not self.daemons.procs:
            reap_orphans()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", required=True, help="folder for the cluster's state and logs")
    parser.add_argument("--cpus", type=int, default=os.cpu_count())
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--gpus", type=int, default=0)
    parser.add_argument("--partition", default="debug")
    args = parser.parse_args()
    why = why_not_runnable()
    if why:
        print(why, file=sys.stderr, flush=True)
        return SKIP_EXIT_CODE

    stop = threading.Event()

    def on_signal(_signum, _frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    become_subreaper()
    os.makedirs(args.dir, exist_ok=True)
    os.chmod(args.dir, 0o755)  # munged wants its socket folder reachable by all
    daemons = Daemons()
    cluster = LocalSlurm(args.dir, daemons, args.cpus, args.memory_mb, args.gpus, args.partition)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except OSError:
            pass
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        cluster.start()
        print("SLURM_CONF=%s" % cluster.conf, flush=True)
        while not stop.wait(0.5):
            reap_adopted(daemons)
    except Exception as error:  # said on stderr; the caller shows it
        print("slurmlocal: %s" % error, file=sys.stderr, flush=True)
        return 1
    finally:
        cluster.stop()
        daemons.stop_all()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # the stdin thread may still be blocked in read()
