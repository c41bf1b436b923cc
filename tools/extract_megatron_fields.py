#!/usr/bin/env python3
"""Writes data/verl/megatron_core_fields.json: the dataclass field names and types of
Megatron-core's TransformerConfig (with its base ModelParallelConfig), OptimizerConfig and
DistributedDataParallelConfig, read with `ast` from a Megatron-LM git checkout (nothing is run).

usage: tools/extract_megatron_fields.py GIT_DIR COMMIT > data/verl/megatron_core_fields.json
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


def main() -> None:
    git_dir, commit = sys.argv[1], sys.argv[2]
    version = subprocess.check_output(["git", "--git-dir", git_dir, "show",
                                       f"{commit}:megatron/core/package_info.py"], text=True)
    numbers = dict(re.findall(r"^(MAJOR|MINOR|PATCH) = (\d+)", version, re.M))
    result = {"source": f"NVIDIA/Megatron-LM@{commit}",
              "megatron_core_version": f"{numbers['MAJOR']}.{numbers['MINOR']}.{numbers['PATCH']}"}
    for table, specs in FILES.items():
        merged = {}
        for spec in specs:
            merged.update(fields(git_dir, commit, spec))
        result[table] = dict(sorted(merged.items()))
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
