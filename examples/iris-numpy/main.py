"""Iris flower classifier: a one-hidden-layer neural network trained with numpy only.

DDL calls main(dataset_dir, model_output_dir). The dataset folder holds iris.csv (Fisher's 150
flowers, the copy in ./data). Progress is printed as DDL_METRIC lines that DDL charts.

Training is full-batch gradient descent in epochs of METRIC_EVERY steps. Where DDL_CHECKPOINT_DIR
is set, each epoch ends by saving the epoch and the weights there, and a run that finds such a
checkpoint goes on from it: a preempted or failed job resumes on its next attempt, on whichever
worker, and ends with the same weights as a run that was never interrupted.
"""
import csv
import json
import os
import sys
import time

import numpy as np

HIDDEN_UNITS = 16
LEARNING_RATE = 0.1
STEPS = 400
METRIC_EVERY = 10
TEST_FRACTION = 0.2
SEED = 7
EPOCHS = STEPS // METRIC_EVERY
CHECKPOINT_FILE = "iris-state.npz"


def load_iris(dataset_dir):
    path = os.path.join(dataset_dir, "iris.csv")
    if not os.path.isfile(path):
        fallback = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "iris.csv")
        print(f"no iris.csv in {dataset_dir}; using {fallback}")
        path = fallback
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    classes = sorted({row["species"] for row in rows})
    features = np.array([[float(row[name]) for name in
                          ("sepal_length_cm", "sepal_width_cm", "petal_length_cm",
                           "petal_width_cm")] for row in rows])
    labels = np.array([classes.index(row["species"]) for row in rows])
    return features, labels, classes


def split(features, labels, rng):
    """Stratified split: the same share of each class goes to the test set."""
    test = []
    for label in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == label))
        test.extend(members[:int(round(len(members) * TEST_FRACTION))])
    test_mask = np.zeros(len(labels), dtype=bool)
    test_mask[test] = True
    return (features[~test_mask], labels[~test_mask]), (features[test_mask], labels[test_mask])


def forward(params, x):
    hidden = np.tanh(x @ params["w1"] + params["b1"])
    logits = hidden @ params["w2"] + params["b2"]
    logits -= logits.max(axis=1, keepdims=True)
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return hidden, probabilities


def accuracy(params, x, y):
    return float((forward(params, x)[1].argmax(axis=1) == y).mean())


def save_checkpoint(folder, epoch, params, history):
    """Written beside, then renamed: a checkpoint is whole or absent, whenever the task ends."""
    path = os.path.join(folder, CHECKPOINT_FILE)
    with open(path + ".tmp", "wb") as f:
        np.savez(f, epoch=epoch, history=np.array(json.dumps(history)), **params)
    os.replace(path + ".tmp", path)


def load_checkpoint(folder):
    """(epoch, params, history) of the checkpoint in folder, or None."""
    path = os.path.join(folder, CHECKPOINT_FILE)
    if not os.path.isfile(path):
        return None
    with np.load(path, allow_pickle=False) as state:
        params = {name: state[name] for name in ("w1", "b1", "w2", "b2")}
        return int(state["epoch"]), params, json.loads(str(state["history"]))


def main(dataset_dir, model_output_dir):
    rng = np.random.default_rng(SEED)
    features, labels, classes = load_iris(dataset_dir)
    (train_x, train_y), (test_x, test_y) = split(features, labels, rng)
    mean, std = train_x.mean(axis=0), train_x.std(axis=0)
    train_x, test_x = (train_x - mean) / std, (test_x - mean) / std
    print(f"{len(train_y)} training and {len(test_y)} test flowers, classes {classes}")

    params = {
        "w1": rng.normal(0, 0.5, (train_x.shape[1], HIDDEN_UNITS)),
        "b1": np.zeros(HIDDEN_UNITS),
        "w2": rng.normal(0, 0.5, (HIDDEN_UNITS, len(classes))),
        "b2": np.zeros(len(classes)),
    }
    targets = np.eye(len(classes))[train_y]
    history = []
    checkpoint_dir = os.environ.get("DDL_CHECKPOINT_DIR", "")
    # Seconds to pause after each epoch (default none): lets one try a preemption by hand.
    pause = float(os.environ.get("IRIS_EPOCH_PAUSE_S", "0"))
    first_epoch = 1
    resumed = load_checkpoint(checkpoint_dir) if checkpoint_dir else None
    if resumed:
        epoch, params, history = resumed
        first_epoch = epoch + 1
        print(f"resumed from the checkpoint of epoch {epoch} of {EPOCHS}")
    for step in range((first_epoch - 1) * METRIC_EVERY + 1, STEPS + 1):
        hidden, probabilities = forward(params, train_x)
        loss = float(-np.mean(np.sum(targets * np.log(probabilities + 1e-12), axis=1)))
        # Backpropagation of the mean cross-entropy.
        d_logits = (probabilities - targets) / len(train_y)
        d_hidden = (d_logits @ params["w2"].T) * (1 - hidden ** 2)
        gradients = {
            "w2": hidden.T @ d_logits, "b2": d_logits.sum(axis=0),
            "w1": train_x.T @ d_hidden, "b1": d_hidden.sum(axis=0),
        }
        for name, gradient in gradients.items():
            params[name] -= LEARNING_RATE * gradient
        if step % METRIC_EVERY == 0 or step == 1:
            metric = {"step": step, "loss": round(loss, 6),
                      "train_accuracy": round(accuracy(params, train_x, train_y), 4)}
            history.append(metric)
            print("DDL_METRIC " + json.dumps(metric))
        if step % METRIC_EVERY == 0:
            if checkpoint_dir:
                save_checkpoint(checkpoint_dir, step // METRIC_EVERY, params, history)
            if pause > 0:
                time.sleep(pause)

    test_accuracy = accuracy(params, test_x, test_y)
    print(f"final test accuracy: {test_accuracy:.3f} ({len(test_y)} flowers)")
    os.makedirs(model_output_dir, exist_ok=True)
    np.savez(os.path.join(model_output_dir, "model.npz"), mean=mean, std=std,
             classes=np.array(classes), **params)
    with open(os.path.join(model_output_dir, "metrics.json"), "w") as f:
        json.dump({"test_accuracy": test_accuracy, "steps": STEPS, "history": history}, f,
                  indent=2)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "data"),
         sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "output"))
