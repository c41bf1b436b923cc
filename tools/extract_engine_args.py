#!/usr/bin/env python3
"""Rewrites the "arguments" of data/verl/engine_args.json: the dataclass fields (name, type) of
vLLM's EngineArgs and SGLang's ServerArgs at each release listed in the table's "versions", read with
`ast` from git checkouts (nothing is run). Each field gets the type of the newest version that has
it and "since"/"until" labels when not every version listed has it.

usage: tools/extract_engine_args.py TABLE GIT_DIR... > new_table.json
A version whose commit none of the GIT_DIRs has keeps the fields the table already gives it.
"""
import ast
import json
import subprocess
import sys

ENGINES = {  # dataclass, its file, files whose module-level aliases and enums its annotations use
    "vllm": ("EngineArgs", "vllm/engine/arg_utils.py",
             ["vllm/config", "vllm/config.py", "vllm/utils", "vllm/utils.py",
              "vllm/transformers_utils/config.py",
              "vllm/model_executor/layers/quantization/__init__.py",
              "vllm/model_executor/model_loader/__init__.py"]),
    "sglang": ("ServerArgs", "python/sglang/srt/server_args.py", []),
}
SCALARS = {"bool": "bool", "int": "int", "float": "float", "str": "str", "list": "list", "List": "list",
           "tuple": "list", "Tuple": "list", "set": "list", "Set": "list", "dict": "dict", "Dict": "dict"}


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True)


class Annotations:
    """Maps an annotation to bool|int|float|str|list|dict|any, with '?' when None is allowed."""

    def __init__(self, modules):
        self.aliases, self.enums, self.expanding = {}, set(), set()
        for module in modules:
            for stmt in module.body:
                if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)):
                    self.aliases.setdefault(stmt.targets[0].id, stmt.value)
                elif (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value
                      and "TypeAlias" in ast.dump(stmt.annotation)):
                    self.aliases.setdefault(stmt.target.id, stmt.value)
                elif isinstance(stmt, ast.ClassDef) and any("Enum" in ast.dump(b) for b in stmt.bases):
                    self.enums.add(stmt.name)

    def kinds(self, node):
        """The set of kinds a value may have ('null' for None, 'other' for a class)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return {"any"}
        if isinstance(node, ast.Constant):
            return {"null"} if node.value is None else {type(node.value).__name__}
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in SCALARS:
                return {SCALARS[name]}
            if name in self.enums:  # passed by value, a string
                return {"str"}
            if name in self.aliases and name not in self.expanding:
                self.expanding.add(name)
                try:
                    return self.kinds(self.aliases[name])
                finally:
                    self.expanding.discard(name)
            return {"other"}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.kinds(node.left) | self.kinds(node.right)
        if isinstance(node, ast.Subscript):
            head = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head == "Optional":
                return self.kinds(items[0]) | {"null"}
            if head == "Literal":  # Literal["auto", ...] holds values, not annotations
                return set().union(*(self.literal_kinds(item) for item in items))
            if head == "Union":
                return set().union(*(self.kinds(item) for item in items))
            if head in ("Annotated", "A"):  # SGLang's A is Annotated
                return self.kinds(items[0])
            return self.kinds(node.value)
        return {"any"}

    def literal_kinds(self, node):
        if isinstance(node, ast.Constant):
            return {"null"} if node.value is None else {type(node.value).__name__}
        return self.kinds(node)  # an alias of another Literal

    def type_of(self, node):
        kinds = self.kinds(node)
        nullable = "null" in kinds
        kinds -= {"null"}
        if kinds == {"int", "float"}:
            kinds = {"float"}
        if len(kinds) != 1 or kinds & {"any", "other"}:
            return "any"
        return kinds.pop() + ("?" if nullable else "")


def read_fields(git_dir, commit, engine):
    dataclass, path, alias_paths = ENGINES[engine]
    files = []
    if alias_paths:
        files = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", *alias_paths).stdout.split()
    modules = [ast.parse(git(git_dir, "show", f"{commit}:{f}").stdout) for f in files if f.endswith(".py")]
    source = ast.parse(git(git_dir, "show", f"{commit}:{path}").stdout)
    annotations = Annotations([source] + modules)
    fields = {}
    for node in ast.walk(source):
        if isinstance(node, ast.ClassDef) and node.name == dataclass:
            for stmt in node.body:
                if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                    continue
                if stmt.target.id.startswith("_") or "ClassVar" in ast.dump(stmt.annotation):
                    continue
                fields[stmt.target.id] = annotations.type_of(stmt.annotation)
            return fields
    raise SystemExit(f"{engine}: no class {dataclass} in {path} at {commit}")


def fields_of_version(table, engine, index, git_dirs):
    commit = table["versions"][index]["commit"]
    for git_dir in git_dirs:
        if git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0:
            return read_fields(git_dir, commit, engine)
    labels = [v["label"] for v in table["versions"]]
    kept = {}
    for name, entry in table["arguments"].items():
        first = labels.index(entry.get("since", labels[0]))
        last = labels.index(entry.get("until", labels[-1]))
        if first <= index <= last:
            kept[name] = entry["type"]
    return kept


def main():
    table_path, git_dirs = sys.argv[1], sys.argv[2:]
    tables = json.load(open(table_path))
    for engine, table in tables.items():
        labels = [v["label"] for v in table["versions"]]
        per_version = [fields_of_version(table, engine, i, git_dirs) for i in range(len(labels))]
        arguments = {}
        for name in sorted(set().union(*per_version)):
            present = [i for i, fields in enumerate(per_version) if name in fields]
            if present != list(range(present[0], present[-1] + 1)):
                raise SystemExit(f"{engine}.{name}: in {[labels[i] for i in present]}, not one range")
            entry = {"type": per_version[present[-1]][name]}
            if present[0] > 0:
                entry["since"] = labels[present[0]]
            if present[-1] < len(labels) - 1:
                entry["until"] = labels[present[-1]]
            arguments[name] = entry
        table["arguments"] = arguments
        for label, fields in zip(labels, per_version):
            print(f"{engine} {label}: {len(fields)} fields", file=sys.stderr)
    # One field or version per line.
    lines = ["{"]
    for e, (engine, table) in enumerate(tables.items()):
        lines.append(f' "{engine}": {{')
        lines += [f'  "{key}": {json.dumps(table[key])},' for key in ("library", "dataclass", "source")]
        lines.append('  "versions": [')
        lines.append(",\n".join("   " + json.dumps(v) for v in table["versions"]))
        lines.append("  ],")
        lines.append('  "arguments": {')
        arguments = table["arguments"].items()
        lines.append(",\n".join(f"   {json.dumps(n)}: {json.dumps(a)}" for n, a in arguments))
        lines.append("  }")
        lines.append(" }" + ("," if e + 1 < len(tables) else ""))
    lines.append("}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
