"""Worker: trains on its shard of the training rows against the parameter servers of the host list.

Each step pulls every server's shard (PAI_TASK_ROLE_<ps>_HOST_LIST), computes the gradient on this
worker's rows and pushes each server its slice. Worker 0 prints DDL_METRIC lines (loss on the whole
training set) and, at the end, asks server 0 to write the model and every server to stop.
"""
import json
import sys
import time

import numpy as np

import common


def main():
    index = common.task_index()
    workers = len(common.role_hosts(common.WORKER_ROLE))
    servers = common.role_hosts(common.PS_ROLE)
    data = common.Dataset(common.data_path())
    ranges = common.shard_ranges(data.parameter_count, len(servers))
    x, y = data.x_train[index::workers], data.y_train[index::workers]
    common.log(f"worker {index}/{workers}: {len(y)} training rows, parameter servers "
               + ", ".join(f"{host}:{port}" for host, port in servers))

    started = time.monotonic()
    sockets = [common.connect(host, port) for host, port in servers]
    common.log(f"worker {index}: connected to {len(sockets)} parameter servers in "
               f"{time.monotonic() - started:.2f} s")

    def pull(version):
        shards = [common.call(sock, {"op": "pull", "version": version})[1]["shard"]
                  for sock in sockets]
        return np.concatenate(shards).reshape(data.weight_shape)

    losses = []
    for step in range(common.STEPS):
        w = pull(step)
        if index == 0:
            losses.append(common.loss(w, data.x_train, data.y_train))
            print("DDL_METRIC " + json.dumps({"step": step, "loss": round(losses[-1], 6)}),
                  flush=True)
        grad = common.gradient(w, x, y).ravel()
        for sock, (start, end) in zip(sockets, ranges):
            common.call(sock, {"op": "push", "version": step, "worker": index},
                        {"grad": grad[start:end]})

    if index == 0:
        # Every worker has pushed its last gradient once the final version exists.
        w = pull(common.STEPS)
        losses.append(common.loss(w, data.x_train, data.y_train))
        print("DDL_METRIC " + json.dumps({"step": common.STEPS, "loss": round(losses[-1], 6)}),
              flush=True)
        metrics = {
            "steps": common.STEPS,
            "initial_loss": losses[0],
            "final_loss": losses[-1],
            "train_accuracy": common.accuracy(w, data.x_train, data.y_train),
            "test_accuracy": common.accuracy(w, data.x_test, data.y_test),
            "seconds": round(time.monotonic() - started, 3),
        }
        common.call(sockets[0], {"op": "save", "metrics": metrics})
        for sock in reversed(sockets):
            common.call(sock, {"op": "stop"})
        common.log(f"worker 0: loss {losses[0]:.4f} -> {losses[-1]:.4f}, test accuracy "
                   f"{metrics['test_accuracy']:.3f}; servers told to stop")
    for sock in sockets:
        sock.close()
    common.log(f"worker {index}: done")


if __name__ == "__main__":
    main()
    sys.exit(0)
