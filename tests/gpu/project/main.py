"""DDL's real-GPU check job: proves a task sees its GPU through the worker (and its sandbox).

Prints what CUDA shows, multiplies matrices on the GPU for as many seconds as the dataset's
seconds.txt says, reports a metric each round, saves its step and state to DDL_CHECKPOINT_DIR
(torch.save) and resumes from there when a later attempt finds them, and writes the last result
as the model."""
import glob
import json
import os
import time


def main(dataset_dir, model_output_dir):
    seconds = float(open(os.path.join(dataset_dir, "seconds.txt")).read())
    print("CUDA_VISIBLE_DEVICES=%s DDL_GPUS=%s DDL_TASK_ATTEMPT=%s" % (
        os.environ.get("CUDA_VISIBLE_DEVICES"), os.environ.get("DDL_GPUS"),
        os.environ.get("DDL_TASK_ATTEMPT")), flush=True)
    print("device nodes: %s" % " ".join(sorted(glob.glob("/dev/nvidia*"))), flush=True)
    import torch
    print("torch %s cuda available %s devices %d" % (
        torch.__version__, torch.cuda.is_available(), torch.cuda.device_count()), flush=True)
    if not torch.cuda.is_available():
        raise SystemExit("no GPU visible to the task")
    print("device 0: %s" % torch.cuda.get_device_name(0), flush=True)
    checkpoint_dir = os.environ.get("DDL_CHECKPOINT_DIR")
    checkpoint = os.path.join(checkpoint_dir, "state.pt") if checkpoint_dir else None
    step = 0
    if checkpoint and os.path.exists(checkpoint):
        state = torch.load(checkpoint, map_location="cuda")
        a, step = state["a"], state["step"]
        print("resumed from the checkpoint of step %d" % step, flush=True)
    else:
        a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    start = time.time()
    while time.time() - start < seconds:
        for _ in range(50):
            b = a @ a
        torch.cuda.synchronize()
        step += 1
        print('DDL_METRIC {"step": %d, "norm": %.3f}' % (step, float(b.float().norm())), flush=True)
        if checkpoint and step % 5 == 0:
            torch.save({"a": a, "step": step}, checkpoint + ".tmp")
            os.replace(checkpoint + ".tmp", checkpoint)
        time.sleep(0.2)
    os.makedirs(model_output_dir, exist_ok=True)
    with open(os.path.join(model_output_dir, "result.json"), "w") as out:
        json.dump({"steps": step, "device": torch.cuda.get_device_name(0)}, out)
    print("done after %d steps" % step, flush=True)
