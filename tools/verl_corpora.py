#!/usr/bin/env python3
"""Re-runs the measurement of docs/verl-corpora.md: `meshplan check` on the launch scripts of
third-party research repositories built on verl (tools/verl_corpora.tsv: repository, commit,
script, the verl package it vendors, and the recorded exit code, errors and warnings).

For each row a checkout-like folder is laid out from git mirrors (nothing is cloned, imported or
run): the script at its path, the vendored verl package at its place (a submodule's under
`verl/`) with the recipe/ trainer configs next to it, the repository's *.yaml files, its Hydra entry points (*.py with @hydra.main)
and a vendored engine's argument file, a `.git` marker at the root. `meshplan check SCRIPT` then runs there with no flag, as a
user would in that repository, and finds the vendored verl next to the script.

usage: tools/verl_corpora.py MIRRORS MESHPLAN [TSV]
  MIRRORS   a folder of git mirrors named owner+name (bare, or with the git directory in repo/)
  MESHPLAN  the meshplan binary
Prints one line per script that differs from the recorded verdict; exit 1 if any does.
"""
import io
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile


def git_dir(mirrors: pathlib.Path, repo: str) -> pathlib.Path:
    base = mirrors / repo.replace("/", "+")
    return base / "repo" if (base / "repo").is_dir() else base


def export(git: pathlib.Path, commit: str, path: str, into: pathlib.Path) -> None:
    archive = subprocess.run(["git", "--git-dir", str(git), "archive", commit, path],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def lay_out(mirrors: pathlib.Path, row: list, root: pathlib.Path) -> None:
    repo, commit, script, package = row[:4]
    git = git_dir(mirrors, repo)
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").write_text("gitdir: none\n")
    text = subprocess.run(["git", "--git-dir", str(git), "show", f"{commit}:{script}"],
                          check=True, capture_output=True).stdout
    (root / script).parent.mkdir(parents=True, exist_ok=True)
    (root / script).write_bytes(text)
    # A marker, not the package directory: a script that lives under the package (knapsack_async's
    # verl/experimental/fully_async_policy/shell/) has created that directory already.
    exported = root / (".exported-" + re.sub(r"[^A-Za-z0-9]+", "_", package))
    if package == "-" or exported.exists():
        return
    submodule = re.fullmatch(r"([^@]+)@([0-9a-f]+):(.+)", package)
    if submodule:  # a submodule named verl holding that repository
        export(git_dir(mirrors, submodule.group(1)), submodule.group(2), submodule.group(3), root / "verl")
    else:
        export(git, commit, package, root)
        # The one-step-off and fully-async trainers' configs of verl before v0.8 live in recipe/
        # next to the package (check reads them from there).
        parent = str(pathlib.PurePosixPath(package).parent)
        for trainer in ("one_step_off_policy", "fully_async_policy"):
            config = str(pathlib.PurePosixPath(parent) / "recipe" / trainer / "config")
            listed = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "--name-only", commit, config + "/"],
                                    capture_output=True, text=True).stdout
            if listed.strip():
                export(git, commit, config, root)
    # The repository's own Hydra configs (a launch's --config-path) and a vendored engine's
    # argument dataclass (check reads both).
    yaml = subprocess.run(["git", "--git-dir", str(git), "archive", commit, "--", ":(glob)**/*.yaml"],
                          capture_output=True).stdout
    if yaml:
        with tarfile.open(fileobj=io.BytesIO(yaml)) as tar:
            tar.extractall(root, filter="data")
    # The repository's own Hydra entry points (a fork's recipe.dapo.main_dapo) with the *.py of their
    # top-level package: check reads their @hydra.main config and the names their package registers.
    entries = subprocess.run(["git", "--git-dir", str(git), "grep", "-l", "@hydra.main", commit, "--", "*.py"],
                             capture_output=True, text=True).stdout.split()
    for directory in sorted({(pathlib.PurePosixPath(entry.split(":", 1)[1]).parts[:-1] or (".",))[0]
                             for entry in entries}):
        pattern = "**/*.py" if directory == "." else directory + "/**/*.py"
        sources = subprocess.run(["git", "--git-dir", str(git), "archive", commit, "--", f":(glob){pattern}"],
                                 capture_output=True).stdout
        if sources:
            with tarfile.open(fileobj=io.BytesIO(sources)) as tar:
                members = [m for m in tar.getmembers() if not (root / m.name).exists()]
                tar.extractall(root, members=members, filter="data")
    for engine_file in ("sglang/python/sglang/srt/server_args.py", "vllm/vllm/engine/arg_utils.py"):
        text = subprocess.run(["git", "--git-dir", str(git), "show", f"{commit}:{engine_file}"], capture_output=True)
        if text.returncode == 0:
            (root / engine_file).parent.mkdir(parents=True, exist_ok=True)
            (root / engine_file).write_bytes(text.stdout)
    exported.write_text("")


def main() -> int:
    mirrors, meshplan = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]).resolve()
    tsv = pathlib.Path(sys.argv[3] if len(sys.argv) > 3 else pathlib.Path(__file__).with_name("verl_corpora.tsv"))
    rows = [line.split("\t") for line in tsv.read_text().splitlines() if line and not line.startswith("#")]
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            # One tree per repository and commit: two rows of a repository at different commits
            # vendor different verls.
            root = pathlib.Path(tmp) / (row[0].replace("/", "+") + "@" + row[1][:12])
            lay_out(mirrors, row, root)
            run = subprocess.run([str(meshplan), "check", row[2]], cwd=root, capture_output=True, text=True)
            output = run.stdout + run.stderr
            got = [str(run.returncode), str(len(re.findall(r": error\[", output))),
                   str(len(re.findall(r": warning\[", output)))]
            if got != row[4:7]:
                differ += 1
                print(f"{row[0]} {row[2]}: exit/errors/warnings {'/'.join(got)}, recorded {'/'.join(row[4:7])}")
    print(f"{len(rows)} scripts, {differ} differ from the record")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
