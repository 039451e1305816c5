"""paddle.dist.train: a Paddle job on DDL, from Python (docs/cli.md, "paddle.dist").

The job is the one `paddle job submit` makes from the same arguments: an OpenPAI job with a
"pserver" role (when pservers > 0) and a "trainer" role, each running its entry point after
Paddle's environment (PADDLE_TRAINING_ROLE, PADDLE_PSERVER_ENDPOINTS, ...).
"""
import json
import math
import os
import re
import time

from . import _archive
from ._client import Client, DdlError

__all__ = ["train", "Job", "DdlError"]

_FINAL_STATES = ("SUCCEEDED", "FAILED", "STOPPED")
_MEMORY_UNITS = {"Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "Ti": 1024 ** 4,
                 "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _cpus(value, name):
    text = str(value).strip()
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(m?)", text)
    number = float(match.group(1)) / (1000 if match.group(2) else 1) if match else 0
    if not match or number <= 0:
        raise ValueError(f"{name}={value!r} is not valid: expected a number of CPUs: 1, 0.5 "
                         "or '500m'")
    return math.ceil(number)


def _memory_mb(value, name):
    text = str(value).strip()
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([A-Za-z]*)", text)
    if not match or match.group(2) not in _MEMORY_UNITS:
        raise ValueError(f"{name}={value!r} is not valid: expected a memory size with a unit: "
                         "'512Mi', '2Gi' (binary) or '1G' (decimal)")
    return math.ceil(float(match.group(1)) * _MEMORY_UNITS[match.group(2)] / 1024 ** 2)


def _count(value, name, minimum):
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name}={value!r} is not valid: expected a whole number, {minimum} "
                         "or more")
    return value


def _role_command(role, trainers, pservers, entry_point):
    """The same command ddlcli's `paddle job submit` gives a role (cli/seed/paddlejob.cpp)."""
    trainer = role == "trainer"
    kind = "TRAINER" if trainer else "PSERVER"
    exports = (f"export PADDLE_TRAINING_ROLE={kind} TRAINING_ROLE={kind} "
               f"PADDLE_TRAINERS_NUM={trainers} PADDLE_PSERVERS_NUM={pservers}")
    exports += (' PADDLE_PSERVER_ENDPOINTS="$PAI_TASK_ROLE_0_HOST_LIST"' if pservers > 0
                else " PADDLE_PSERVER_ENDPOINTS=")
    if trainer:
        exports += ' PADDLE_TRAINER_ID="$PAI_TASK_ROLE_INDEX"'
    exports += (' PADDLE_CURRENT_ENDPOINT="$PAI_CURRENT_CONTAINER_IP:$PAI_CURRENT_CONTAINER_PORT"'
                ' PADDLE_PORT="$PAI_CURRENT_CONTAINER_PORT"; ')
    return exports + entry_point


def _paddle_config():
    """server and username of $HOME/.paddle/config's flat form (apiVersion, paddleServer or
    server or jobServer, username); the YAML's other forms are for ddlcli to read."""
    path = os.path.join(os.path.expanduser("~"), ".paddle", "config")
    found = {}
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                match = re.match(r"^(apiVersion|paddleServer|server|jobServer|username):\s*(\S+)",
                                 line)
                if match:
                    found.setdefault(match.group(1), match.group(2).strip("'\""))
    server = found.get("paddleServer") or found.get("server") or found.get("jobServer")
    return server, found.get("username")


