#!/usr/bin/env python3
"""Data-plane benchmark (a program that prints figures, not a test).

In one run, on this machine, moves files of the given sizes (default 1 GiB and 4 GiB) up and
down over one TLS stream on loopback, driven by curl, through:
  ddl-server  -- POST /v1/uploads, then one `PUT /v1/uploads/<id>?offset=0` with the whole file
                 (streamed, hashed, fsynced before the answer); GET /v1/blobs/<sha256>;
  nginx       -- the same files with `dav_methods PUT` (upload) and a static GET (download),
                 TLS with the same certificate, one worker process.
Both store under the same folder (--dir, default a temp dir on the disk of /tmp), the download
goes to /dev/null. It prints MB/s (10^6 bytes/s) of each, the ratio ddl/nginx, and ddl-server's
peak RSS (VmHWM) over the run, which ends with one upload and one download of the largest size
at the same time.
Each transfer runs --repeat times (default 3), alternating ddl-server and nginx; the best counts.

Then the user's own commands against curl+nginx, alternating, --repeat times each: `ddlcli dataset
upload DIR --name N` (a fresh user and an empty hash cache each time, so every byte is hashed and
sent) vs `curl -T FILE` to nginx, `ddlcli dataset download N --dest D` (verified) vs `curl -o FILE`
from nginx, and --small-files files of 4-64 KiB (new bytes for every upload) by ddlcli vs `tar cf - | curl -T -`. For
each client process: wall time, user+system CPU and peak RSS (ru_maxrss from wait4). Also a
re-upload of the unchanged folder (the hash cache warm: nothing read, nothing sent).
Usage: bench/bench_dataplane.py [--sizes-mib 1024,4096] [--repeat 3] [--bin build/bin] [--dir DIR]
                                [--small-files 10000] [--cli-only] [--before OLD_DDLCLI]
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = 1_000_000


def make_file(path, mib):
    digest = hashlib.sha256()
    block = os.urandom(1 << 20)
    with open(path, "wb") as out:
        for i in range(mib):
            # Cheap distinct blocks: a counter prefix on one random MiB.
            chunk = i.to_bytes(8, "little") + block[8:]
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def api(url, path, body=None, token=None, method=None):
    context = ssl._create_unverified_context()
    request = urllib.request.Request(url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, context=context) as answer:
        return json.loads(answer.read() or b"{}")


def curl(args):
    out = subprocess.run(["curl", "-sk", "--fail", "-o", "/dev/null", "-w",
                          "%{http_code} %{time_total}"] + args,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("curl failed: %s %s %s" % (args, out.stdout, out.stderr))
    code, seconds = out.stdout.split()
    return float(seconds)


def cpu_seconds(pid):
    """utime + stime of a process (all its threads), in seconds."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def nginx_worker(master):
    children = open("/proc/%d/task/%d/children" % (master, master)).read().split()
    return int(children[0])


def timed(pid, run):
    """Wall seconds of run() and the CPU seconds pid spent meanwhile."""
    before = cpu_seconds(pid)
    seconds = run()
    return seconds, cpu_seconds(pid) - before


