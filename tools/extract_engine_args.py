#!/usr/bin/env python3
"""Rewrites the "arguments" of data/verl/engine_args.json at each release listed in the table's
"versions", read with `ast` from git checkouts (nothing is run): for SGLang the fields of ServerArgs
(verl builds ServerArgs from engine_kwargs.sglang); for vLLM the options of `vllm serve` (verl turns
engine_kwargs.vllm into its command line): the fields of EngineArgs, AsyncEngineArgs and FrontendArgs
and the options the serve parser adds itself. Each name gets the type of the newest version that has
it and "since"/"until" labels when not every version listed has it.

usage: tools/extract_engine_args.py TABLE GIT_DIR... > new_table.json
A version whose commit none of the GIT_DIRs has keeps the fields the table already gives it.
"""
import ast
import json
import subprocess
import sys

VLLM_CLI = "vllm/entrypoints/openai/cli_args.py"
ENGINES = {
    "vllm": {
        # (file, dataclass, required): the dataclasses whose fields are options
        "classes": [("vllm/engine/arg_utils.py", "EngineArgs", True),
                    ("vllm/engine/arg_utils.py", "AsyncEngineArgs", True), (VLLM_CLI, "FrontendArgs", False)],
        # files whose parser.add_argument("--name", ...) calls add options (deprecated ones too)
        "argparse": ["vllm/engine/arg_utils.py", VLLM_CLI, "vllm/entrypoints/cli/serve.py"],
        # files whose module-level type aliases and enums the annotations use
        "aliases": ["vllm/config", "vllm/config.py", "vllm/utils", "vllm/utils.py",
                    "vllm/transformers_utils/config.py",
                    "vllm/model_executor/layers/quantization/__init__.py",
                    "vllm/model_executor/model_loader/__init__.py"],
    },
    "sglang": {"classes": [("python/sglang/srt/server_args.py", "ServerArgs", True)], "argparse": [],
               "aliases": []},
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


def dataclass_fields(module, name, annotations):
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return {stmt.target.id: annotations.type_of(stmt.annotation) for stmt in node.body
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                    and not stmt.target.id.startswith("_") and "ClassVar" not in ast.dump(stmt.annotation)}
    return None


def argparse_options(module):
    """name -> type of every add_argument("--name", ...) call: bool for flags, int/float when the
    type= says so, any otherwise."""
    options = {}
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        long_flags = [f for f in flags if f.startswith("--")]
        if not long_flags:
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        name = long_flags[0][2:].replace("-", "_")
        if isinstance(keywords.get("dest"), ast.Constant):
            name = keywords["dest"].value
        action = ast.dump(keywords.get("action", ast.Constant(None)))
        kind = getattr(keywords.get("type"), "id", "")
        if "store_true" in action or "store_false" in action or "BooleanOptionalAction" in action:
            options[name] = "bool"
        else:
            options[name] = kind if kind in ("int", "float") else "any"
    return options


def read_fields(git_dir, commit, engine):
    spec = ENGINES[engine]

    def module(path):
        text = git(git_dir, "show", f"{commit}:{path}").stdout
        return ast.parse(text.lstrip("\ufeff")) if text else None

    files = []
    if spec["aliases"]:
        files = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", *spec["aliases"]).stdout.split()
    sources = {path: module(path) for path, _, _ in spec["classes"]}
    alias_modules = [module(f) for f in files if f.endswith(".py")]
    annotations = Annotations([m for m in sources.values() if m] + alias_modules)
    fields = {}
    for path in spec["argparse"]:
        parsed = module(path)
        fields.update(argparse_options(parsed) if parsed else {})
    for path, name, required in spec["classes"]:
        found = dataclass_fields(sources[path], name, annotations) if sources[path] else None
        if found is None and required:
            raise SystemExit(f"{engine}: no class {name} in {path} at {commit}")
        fields.update(found or {})  # a dataclass field's annotation wins over an option's type= guess
    return fields


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
        lines += [f'  "{key}": {json.dumps(value)},' for key, value in table.items()
                  if key not in ("versions", "arguments")]
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
