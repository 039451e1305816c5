"""DDL task runner, written into each task folder by ddl-worker.

Usage: python -u ddl_runner.py CODE_DIR DATASET_DIR MODEL_OUTPUT_DIR

Imports main.py from the package root and calls main(dataset_dir, model_output_dir); a job
whose environment has DDL_ENTRY_POINT=module.function (ElasticDL's --model_def) has that
function called instead, its module imported from the package root. An exception prints its
traceback to stderr and ends the task with exit code 1.
"""
import importlib
import os
import sys
import traceback


def run(argv):
    if len(argv) != 4:
        print("usage: ddl_runner.py CODE_DIR DATASET_DIR MODEL_OUTPUT_DIR", file=sys.stderr)
        return 2
    code_dir, dataset_dir, output_dir = (os.path.abspath(path) for path in argv[1:])
    # The package root replaces the runner's own folder at the head of the import path.
    sys.path[0] = code_dir
    os.chdir(code_dir)
    entry_point = os.environ.get("DDL_ENTRY_POINT", "")
    if entry_point:
        module_name, _, function_name = entry_point.rpartition(".")
        if not module_name or not function_name:
            print(f"ddl-runner: DDL_ENTRY_POINT={entry_point!r} is not module.function",
                  file=sys.stderr)
            return 1
    else:
        module_name, function_name = "main", "main"
        if not os.path.isfile(os.path.join(code_dir, "main.py")):
            print("ddl-runner: the package has no main.py at its root; a DDL job needs a main.py "
                  "that defines main(dataset_dir, model_output_dir)", file=sys.stderr)
            return 1
    try:
        module = importlib.import_module(module_name)
        entry = getattr(module, function_name, None)
        if not callable(entry):
            source = module_name.replace(".", "/") + ".py"
            print(f"ddl-runner: {source} defines no function "
                  f"{function_name}(dataset_dir, model_output_dir)", file=sys.stderr)
            return 1
        entry(dataset_dir, output_dir)
    except SystemExit:
        raise
    except BaseException as error:  # noqa: B902 - any failure of the user's code ends the task
        # Start the traceback at the user's code, not at this runner.
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        sys.stderr.flush()
        return 1
    return 0


if __name__ == "__main__":
    exit_code = run(sys.argv)
    sys.stdout.flush()
    sys.exit(exit_code)