def peak_rss_mib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_nginx(work, cert, key, root):
    conf = os.path.join(work, "nginx.conf")
    os.makedirs(os.path.join(work, "nginx-tmp"), exist_ok=True)
    with open(conf, "w") as out:
        # As root, nginx's worker would drop to www-data and could not write into our temp dir.
        user = "user root;\n" if os.geteuid() == 0 else ""
        out.write(user + """
worker_processes 1;
daemon off;
pid %(work)s/nginx.pid;
error_log %(work)s/nginx-error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %(work)s/nginx-tmp;
    server {
        listen 127.0.0.1:0 ssl;
        listen 127.0.0.1:%(port)d ssl;
        ssl_certificate %(cert)s;
        ssl_certificate_key %(key)s;
        ssl_protocols TLSv1.2 TLSv1.3;
        root %(root)s;
        client_max_body_size 0;
        dav_methods PUT;
        create_full_put_path on;
    }
}
""" % dict(work=work, cert=cert, key=key, root=root, port=free_port()))
    # nginx cannot listen on port 0; the second listen line has the real port.
    text = open(conf).read().replace("        listen 127.0.0.1:0 ssl;\n", "")
    open(conf, "w").write(text)
    port = int(re.search(r"listen 127.0.0.1:(\d+) ssl", text).group(1))
    proc = subprocess.Popen(["nginx", "-c", conf, "-e", os.path.join(work, "nginx-error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    for _ in range(100):
        try:
            curl(["https://127.0.0.1:%d/" % port, "-o", "/dev/null"])
        except SystemExit:
            pass
        if os.path.exists(os.path.join(work, "nginx.pid")):
            break
        time.sleep(0.05)
    time.sleep(0.3)
    return proc, "https://127.0.0.1:%d" % port


def measured(argv, env=None, shell=False):
    """Runs a client to its end under GNU time: (wall s, user+sys CPU s, peak RSS MiB, the
    1-minute load average at its end).

    GNU time's wait4 gives the child's own ru_maxrss (one forked from this Python would count
    Python's resident pages). For a pipeline (shell=True) CPU is tar's and curl's together, and
    RSS the largest of them."""
    report = tempfile.NamedTemporaryFile(prefix="ddl-bench-time-", delete=False).name
    # Every transfer starts with nothing dirty in the page cache: nginx does not sync what it
    # receives, so without this the kernel wrote its gigabyte back during the next transfer
    # (most often ddlcli's first download of a run).
    os.sync()
    command = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", report] + (
        ["/bin/sh", "-c", argv] if shell else argv)
    proc = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit("%s failed (%d): %s" % (argv, proc.returncode,
                                         proc.stderr.decode(errors="replace")[-2000:]))
    wall, user, system, rss = open(report).read().split()[-4:]
    os.remove(report)
    return float(wall), float(user) + float(system), int(rss) / 1024, os.getloadavg()[0]


def warm(folder):
    """Reads every file under folder once, so that both servers send from the page cache:
    ddl-server writes uploads with O_DIRECT (a fresh blob is not cached) while nginx leaves what
    it received cached, so without this ddlcli's first download of a run read the disk and
    curl's did not."""
    for parent, _, names in os.walk(folder):
        for name in names:
            with open(os.path.join(parent, name), "rb") as f:
                while f.read(8 << 20):
                    pass


def cli_user(ddlcli, url, ca, work, name):
    """A fresh ddlcli user with its own config and an empty hash cache."""
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, name + "-config"),
               XDG_CACHE_HOME=os.path.join(work, name + "-cache"), DDL_SERVER=url,
               DDL_CA_CERT=ca)
    email = name + "@example.org"
    subprocess.run([ddlcli, "register"], input="%s\nbench-password\nbench-password\n" % email,
                   text=True, env=env, check=True, capture_output=True)
    subprocess.run([ddlcli, "login"], input="%s\nbench-password\n" % email,
                   text=True, env=env, check=True, capture_output=True)
    return env


