"""meshplan from Python: each function runs the bundled static `meshplan` binary with --json and
returns the parsed output (the JSON contract of docs/json.md is the API).

Keyword options become command-line options: ``tp=2`` -> ``--tp 2``, ``sequence_parallel=True``
-> ``--sequence-parallel``, a list repeats its values after one option (``set=["a=1", "b=2"]``
-> ``--set a=1 b=2``). Exit code 1 ("no": errors found, nothing fits, OOM) still returns the
result; bad input (exit code 2) raises MeshplanError with meshplan's message.
"""

import json
import os
import subprocess
import sys

__all__ = ["MeshplanError", "binary", "run", "check", "plan", "estimate", "diagnose", "main"]


class MeshplanError(RuntimeError):
    """meshplan refused the input (exit code 2) or failed; the message is meshplan's."""

    def __init__(self, returncode, message):
        super().__init__(message)
        self.returncode = returncode


def binary():
    """Path of the meshplan executable shipped inside this package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "meshplan")


def _options(opts):
    args = []
    for key, value in opts.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args.append(flag)
            args.extend(str(v) for v in value)
        else:
            args.extend([flag, str(value)])
    return args


def run(*args):
    """Runs meshplan with `args` plus --json; returns the parsed JSON."""
    done = subprocess.run([binary(), *args, "--json"], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise MeshplanError(done.returncode, done.stderr.strip() or done.stdout.strip())
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise MeshplanError(done.returncode, done.stderr.strip() or str(error)) from error


def check(path, **opts):
    """`meshplan check PATH`: the findings of a launch script, YAML config or overrides file."""
    return run("check", os.fspath(path), *_options(opts))


def plan(**opts):
    """`meshplan plan`: e.g. plan(model="qwen2.5-7b-instruct", cluster="2x8xH100-80GB")."""
    return run("plan", *_options(opts))


def estimate(**opts):
    """`meshplan estimate`: memory and step time of one strategy."""
    return run("estimate", *_options(opts))


def diagnose(paths, **opts):
    """`meshplan diagnose LOG...`: the failure in a run's logs (one path or a list)."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    return run("diagnose", *(os.fspath(p) for p in paths), *_options(opts))


def main():
    """The `meshplan` console script: the binary with this process's arguments."""
    exe = binary()
    os.execv(exe, [exe, *sys.argv[1:]])
