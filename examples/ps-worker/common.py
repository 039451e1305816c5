"""What ps.py and worker.py share: the OpenPAI environment, the wire format, the data and model.

The model is softmax regression on Fisher's Iris flowers (data/iris.csv): a weight matrix of
(4 features + 1 bias) x 3 classes, flattened to 15 parameters and split into contiguous shards,
one per parameter server. Training is synchronous SGD: every step each worker pulls the
parameters from every server, computes the gradient on its own shard of the training rows and
pushes each server its slice; a server applies the average once all workers have pushed.
"""
import csv
import json
import os
import socket
import struct
import sys
import time

import numpy as np

STEPS = 60
LEARNING_RATE = 0.5
TEST_FRACTION = 0.2
SEED = 7
CONNECT_TIMEOUT_S = 60.0   # roles start together, but not at the same instant
IDLE_TIMEOUT_S = 120.0     # a server that hears nothing for this long gives up (exit 1)
PS_ROLE = os.environ.get("DDL_PS_ROLE", "ps")
WORKER_ROLE = os.environ.get("DDL_WORKER_ROLE", "worker")
FEATURES = ("sepal_length_cm", "sepal_width_cm", "petal_length_cm", "petal_width_cm")


def log(*parts):
    print(*parts, flush=True)


def fail(message):
    print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


# ---- the OpenPAI environment --------------------------------------------------------------------

def env(name):
    value = os.environ.get(name)
    if value is None or value == "":
        fail(f"the environment variable {name} is not set (is this running as an OpenPAI job?)")
    return value


def role_hosts(role):
    """(host, port) of every task of a role, in task index order, from PAI_TASK_ROLE_<i>_HOST_LIST."""
    roles = env("PAI_TASK_ROLE_LIST").split(",")
    if role not in roles:
        fail(f"no task role {role!r} in PAI_TASK_ROLE_LIST={','.join(roles)}")
    name = f"PAI_TASK_ROLE_{roles.index(role)}_HOST_LIST"
    hosts = []
    for entry in env(name).split(","):
        host, sep, port = entry.strip().rpartition(":")
        if not sep or not host or not port.isdigit():
            fail(f"{name}: {entry!r} is not address:port")
        hosts.append((host.strip("[]"), int(port)))
    return hosts


def task_index():
    return int(env("PAI_TASK_ROLE_INDEX"))


def data_path():
    folder = os.environ.get("DDL_DATASET_DIR", "")
    path = os.path.join(folder, "iris.csv")
    if folder and os.path.isfile(path):
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "iris.csv")


def output_dir():
    folder = os.environ.get("DDL_OUTPUT_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "output")
    os.makedirs(folder, exist_ok=True)
    return folder


# ---- data and model -----------------------------------------------------------------------------

class Dataset:
    """Iris, split into train/test (stratified, fixed seed), standardised by the training rows."""

    def __init__(self, path):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        self.classes = sorted({row["species"] for row in rows})
        x = np.array([[float(row[name]) for name in FEATURES] for row in rows])
        y = np.array([self.classes.index(row["species"]) for row in rows])
        rng = np.random.default_rng(SEED)
        test = np.zeros(len(y), dtype=bool)
        for label in range(len(self.classes)):
            members = rng.permutation(np.flatnonzero(y == label))
            test[members[:int(round(len(members) * TEST_FRACTION))]] = True
        train = rng.permutation(np.flatnonzero(~test))
        self.mean = x[train].mean(axis=0)
        self.std = x[train].std(axis=0)
        self.x_train, self.y_train = self.features(x[train]), y[train]
        self.x_test, self.y_test = self.features(x[test]), y[test]

    def features(self, x):
        """Standardised features with a constant 1 for the bias."""
        x = (x - self.mean) / self.std
        return np.hstack([x, np.ones((len(x), 1))])

    @property
    def weight_shape(self):
        return (self.x_train.shape[1], len(self.classes))

    @property
    def parameter_count(self):
        rows, cols = self.weight_shape
        return rows * cols


def shard_ranges(parameter_count, servers):
    """[start, end) of the parameters each server holds."""
    bounds = np.linspace(0, parameter_count, servers + 1).round().astype(int)
    return [(int(bounds[i]), int(bounds[i + 1])) for i in range(servers)]


def probabilities(w, x):
    logits = x @ w
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def loss(w, x, y):
    p = probabilities(w, x)
    return float(-np.log(p[np.arange(len(y)), y] + 1e-12).mean())


def gradient(w, x, y):
    p = probabilities(w, x)
    p[np.arange(len(y)), y] -= 1.0
    return x.T @ p / len(y)


def accuracy(w, x, y):
    return float((probabilities(w, x).argmax(axis=1) == y).mean())


# ---- the wire: a length-prefixed JSON header, then the raw bytes of its arrays --------------------

def send(sock, header, arrays=None):
    arrays = {name: np.ascontiguousarray(a) for name, a in (arrays or {}).items()}
    header = dict(header, arrays=[[name, a.dtype.str, list(a.shape)] for name, a in arrays.items()])
    text = json.dumps(header).encode()
    sock.sendall(struct.pack("!I", len(text)) + text + b"".join(a.tobytes() for a in arrays.values()))


def _read_exactly(sock, size):
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(sock):
    """(header, {name: array}); raises ConnectionError when the peer is gone."""
    (size,) = struct.unpack("!I", _read_exactly(sock, 4))
    if size > 1 << 20:
        raise ConnectionError(f"a header of {size} bytes is too large")
    header = json.loads(_read_exactly(sock, size))
    arrays = {}
    for name, dtype, shape in header.pop("arrays", []):
        dtype = np.dtype(dtype)
        count = int(np.prod(shape)) if shape else 1
        arrays[name] = np.frombuffer(_read_exactly(sock, count * dtype.itemsize),
                                     dtype=dtype).reshape(shape)
    return header, arrays


def connect(host, port, timeout=CONNECT_TIMEOUT_S):
    """A connection to host:port, retried until the server listens or the timeout passes."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=5)
            sock.settimeout(IDLE_TIMEOUT_S)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError as error:
            if time.monotonic() >= deadline:
                fail(f"cannot connect to {host}:{port} within {timeout:.0f} s: {error}")
            time.sleep(0.2)


def call(sock, header, arrays=None):
    """One request and its answer; an answer with "error" ends the program."""
    send(sock, header, arrays)
    answer, answer_arrays = receive(sock)
    if "error" in answer:
        fail(f"{header.get('op')}: {answer['error']}")
    return answer, answer_arrays
