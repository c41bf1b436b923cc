#!/usr/bin/env python3
"""Writes one text file holding verl's example launch scripts at one commit, unchanged: every
examples/**/*.sh, recipe/**/*.sh, verl/experimental/**/*.sh (the one-step-off trainer's
scripts since main@b178a3cd) and tests/**/*.sh (the launches verl's own CI runs, CUDA and Ascend)
that names main_ppo or the fully-async trainer's fully_async_main (the corpus
tests/verl/example_corpora_test.cpp checks). Nothing is run; scripts are read with `git show`.

usage: tools/bundle_verl_examples.py VERL_GIT_DIR REF > tests/fixtures/verl/examples/<name>.bundle
       tools/bundle_verl_examples.py --repo verl-project/verl-recipe GIT_DIR REF > ...
         (another repository of verl launches, e.g. the verl-recipe submodule verl pins: every *.sh
         of the tree naming main_ppo)
Each script follows a line "#### bundled: <path>"; the header names the repository and the full commit.
"""
import subprocess
import sys


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True,
                          text=True).stdout


def main():
    args = sys.argv[1:]
    repo = "verl-project/verl"
    if args[0] == "--repo":
        repo, args = args[1], args[2:]
    git_dir, ref = args[0], args[1]
    commit = git(git_dir, "rev-parse", f"{ref}^{{commit}}").strip()
    folders = ["examples", "recipe", "verl/experimental", "tests"] if repo == "verl-project/verl" else ["."]
    paths = [p for p in git(git_dir, "ls-tree", "-r", "--name-only", commit, *folders).split() if p.endswith(".sh")]
    what = ("every examples/, recipe/, verl/experimental/ and tests/ *.sh naming main_ppo or fully_async_main,"
            if repo == "verl-project/verl" else "every *.sh naming main_ppo or fully_async_main,")
    out = [f"# verl launch scripts at https://github.com/{repo}/tree/{commit}",
           f"# (Apache-2.0), unchanged: {what}",
           "# each after its '#### bundled: <path>' line. Written by tools/bundle_verl_examples.py."]
    for path in sorted(paths):
        text = git(git_dir, "show", f"{commit}:{path}")
        if "main_ppo" not in text and "fully_async_main" not in text:
            continue
        assert "\n#### bundled: " not in "\n" + text, path
        out.append(f"#### bundled: {path}")
        out.append(text if text.endswith("\n") else text + "\n")
    sys.stdout.write("".join(line if line.endswith("\n") else line + "\n" for line in out))


if __name__ == "__main__":
    main()