class Job:
    """A job submitted by train(): its uuid and name, and what the server says of it."""

    def __init__(self, connect, uuid, name):
        self._connect = connect  # a signed-in Client
        self._client = None
        self.uuid = uuid
        self.name = name

    def _get(self, method, path):
        # One connection for all calls; signed in again when the 10-minute session has ended.
        for attempt in (1, 2):
            if self._client is None:
                self._client = self._connect()
            try:
                return self._client.request(method, path)
            except DdlError as error:
                if attempt == 2 or error.code not in ("unauthorized", "session_expired"):
                    raise
                self._client.close()
                self._client = None
        return None

    def info(self):
        """The job as GET /v1/jobs/<uuid> answers: state, tasks, spec, ..."""
        return self._get("GET", f"/v1/jobs/{self.uuid}")

    def status(self):
        """WAITING, RUNNING, SUCCEEDED, FAILED or STOPPED."""
        return self.info()["state"]

    def cancel(self):
        return self._get("POST", f"/v1/jobs/{self.uuid}/cancel")["state"]

    def wait(self, timeout=3600, poll=1.0):
        """Waits until the job ends; its final state. TimeoutError when it has not ended."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.status()
            if state in _FINAL_STATES:
                return state
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {self.name} is still {state} after {timeout} s")
            time.sleep(poll)

    def __repr__(self):
        return f"Job(uuid={self.uuid!r}, name={self.name!r})"


def train(job_name=None, package_path=".", entry_point=None, module=None, trainers=1,
          pservers=0, trainer_cpu=1, trainer_gpu=None, trainer_mem="2Gi", pserver_cpu=1,
          pserver_mem="2Gi", base_image=None, use_gpu=False, env=None, input=None, output=None,
          pserver_entry_point=None, k8s_user=None, k8s_pssword=None, k8s_password=None,
          server=None, ca_cert=None, priority=None, timeout=60):
    """Submits a Paddle job to DDL and returns its Job.

    The seed's arguments: job_name, trainers, pservers, input, output, base_image, use_gpu,
    k8s_user and k8s_pssword (DDL's account email and password; k8s_password is taken too), plus
    those of `paddle job submit`: package_path (the code folder, sent as it is on disk),
    entry_point or module, trainer_cpu/gpu/mem, pserver_cpu/mem, env (a dict) and
    pserver_entry_point. server defaults to DDL_SERVER, then $HOME/.paddle/config; ca_cert to
    DDL_CA_CERT. input is a folder (uploaded as the job's dataset) or the name of a dataset on
    the server. Bad arguments raise ValueError naming the argument; what DDL refuses raises
    DdlError with its message.
    """
    if not os.path.isdir(package_path):
        raise ValueError(f"package_path={package_path!r} is not a folder")
    package_path = os.path.abspath(package_path)
    if (entry_point is None) == (module is None):
        raise ValueError("give what the trainers run: either entry_point='python train.py' or "
                         "module='quick_start.train' (not both)")
    if module is not None:
        entry_point = "python3 -m " + module
    if not base_image:
        raise ValueError("base_image is missing: the image the trainers run in (on workers "
                         "without a container runtime it is only recorded)")
    trainers = _count(trainers, "trainers", 1)
    pservers = _count(pservers, "pservers", 0)
    gpus = (1 if use_gpu else 0) if trainer_gpu is None else _count(trainer_gpu, "trainer_gpu", 0)
    if use_gpu and gpus == 0:
        raise ValueError(f"use_gpu={use_gpu!r} and trainer_gpu={trainer_gpu!r} disagree: a "
                         "trainer that uses GPUs needs 1 or more")
    job_name = job_name or os.path.basename(package_path)
    config_server, config_user = _paddle_config()
    server = server or os.environ.get("DDL_SERVER") or config_server
    if not server:
        raise ValueError("no server: pass server='https://HOST:PORT', set DDL_SERVER, or name "
                         "paddleServer in $HOME/.paddle/config")
    ca_cert = ca_cert or os.environ.get("DDL_CA_CERT")
    email = k8s_user or config_user
    password = k8s_pssword if k8s_pssword is not None else k8s_password
    if not email or password is None:
        raise ValueError("k8s_user and k8s_pssword are missing: your DDL account's email and "
                         "password")
    if input is not None and not os.path.isdir(input) and not re.fullmatch(
            r"(ddl://)?[A-Za-z0-9][A-Za-z0-9._-]{0,99}", str(input)):
        raise ValueError(f"input={input!r}: expected a folder (there is none there) or the name "
                         "of one of your datasets on the server")
    envs = {}
    for key, value in (env or {}).items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key)):
            raise ValueError(f"env key {key!r} is not an environment variable name")
        envs[str(key)] = str(value)

    roles = []
    if pservers > 0:
        roles.append({"name": "pserver", "taskNumber": pservers,
                      "cpuNumber": _cpus(pserver_cpu, "pserver_cpu"),
                      "memoryMB": _memory_mb(pserver_mem, "pserver_mem"), "gpuNumber": 0,
                      "command": _role_command("pserver", trainers, pservers,
                                               pserver_entry_point or entry_point)})
    roles.append({"name": "trainer", "taskNumber": trainers,
                  "cpuNumber": _cpus(trainer_cpu, "trainer_cpu"),
                  "memoryMB": _memory_mb(trainer_mem, "trainer_mem"), "gpuNumber": gpus,
                  "command": _role_command("trainer", trainers, pservers, entry_point)})
    spec = {"kind": "openpai", "jobName": job_name, "image": base_image, "taskRoles": roles,
            "killAllOnCompletedTaskNumber": 0, "retryCount": 0}
    if envs:
        spec["jobEnvs"] = envs
    if input is not None:
        spec["dataDir"] = str(input)
    if output is not None:
        spec["outputDir"] = str(output)

    def connect():
        client = Client(server, ca_cert, timeout)
        try:
            client.login(email, password)
        except BaseException:
            client.close()
            raise
        return client

    client = connect()
    try:
        package, _, _, _ = _archive.pack_folder(package_path)
        body = {"spec": spec, "package": {"sha256": client.upload(package), "commit": ""},
                "dataset": None}
        if input is not None and os.path.isdir(input):
            files = _archive.dataset_files(input)
            entries = []
            for relative, path, size, sha256, executable in files:
                client.upload_file(path)
                entry = {"path": relative, "size": size, "sha256": sha256}
                if executable:
                    entry["executable"] = True
                entries.append(entry)
            manifest = json.dumps({"kind": "ddl-dataset", "version": 1, "files": entries},
                                  sort_keys=True, separators=(",", ":")).encode()
            body["dataset"] = {"manifest": client.upload(manifest)}
        elif input is not None:
            name = str(input)
            body["dataset"] = {"name": name[len("ddl://"):] if name.startswith("ddl://") else name}
        if priority is not None:
            body["priority"] = priority
        answer = client.request("POST", "/v1/jobs", body)
    finally:
        client.close()

    return Job(connect, answer["uuid"], answer.get("name", job_name))
