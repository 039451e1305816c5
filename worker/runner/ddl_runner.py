"""DDL task runner, written into each task folder by ddl-worker.

Usage: python -u ddl_runner.py CODE_DIR DATASET_DIR MODEL_OUTPUT_DIR

Imports main.py from the package root and calls main(dataset_dir, model_output_dir). An
exception prints its traceback to stderr and ends the task with exit code 1.
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
    if not os.path.isfile(os.path.join(code_dir, "main.py")):
        print("ddl-runner: the package has no main.py at its root; a DDL job needs a main.py "
              "that defines main(dataset_dir, model_output_dir)", file=sys.stderr)
        return 1
    try:
        module = importlib.import_module("main")
        entry = getattr(module, "main", None)
        if not callable(entry):
            print("ddl-runner: main.py defines no function main(dataset_dir, model_output_dir)",
                  file=sys.stderr)
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
