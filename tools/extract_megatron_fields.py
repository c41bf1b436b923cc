#!/usr/bin/env python3
"""Writes data/verl/megatron_core_fields.json: the dataclass field names and types of
Megatron-core's TransformerConfig (with its base ModelParallelConfig), OptimizerConfig and
DistributedDataParallelConfig, read with `ast` from a Megatron-LM git checkout (nothing is run), at
several releases: each field is its type at the newest release that has it, or {"type", "since"?,
"until"?} (labels of the first and last release read that has it) when some releases read lack it.

usage: tools/extract_megatron_fields.py GIT_DIR REF... > data/verl/megatron_core_fields.json
  REF oldest first: release tags (core_v0.12.3 ...), then optionally a branch commit (labelled
  main@<commit>).
"""
import ast
import json
import re
import subprocess
import sys

FILES = {
    "transformer_config": ["megatron/core/model_parallel_config.py:ModelParallelConfig",
                           "megatron/core/transformer/transformer_config.py:TransformerConfig",
                           "megatron/core/transformer/transformer_config.py:MLATransformerConfig"],
    "optimizer_config": ["megatron/core/optimizer/optimizer_config.py:OptimizerConfig"],
    "ddp_config": ["megatron/core/distributed/distributed_data_parallel_config.py:"
                   "DistributedDataParallelConfig"],
}


def simple_type(annotation: str) -> str:
    """Maps a Python annotation to int|float|bool|str|list|dict|any, '?' suffix when Optional."""
    nullable = "Optional" in annotation or "None" in annotation
    m = re.sub(r"Optional\[(.*)\]", r"\1", annotation)
    m = m.replace(" ", "")
    kinds = set()
    for part in re.split(r"[|,]|Union\[", m):
        part = part.strip("[] ")
        if part in ("int",): kinds.add("int")
        elif part in ("float",): kinds.add("float")
        elif part in ("bool",): kinds.add("bool")
        elif part in ("str",) or part.startswith("Literal"): kinds.add("str")
        elif part.startswith(("List", "list", "Tuple", "tuple")): kinds.add("list")
        elif part.startswith(("Dict", "dict")): kinds.add("dict")
    if m.startswith(("List", "list", "Tuple", "tuple")):
        kinds = {"list"}
    if m.startswith(("Dict", "dict")):
        kinds = {"dict"}
    if kinds == {"int", "float"}:
        kinds = {"float"}
    kind = kinds.pop() if len(kinds) == 1 else "any"
    return kind + ("?" if nullable else "")


def fields(git_dir: str, commit: str, spec: str) -> dict:
    path, cls = spec.split(":")
    source = subprocess.check_output(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], text=True)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            out = {}
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    name = stmt.target.id
                    if not name.startswith("_"):
                        out[name] = simple_type(ast.unparse(stmt.annotation))
            return out
    raise SystemExit(f"{cls} not found in {path}")


def core_version(git_dir: str, ref: str) -> str:
    text = subprocess.check_output(["git", "--git-dir", git_dir, "show",
                                    f"{ref}:megatron/core/package_info.py"], text=True)
    numbers = dict(re.findall(r"^(MAJOR|MINOR|PATCH) = (\d+)", text, re.M))
    return f"{numbers['MAJOR']}.{numbers['MINOR']}.{numbers['PATCH']}"


def read_version(git_dir: str, ref: str) -> tuple:
    commit = subprocess.check_output(["git", "--git-dir", git_dir, "rev-parse", f"{ref}^{{commit}}"],
                                     text=True).strip()
    version = core_version(git_dir, ref)
    # The tag names the release (core_v0.19.0's package_info.py already says 0.19.1).
    label = ref.removeprefix("core_v") if ref.startswith("core_v") else f"main@{commit[:8]}"
    tables = {}
    for table, specs in FILES.items():
        tables[table] = {}
        for spec in specs:
            tables[table].update(fields(git_dir, ref, spec))
    return {"label": label, "ref": ref, "commit": commit, "megatron_core_version": version}, tables


def main() -> None:
    git_dir, refs = sys.argv[1], sys.argv[2:]
    read = [read_version(git_dir, ref) for ref in refs]
    versions = [info for info, _ in read]
    newest = versions[-1]
    result = {"source": f"NVIDIA/Megatron-LM at {', '.join(v['ref'] for v in versions[:-1])} and "
                        f"{newest['commit'][:8]}",
              "megatron_core_version": newest["megatron_core_version"],
              "versions": versions}
    for table in FILES:
        merged = {}
        for name in sorted({name for _, tables in read for name in tables[table]}):
            present = [i for i, (_, tables) in enumerate(read) if name in tables[table]]
            type_ = read[present[-1]][1][table][name]
            if len(present) == len(read):
                merged[name] = type_
                continue
            entry = {"type": type_}
            if present[0] > 0:
                entry["since"] = versions[present[0]]["label"]
            if present[-1] < len(read) - 1:
                entry["until"] = versions[present[-1]]["label"]
            merged[name] = entry
        result[table] = merged
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