def make_small_files(folder, count):
    import random
    rng = random.Random(13)
    block = os.urandom(64 << 10)
    total = 0
    for i in range(count):
        sub = os.path.join(folder, "d%03d" % (i // 100))
        os.makedirs(sub, exist_ok=True)
        size = rng.randint(4 << 10, 64 << 10)
        with open(os.path.join(sub, "f%05d.bin" % i), "wb") as out:
            out.write(i.to_bytes(8, "little") + block[8:size])
        total += size
    return total


def cli_vs_curl(args, work, url, ca, nginx_url, nginx_root, sizes):
    """The user's commands vs curl+nginx, alternating; every run is kept."""
    # (label, ddlcli binary): --before adds an older ddlcli, measured in the same run.
    clients = [("ddlcli", os.path.join(args.bin, "ddlcli"))]
    if args.before:
        clients.append(("ddlcli before", args.before))
    ddlcli = clients[0][1]
    rows = []  # (label, size, client, wall, cpu, rss, load)
    for mib in sizes:
        folder = os.path.join(work, "cli-%d" % mib)
        os.makedirs(folder)
        make_file(os.path.join(folder, "data.bin"), mib)
        size = mib << 20
        for run in range(args.repeat):
            rows.append(("upload", size, "curl+nginx", *measured(
                ["curl", "-sk", "--fail", "-o", "/dev/null", "-T",
                 os.path.join(folder, "data.bin"), "%s/up-%d" % (nginx_url, mib)])))
            envs = []
            for client, binary in clients:
                # A fresh user and hash cache: every byte is hashed and sent.
                env = cli_user(ddlcli, url, ca, work,
                               "cli-%d-%d-%d" % (mib, run, len(envs)))
                envs.append(env)
                rows.append(("upload", size, client, *measured(
                    [binary, "dataset", "upload", folder, "--name", "d%d" % mib], env)))
                if run == 0:
                    rows.append(("re-upload unchanged", size, client, *measured(
                        [binary, "dataset", "upload", folder, "--name", "d%d" % mib], env)))
            copy = os.path.join(work, "copy-%d" % mib)
            for (client, binary), env in zip(clients, envs):
                warm(os.path.join(work, "server"))
                rows.append(("download", size, client, *measured(
                    [binary, "dataset", "download", "d%d" % mib, "--dest", copy], env)))
                shutil.rmtree(copy)
            warm(nginx_root)
            rows.append(("download", size, "curl+nginx", *measured(
                ["curl", "-sk", "--fail", "-o", copy, "%s/up-%d" % (nginx_url, mib)])))
            os.remove(copy)
        os.remove(os.path.join(nginx_root, "up-%d" % mib))
        shutil.rmtree(folder)
    if args.small_files:
        # Every client uploads bytes the server has never seen (a fresh folder each, made before
        # any is measured), so each run writes its 10,000 blobs as a real first upload does; the
        # folders go only at the end, since ext4 without a journal makes new files slow next to
        # many just deleted (docs/benchmarks.md, "Many small files, fourth round").
        folders = {}
        for run in range(args.repeat):
            for index in range(len(clients)):
                folders[run, index] = os.path.join(work, "small-%d-%d" % (run, index))
                os.makedirs(folders[run, index])
                size = make_small_files(folders[run, index], args.small_files)
        for run in range(args.repeat):
            rows.append(("%d small files" % args.small_files, size, "tar|curl+nginx", *measured(
                "tar cf - -C %s . | curl -sk --fail -o /dev/null -T - %s/small.tar"
                % (folders[run, 0], nginx_url), shell=True)))
            for index, (client, binary) in enumerate(clients):
                env = cli_user(ddlcli, url, ca, work, "small-%d-%d" % (run, index))
                rows.append(("%d small files" % args.small_files, size, client, *measured(
                    [binary, "dataset", "upload", folders[run, index], "--name", "small"], env)))
        for folder in folders.values():
            shutil.rmtree(folder)
    print("the user's commands vs curl+nginx (TLS, loopback), every run; load average %s"
          % " ".join("%.2f" % v for v in os.getloadavg()))
    print("%-22s %-9s %-15s %8s %8s %9s %9s %6s" % ("what", "size", "client", "wall s", "MB/s",
                                                     "CPU s/GiB", "RSS MiB", "load"))
    for label, size, client, wall, cpu, rss, load in rows:
        print("%-22s %-9s %-15s %8.2f %8.0f %9.2f %9.0f %6.1f" % (
            label, "%.0f MiB" % (size / (1 << 20)), client, wall, size / wall / MB,
            cpu / (size / (1 << 30)), rss, load))
    return rows


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes-mib", default="1024,4096")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--dir", default=None)
    parser.add_argument("--repeat", type=int, default=3,
                        help="transfers per size, direction and server; the best one counts")
    parser.add_argument("--small-files", type=int, default=10000,
                        help="files of 4-64 KiB for the many-small-files case (0: none)")
    parser.add_argument("--cli-only", action="store_true",
                        help="only the user's commands (ddlcli) vs curl+nginx")
    parser.add_argument("--before", default=None,
                        help="another ddlcli binary (an older build) to measure beside "
                             "--bin's in the same run (--cli-only)")
    args = parser.parse_args()
    if not shutil.which("nginx"):
        sys.exit("needs nginx (apt-get install nginx-light)")
    work = tempfile.mkdtemp(prefix="ddl-bench-data-", dir=args.dir)
    procs = []
    try:
        log = open(os.path.join(work, "server.log"), "w")
        server = subprocess.Popen([os.path.join(args.bin, "ddl-server"), "--data-dir",
                                   os.path.join(work, "server"), "--listen", "127.0.0.1:0"],
                                  stdout=log, stderr=subprocess.STDOUT)
        procs.append(server)
        url = None
        for _ in range(200):
            match = re.search(r"listening on (https://\S+)",
                              open(os.path.join(work, "server.log")).read())
            if match:
                url = match.group(1)
                break
            time.sleep(0.05)
        if not url:
            sys.exit("ddl-server did not start")
        tls = os.path.join(work, "server", "tls")
        nginx_root = os.path.join(work, "nginx-root")
        os.makedirs(nginx_root)
        nginx, nginx_url = start_nginx(work, os.path.join(tls, "server.crt"),
                                       os.path.join(tls, "server.key"), nginx_root)
        procs.append(nginx)

        api(url, "/v1/auth/register", {"email": "bench@example.org", "password": "bench-password"})
        token = api(url, "/v1/auth/login",
                    {"email": "bench@example.org", "password": "bench-password"})["access_token"]
        auth = ["-H", "Authorization: Bearer " + token]

        # ddlcli as a second user (so nothing is deduplicated against curl's uploads).
        cli_env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "cli-config"),
                       DDL_SERVER=url, DDL_CA_CERT=os.path.join(tls, "server.crt"))
        ddlcli = os.path.join(args.bin, "ddlcli")
        subprocess.run([ddlcli, "register"], input="cli@example.org\nbench-password\nbench-password\n",
                       text=True, env=cli_env, check=True, capture_output=True)
        subprocess.run([ddlcli, "login"], input="cli@example.org\nbench-password\n",
                       text=True, env=cli_env, check=True, capture_output=True)
        cli_rows = []
        sizes = [int(s) for s in args.sizes_mib.split(",") if s.strip() and int(s)]
        if args.cli_only:
            cli_vs_curl(args, work, url, os.path.join(tls, "server.crt"), nginx_url, nginx_root,
                        sizes)
            return

        rows = []
        sizes = [int(s) for s in args.sizes_mib.split(",") if s.strip() and int(s)]
        for mib in sizes:
            source = os.path.join(work, "file-%d" % mib)
            sha = make_file(source, mib)
            size = mib << 20
            worker = nginx_worker(nginx.pid)
            # Each side alternately, --repeat times; the best of each is kept, so a busy moment
            # of the machine does not decide the ratio.
            ddl_up = nginx_up = ddl_down = nginx_down = (float("inf"), 0.0)
            for run in range(args.repeat):
                # A fresh user each time: the same bytes are received, hashed and verified in
                # full (the server keeps them once), since nothing is shared between users.
                email = "bench-%d-%d@example.org" % (mib, run)
                api(url, "/v1/auth/register", {"email": email, "password": "bench-password"})
                fresh = api(url, "/v1/auth/login", {"email": email, "password": "bench-password"})
                fresh_auth = ["-H", "Authorization: Bearer " + fresh["access_token"]]
                upload = api(url, "/v1/uploads", {"size": size, "sha256": sha}, fresh["access_token"])
                ddl_up = min(ddl_up, timed(server.pid, lambda: curl(
                    ["-X", "PUT", "-T", source, "%s/v1/uploads/%s?offset=0" % (url, upload["id"])]
                    + fresh_auth)))
                nginx_up = min(nginx_up, timed(worker, lambda: curl(
                    ["-X", "PUT", "-T", source, "%s/up-%d" % (nginx_url, mib)])))
                ddl_down = min(ddl_down, timed(server.pid, lambda: curl(
                    ["%s/v1/blobs/%s" % (url, sha)] + fresh_auth)))
                nginx_down = min(nginx_down, timed(worker, lambda: curl(
                    ["%s/up-%d" % (nginx_url, mib)])))
            gib = size / (1 << 30)
            rows.append((mib, "upload", size / ddl_up[0] / MB, size / nginx_up[0] / MB,
                         ddl_up[1] / gib, nginx_up[1] / gib))
            rows.append((mib, "download", size / ddl_down[0] / MB, size / nginx_down[0] / MB,
                         ddl_down[1] / gib, nginx_down[1] / gib))
            os.remove(os.path.join(nginx_root, "up-%d" % mib))

            # The same file through ddlcli (hashing included): dataset upload and download.
            folder = os.path.join(work, "cli-%d" % mib)
            os.makedirs(folder)
            os.link(source, os.path.join(folder, "data.bin"))
            started = time.monotonic()
            subprocess.run([ddlcli, "dataset", "upload", folder, "--name", "d%d" % mib],
                           env=cli_env, check=True, capture_output=True)
            cli_up = time.monotonic() - started
            started = time.monotonic()
            subprocess.run([ddlcli, "dataset", "download", "d%d" % mib, "--dest",
                            os.path.join(work, "cli-copy-%d" % mib)],
                           env=cli_env, check=True, capture_output=True)
            cli_down = time.monotonic() - started
            shutil.rmtree(os.path.join(work, "cli-copy-%d" % mib))
            cli_rows.append((mib, size / cli_up / MB, size / cli_down / MB))

        # The memory bound: the largest upload and download at the same time.
        mib = sizes[-1]
        source = os.path.join(work, "file-%d" % mib)
        os.rename(source, source + ".b")
        sha_b = make_file(source, mib)
        upload = api(url, "/v1/uploads", {"size": mib << 20, "sha256": sha_b}, token)
        both = [subprocess.Popen(["curl", "-sk", "--fail", "-o", "/dev/null", "-X", "PUT", "-T", source,
                                  "%s/v1/uploads/%s?offset=0" % (url, upload["id"])] + auth),
                subprocess.Popen(["curl", "-sk", "--fail", "-o", "/dev/null",
                                  "%s/v1/blobs/%s" % (url, sha)] + fresh_auth)]
        concurrent_ok = all(p.wait() == 0 for p in both)

        rss = peak_rss_mib(server.pid)
        print("data plane, one TLS stream on loopback, curl as the client (MB = 10^6 bytes), "
              "best of %d" % args.repeat)
        print("%-9s %-9s %10s %11s %6s %14s %16s" % ("size", "direction", "ddl MB/s", "nginx MB/s",
                                                    "ratio", "ddl CPU s/GiB", "nginx CPU s/GiB"))
        for mib, direction, ddl, ngx, ddl_cpu, ngx_cpu in rows:
            print("%-9s %-9s %10.0f %11.0f %6.2f %14.2f %16.2f" % (
                "%d MiB" % mib, direction, ddl, ngx, ddl / ngx, ddl_cpu, ngx_cpu))
        for mib, up, down in cli_rows:
            print("ddlcli dataset upload / download of %d MiB (hashing and verifying included): "
                  "%.0f / %.0f MB/s" % (mib, up, down))
        print("concurrent %d MiB upload + download through ddl-server: %s" %
              (mib, "ok" if concurrent_ok else "FAILED"))
        print("ddl-server peak RSS over the run: %.0f MiB" % rss)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if os.environ.get("KEEP"):
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
