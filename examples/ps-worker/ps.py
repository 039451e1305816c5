"""Parameter server: holds one shard of the model's parameters and applies the workers' gradients.

Listens on 0.0.0.0:$PAI_CURRENT_CONTAINER_PORT. Requests (see common.send/receive):
  pull {version}          -> {version} + shard   (waits until that version exists)
  push {version, worker}  + grad -> {}           (the average is applied once every worker pushed)
  save {metrics}          -> {}                  (server 0: gathers every shard, writes model.npz
                                                  and metrics.json to $DDL_OUTPUT_DIR)
  stop                    -> {}                  (ends the server with exit code 0)
"""
import json
import os
import socket
import sys
import threading
import time

import numpy as np

import common


class Server:
    def __init__(self):
        self.index = common.task_index()
        self.servers = common.role_hosts(common.PS_ROLE)
        self.workers = len(common.role_hosts(common.WORKER_ROLE))
        self.data = common.Dataset(common.data_path())
        self.start, self.end = common.shard_ranges(self.data.parameter_count,
                                                   len(self.servers))[self.index]
        self.shard = np.zeros(self.end - self.start)
        self.version = 0
        self.pending = np.zeros_like(self.shard)
        self.pushed = set()
        self.condition = threading.Condition()
        self.stopping = threading.Event()
        self.last_heard = time.monotonic()
        self.connections = 0

    # ---- requests ----

    def pull(self, header, arrays):
        wanted = int(header["version"])
        with self.condition:
            if not self.condition.wait_for(lambda: self.version >= wanted or self.stopping.is_set(),
                                           timeout=common.IDLE_TIMEOUT_S):
                return {"error": f"version {wanted} did not come within "
                                 f"{common.IDLE_TIMEOUT_S:.0f} s (is a worker gone?)"}, {}
            if self.version != wanted:
                return {"error": f"version {wanted} is gone; this server is at {self.version}"}, {}
            return {"version": self.version}, {"shard": self.shard.copy()}

    def push(self, header, arrays):
        version, worker = int(header["version"]), int(header["worker"])
        grad = arrays.get("grad")
        if grad is None or grad.shape != self.shard.shape:
            return {"error": f"push needs a gradient of shape {self.shard.shape}"}, {}
        with self.condition:
            if version != self.version or worker in self.pushed:
                return {"error": f"worker {worker} pushed for version {version}, "
                                 f"this server is at {self.version}"}, {}
            self.pending += grad
            self.pushed.add(worker)
            if len(self.pushed) == self.workers:
                self.shard -= common.LEARNING_RATE * self.pending / self.workers
                self.pending[:] = 0
                self.pushed.clear()
                self.version += 1
                self.condition.notify_all()
        return {}, {}

    def save(self, header, arrays):
        if self.index != 0:
            return {"error": "only parameter server 0 writes the model"}, {}
        with self.condition:
            version = self.version
            shards = [self.shard.copy()]
        for host, port in self.servers[1:]:
            sock = common.connect(host, port)
            with sock:
                _, answer = common.call(sock, {"op": "pull", "version": version})
            shards.append(answer["shard"])
        weights = np.concatenate(shards).reshape(self.data.weight_shape)
        folder = common.output_dir()
        np.savez(os.path.join(folder, "model.npz"), weights=weights, mean=self.data.mean,
                 std=self.data.std, classes=np.array(self.data.classes))
        metrics = dict(header.get("metrics", {}), version=version,
                       parameter_servers=len(self.servers), workers=self.workers)
        with open(os.path.join(folder, "metrics.json"), "w") as f:
            json.dump(metrics, f, indent=2)
        common.log(f"ps {self.index}: wrote model.npz and metrics.json (version {version}) "
                   f"to {folder}")
        return {}, {}

    def stop(self, header, arrays):
        common.log(f"ps {self.index}: told to stop at version {self.version}")
        self.stopping.set()
        with self.condition:
            self.condition.notify_all()
        return {}, {}

    # ---- connections ----

    def serve_connection(self, sock):
        handlers = {"pull": self.pull, "push": self.push, "save": self.save, "stop": self.stop}
        with sock:
            while True:
                try:
                    header, arrays = common.receive(sock)
                except (ConnectionError, OSError):
                    break
                self.last_heard = time.monotonic()
                handler = handlers.get(header.get("op"))
                answer, answer_arrays = (handler(header, arrays) if handler else
                                         ({"error": f"unknown op {header.get('op')!r}"}, {}))
                try:
                    common.send(sock, answer, answer_arrays)
                except OSError:
                    break
        with self.condition:
            self.connections -= 1
            self.condition.notify_all()

    def run(self):
        port = int(common.env("PAI_CURRENT_CONTAINER_PORT"))
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("0.0.0.0", port))
        listener.listen(64)
        listener.settimeout(0.2)
        common.log(f"ps {self.index}/{len(self.servers)}: parameters [{self.start}, {self.end}) of "
                   f"{self.data.parameter_count}, {self.workers} workers, listening on "
                   f"0.0.0.0:{port}")
        while not self.stopping.is_set():
            if time.monotonic() - self.last_heard > common.IDLE_TIMEOUT_S:
                common.fail(f"ps {self.index}: nothing heard for {common.IDLE_TIMEOUT_S:.0f} s")
            try:
                sock, _ = listener.accept()
            except socket.timeout:
                continue
            sock.settimeout(common.IDLE_TIMEOUT_S)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.condition:
                self.connections += 1
            self.last_heard = time.monotonic()
            threading.Thread(target=self.serve_connection, args=(sock,), daemon=True).start()
        listener.close()
        # Let the other connections say goodbye (the stop request's own answer included).
        with self.condition:
            self.condition.wait_for(lambda: self.connections == 0, timeout=10)
        common.log(f"ps {self.index}: stopped")


if __name__ == "__main__":
    Server().run()
    sys.exit(0)
