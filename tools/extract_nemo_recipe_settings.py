#!/usr/bin/env python3
"""Recipe settings of the NeMo performance-summary rows, read from Megatron-Bridge's own source.

For every row of tests/fixtures/published_runs_nemo_archive.json and the nemo_bridge_25.11_h100_*
rows of tests/fixtures/published_runs.json this resolves the settings the published tables leave
out (activation recomputation, Megatron-FSDP, CPU offloading, MoE token dispatcher, CUDA graphs,
MoE all-to-all overlap, sequence parallel, FP8 recipe, fusions, TP communication overlap, pipeline
layout ...) at the Megatron-Bridge release that shipped in the row's NeMo container.

Nothing is imported or executed from Megatron-Bridge. The script reads the bare git mirror with
`git show` and walks the Python source with the `ast` module through a small abstract
interpreter: it follows the same call chain as scripts/performance/run_script.py (argument
defaults parsed from argument_parser.py, the per-GPU perf recipe, the WorkloadBaseConfig presets,
the library recipe in src/megatron/bridge/recipes, the model bridge / provider, and the
Megatron-Core dataclass defaults at the Megatron-LM commit pinned as the 3rdparty/Megatron-LM
submodule of that tag). Every attribute assignment is recorded with the file and line of the
statement that made it and of the literal that supplied the value. Only a handful of calls are
stubbed (argparse, the Hugging Face config behind AutoBridge, the CUDA device query, package
scanning with pkgutil); they are listed in STUBS below.

    python3 tools/extract_nemo_recipe_settings.py \
        [--mirror /work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo] \
        [--megatron-lm /work/.mirror/NVIDIA+Megatron-LM/repo] \
        > tests/fixtures/nemo_recipe_settings.json

Without the Megatron-LM mirror the Megatron-Core defaults are left unresolved (notes say so).
"""

import argparse
import ast
import copy
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MIRROR = "/work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo"
DEFAULT_MLM_MIRROR = "/work/.mirror/NVIDIA+Megatron-LM/repo"
SUMMARY_COMMIT = "067f987df03b8355b03192d88d70f1709fedf51a"  # docs commit the fixture rows were read from

# --------------------------------------------------------------------------------------------
# NeMo container -> Megatron-Bridge release. Evidence is re-checked against the mirror at run time
# (the quoted lines must be present at SUMMARY_COMMIT), see check_release_evidence().
# --------------------------------------------------------------------------------------------
RELEASES = {
    "25.11": "v0.2.0",
    "26.02": "v0.3.0",
    "26.02.01": "v0.3.1",
    "26.04": "v0.4.0",
    "26.04.01": "v0.4.2",
    "26.06": "v0.5.0",
    "26.06.01": "v0.5.1",
    "26.08": "v0.6.0",
}
RELEASE_EVIDENCE = {
    # (file at SUMMARY_COMMIT, regex that must match one line)
    "25.11": [("docs/versions1.json", r'"name": "0\.2\.0 · 25\.11"'),
              ("docs/releases/software-versions.md", r"^## NeMo Framework 25\.11$")],
    "26.02": [("docs/versions1.json", r'"name": "0\.3\.0 · 26\.02"'),
              ("docs/releases/software-versions.md", r"^## NeMo Framework 26\.02$")],
    "26.02.01": [("docs/versions1.json", r'"name": "0\.3\.1 · 26\.02\.01"'),
                 ("docs/releases/known-issues.md", r"Fixed in 26\.02\.01 \(r0\.3\.1\)")],
    "26.04": [("docs/versions1.json", r'"name": "0\.4\.0 · 26\.04"'),
              ("docs/releases/software-versions.md", r"^## NeMo Framework 26\.04$")],
    "26.04.01": [("docs/versions1.json", r'"name": "0\.4\.2 · 26\.04\.01"'),
                 ("docs/fern/docs.yml", r"display-name: 0\.4\.2 \(latest\) · 26\.04\.01")],
    "26.06": [("docs/versions1.json", r'"name": "0\.5\.0 · 26\.06"'),
              ("docs/releases/software-versions.md", r"^## NeMo Framework 26\.06$")],
    "26.06.01": [("docs/versions1.json", r'"name": "0\.5\.1 \(latest\) · 26\.06\.01"')],
    "26.08": [("docs/versions1.json", r'"name": "0\.6\.0 \(latest\) · 26\.08"')],
}
# software-versions.md states "| Megatron-Bridge | 0.x.0 |" inside each "## NeMo Framework" section;
# check_release_evidence() reads that table too and reports it.

SYSTEM_GPU = {"DGX-H100": "h100", "DGX-B200": "b200", "DGX-B300": "b300", "DGX-GB200": "gb200",
              "DGX-GB300": "gb300"}
# Simulated torch.cuda.get_device_properties(0) for the device checks in
# src/megatron/bridge/training/flex_dispatcher_backend.py (compute capability and marketing name).
DEVICE = {"h100": (9, 0, "NVIDIA H100 80GB HBM3"), "b200": (10, 0, "NVIDIA B200"),
          "b300": (10, 3, "NVIDIA B300"), "gb200": (10, 0, "NVIDIA GB200"), "gb300": (10, 3, "NVIDIA GB300")}
# Table precision -> --compute_dtype of scripts/performance/argument_parser.py. The 26.x tables write
# "FP8" for the current-scaling recipe on Hopper/Blackwell Llama and Qwen rows; 25.11 writes FP8-CS.
PRECISION = {"BF16": "bf16", "FP8-CS": "fp8_cs", "FP8": "fp8_cs", "MXFP8": "fp8_mx", "NVFP4": "nvfp4"}
# fixture model_name -> (v0.2.x model_name, v0.2.x model_size, v0.3+ model_family_name, model_recipe_name)
MODELS = {
    "LLAMA3_8B": ("llama3", "8b", "llama", "llama3_8b"),
    "LLAMA3_70B": ("llama3", "70b", "llama", "llama3_70b"),
    "LLAMA3.1_405B": ("llama31", "405b", "llama", "llama31_405b"),
    "DeepSeekV3": ("deepseek", "v3", "deepseek", "deepseek_v3"),
    "GPT_OSS_120B": ("gpt_oss", "120b", "gpt_oss", "gpt_oss_120b"),
    "GPT OSS 120B": ("gpt_oss", "120b", "gpt_oss", "gpt_oss_120b"),
    "Qwen3_30B_a3B": ("qwen3", "30b_a3b", "qwen", "qwen3_30b_a3b"),
    "Qwen3_235B_a22B": ("qwen3", "235b_a22b", "qwen", "qwen3_235b_a22b"),
    "Nemotron_3_Nano": ("nemotronh", "nemotron_3_nano", "nemotronh", "nemotron_3_nano"),
    "Nemotron_3_Super": ("nemotronh", "nemotron_3_super", "nemotronh", "nemotron_3_super"),
}
# AutoBridge.from_hf_pretrained(<id>) needs the Hugging Face config.json, which is not in the repo.
# The stub instantiates the registered bridge class for that architecture and interprets its
# provider_bridge() with an opaque config: architecture numbers stay unknown, every constant the
# bridge (and the provider dataclass) sets is kept.  (module, class) of the bridge per HF id prefix:
HF_BRIDGES = [
    (r"^Qwen/Qwen3-\d+B-A\d+B", "megatron.bridge.models.qwen.qwen3_moe_bridge", "Qwen3MoEBridge"),
    (r"^deepseek-ai/DeepSeek-V3", "megatron.bridge.models.deepseek.deepseek_v3_bridge", "DeepSeekV3Bridge"),
    (r"^openai/gpt-oss", "megatron.bridge.models.gpt_oss.gpt_oss_bridge", "GPTOSSBridge"),
    (r"^meta-llama/", "megatron.bridge.models.llama.llama_bridge", "LlamaBridge"),
    (r"^nvidia/NVIDIA-Nemotron-3-", "megatron.bridge.models.nemotronh.nemotron_h_bridge", "NemotronHBridge"),
]
# Published Hugging Face config.json values the bridges read; only used so that MoE-only branches
# (num_moe_experts checks, MTP depth) resolve. They never appear as reported settings.
HF_FACTS = [
    (r"^Qwen/Qwen3-30B-A3B", {"num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48}),
    (r"^Qwen/Qwen3-235B-A22B", {"num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 94}),
    (r"^deepseek-ai/DeepSeek-V3", {"n_routed_experts": 256, "num_nextn_predict_layers": 1,
                                   "first_k_dense_replace": 3, "num_hidden_layers": 61}),
    (r"^openai/gpt-oss-120b", {"num_local_experts": 128, "num_hidden_layers": 36}),
    (r"^nvidia/NVIDIA-Nemotron-3-Super-120B-A12B", {"n_routed_experts": 512, "num_nextn_predict_layers": 1,
                                                    "mtp_hybrid_override_pattern": "*E",
                                                    "moe_latent_size": 1024, "num_hidden_layers": 88}),
    (r"^meta-llama/Meta-Llama-3-", {"rope_scaling": None}),
    (r"^meta-llama/(Meta-)?Llama-3\.1-", {"rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0,
                                                          "high_freq_factor": 4.0,
                                                          "original_max_position_embeddings": 8192,
                                                          "rope_type": "llama3"}}),
]
STUBS = """argparse (defaults parsed from argument_parser.py); AutoBridge.from_hf_pretrained(...).to_megatron_provider()
(bridge provider_bridge() interpreted with an opaque HF config); torch.cuda.get_device_properties (per GPU, see DEVICE);
pkgutil scan in find_perf_recipe (v0.6.0: the function is located by name under src/megatron/bridge/perf_recipes);
pretrain() (captures the final ConfigContainer); __post_init__/finalize() of config dataclasses are not run."""

# The settings reported per row: name -> attribute path on the final ConfigContainer.
SETTINGS = [
    ("tensor_model_parallel_size", "model.tensor_model_parallel_size"),
    ("pipeline_model_parallel_size", "model.pipeline_model_parallel_size"),
    ("context_parallel_size", "model.context_parallel_size"),
    ("expert_model_parallel_size", "model.expert_model_parallel_size"),
    ("expert_tensor_parallel_size", "model.expert_tensor_parallel_size"),
    ("virtual_pipeline_model_parallel_size", "model.virtual_pipeline_model_parallel_size"),
    ("micro_batch_size", "train.micro_batch_size"),
    ("global_batch_size", "train.global_batch_size"),
    ("seq_length", "model.seq_length"),
    ("sequence_parallel", "model.sequence_parallel"),
    ("recompute_granularity", "model.recompute_granularity"),
    ("recompute_method", "model.recompute_method"),
    ("recompute_num_layers", "model.recompute_num_layers"),
    ("recompute_modules", "model.recompute_modules"),
    ("use_megatron_fsdp", "ddp.use_megatron_fsdp"),
    ("data_parallel_sharding_strategy", "ddp.data_parallel_sharding_strategy"),
    ("use_torch_fsdp2", "dist.use_torch_fsdp2"),
    ("use_distributed_optimizer", "ddp.use_distributed_optimizer"),
    ("cpu_offloading", "model.cpu_offloading"),
    ("cpu_offloading_num_layers", "model.cpu_offloading_num_layers"),
    ("cpu_offloading_activations", "model.cpu_offloading_activations"),
    ("cpu_offloading_weights", "model.cpu_offloading_weights"),
    ("fine_grained_activation_offloading", "model.fine_grained_activation_offloading"),
    ("offload_modules", "model.offload_modules"),
    ("optimizer_cpu_offload", "optimizer.optimizer_cpu_offload"),
    ("optimizer_offload_fraction", "optimizer.optimizer_offload_fraction"),
    ("moe_token_dispatcher_type", "model.moe_token_dispatcher_type"),
    ("moe_flex_dispatcher_backend", "model.moe_flex_dispatcher_backend"),
    ("moe_hybridep_num_sms", "model.moe_hybridep_num_sms"),
    ("moe_shared_expert_overlap", "model.moe_shared_expert_overlap"),
    ("overlap_moe_expert_parallel_comm", "comm_overlap.overlap_moe_expert_parallel_comm"),
    ("delay_wgrad_compute", "comm_overlap.delay_wgrad_compute"),
    ("moe_a2a_overlap", "model.moe_a2a_overlap"),
    ("cuda_graph_impl", "model.cuda_graph_impl"),
    ("cuda_graph_scope", "model.cuda_graph_scope"),
    ("enable_cuda_graph", "model.enable_cuda_graph"),
    ("external_cuda_graph", "model.external_cuda_graph"),
    ("use_te_rng_tracker", "model.use_te_rng_tracker"),
    ("moe_permute_fusion", "model.moe_permute_fusion"),
    ("moe_router_fusion", "model.moe_router_fusion"),
    ("moe_grouped_gemm", "model.moe_grouped_gemm"),
    ("moe_router_force_load_balancing", "model.moe_router_force_load_balancing"),
    ("moe_paged_stash", "model.moe_paged_stash"),
    ("use_transformer_engine_op_fuser", "model.use_transformer_engine_op_fuser"),
    ("mtp_num_layers", "model.mtp_num_layers"),
    ("mtp_use_repeated_layer", "model.mtp_use_repeated_layer"),
    ("fp8", "mixed_precision.fp8"),
    ("fp8_recipe", "mixed_precision.fp8_recipe"),
    ("fp8_param_gather", "mixed_precision.fp8_param_gather"),
    ("fp4", "mixed_precision.fp4"),
    ("fp4_recipe", "mixed_precision.fp4_recipe"),
    ("fp4_param_gather", "mixed_precision.fp4_param_gather"),
    ("first_last_layers_bf16", "mixed_precision.first_last_layers_bf16"),
    ("num_layers_at_start_in_bf16", "mixed_precision.num_layers_at_start_in_bf16"),
    ("num_layers_at_end_in_bf16", "mixed_precision.num_layers_at_end_in_bf16"),
    ("fp8_dot_product_attention", "mixed_precision.fp8_dot_product_attention"),
    ("fp8_output_proj", "model.fp8_output_proj"),
    ("tp_comm_overlap", "comm_overlap.tp_comm_overlap"),
    ("overlap_grad_reduce", "ddp.overlap_grad_reduce"),
    ("overlap_param_gather", "ddp.overlap_param_gather"),
    ("overlap_param_gather_with_optimizer_step", "optimizer.overlap_param_gather_with_optimizer_step"),
    ("nccl_ub", "ddp.nccl_ub"),
    ("use_precision_aware_optimizer", "optimizer.use_precision_aware_optimizer"),
    ("main_grads_dtype", "optimizer.main_grads_dtype"),
    ("exp_avg_dtype", "optimizer.exp_avg_dtype"),
    ("exp_avg_sq_dtype", "optimizer.exp_avg_sq_dtype"),
    ("grad_reduce_in_fp32", "ddp.grad_reduce_in_fp32"),
    ("mixed_precision_grad_reduce_in_fp32", "mixed_precision.grad_reduce_in_fp32"),
    ("pipeline_model_parallel_layout", "model.pipeline_model_parallel_layout"),
    ("account_for_embedding_in_pipeline_split", "model.account_for_embedding_in_pipeline_split"),
    ("account_for_loss_in_pipeline_split", "model.account_for_loss_in_pipeline_split"),
    ("num_layers_in_first_pipeline_stage", "model.num_layers_in_first_pipeline_stage"),
    ("num_layers_in_last_pipeline_stage", "model.num_layers_in_last_pipeline_stage"),
]
# Settings that must be known (value or Megatron default) for a row to count as fully resolved.
CORE_SETTINGS = ["tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
                 "expert_model_parallel_size", "virtual_pipeline_model_parallel_size", "micro_batch_size",
                 "global_batch_size", "sequence_parallel", "recompute_granularity", "recompute_method",
                 "recompute_num_layers", "recompute_modules", "use_megatron_fsdp", "cpu_offloading",
                 "moe_token_dispatcher_type", "moe_flex_dispatcher_backend", "overlap_moe_expert_parallel_comm",
                 "cuda_graph_impl", "cuda_graph_scope", "moe_permute_fusion", "moe_router_fusion",
                 "moe_grouped_gemm", "fp8", "fp8_recipe", "tp_comm_overlap"]


# ============================================================================================
# git access
# ============================================================================================
class Git:
    def __init__(self, git_dir, label):
        self.git_dir, self.label = git_dir, label
        self.cache = {}

    def show(self, rev, path):
        """Contents of `path` at `rev` (what `git show rev:path` prints), or None; one cat-file process."""
        key = (rev, path)
        if key not in self.cache:
            if getattr(self, "_batch", None) is None:
                self._batch = subprocess.Popen(["git", "--git-dir", self.git_dir, "cat-file", "--batch"],
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self._batch.stdin.write(f"{rev}:{path}\n".encode())
            self._batch.stdin.flush()
            header = self._batch.stdout.readline().decode().split()
            if len(header) == 3 and header[1] == "blob":
                data = self._batch.stdout.read(int(header[2]))
                self._batch.stdout.read(1)
                self.cache[key] = data.decode("utf-8")
            else:
                if len(header) == 3:  # a tree or commit: skip its body
                    self._batch.stdout.read(int(header[2]) + 1)
                self.cache[key] = None
        return self.cache[key]

    def rev_parse(self, rev):
        if ("rev", rev) in self.cache:
            return self.cache[("rev", rev)]
        self.cache[("rev", rev)] = subprocess.run(["git", "--git-dir", self.git_dir, "rev-parse", rev + "^{commit}"],
                              capture_output=True, check=True, text=True).stdout.strip()
        return self.cache[("rev", rev)]

    def submodule_commit(self, rev, path):
        if ("sub", rev, path) in self.cache:
            return self.cache[("sub", rev, path)]
        out = subprocess.run(["git", "--git-dir", self.git_dir, "ls-tree", rev, path], capture_output=True,
                             check=True, text=True).stdout.split()
        self.cache[("sub", rev, path)] = out[2] if len(out) >= 3 else None
        return self.cache[("sub", rev, path)]

    def ls(self, rev, path):
        out = subprocess.run(["git", "--git-dir", self.git_dir, "ls-tree", "-r", "--name-only", rev, path],
                             capture_output=True, check=True, text=True).stdout
        return out.split()


# ============================================================================================
# values of the abstract interpreter
# ============================================================================================
class Unknown:
    """A value the source does not determine (external call, HF config, runtime state)."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return f"<unknown: {self.why}>"


class T:
    """A plain value together with the place where its literal was written."""
    __slots__ = ("v", "origin")

    def __init__(self, v, origin):
        self.v, self.origin = v, origin


def U(x):
    return x.v if isinstance(x, T) else x


def deep(x):
    x = U(x)
    if isinstance(x, list):
        return [deep(e) for e in x]
    if isinstance(x, tuple):
        return tuple(deep(e) for e in x)
    if isinstance(x, dict):
        return {U(k): deep(v) for k, v in x.items()}
    return x


def is_unknown(x):
    x = U(x)
    if isinstance(x, (Unknown, HFStub)):
        return True
    if isinstance(x, (list, tuple)):
        return any(is_unknown(e) for e in x)
    return False


def is_enum_class(klass):
    """A class whose bases name an Enum (enum.Enum, IntEnum, str + Enum ...)."""
    node = getattr(klass, "node", None)
    return node is not None and any(ast.unparse(b).split(".")[-1].endswith("Enum") for b in node.bases)


class InterpError(Exception):
    pass


class Raised(Exception):
    """An exception raised by interpreted code (value is the exception instance or class)."""

    def __init__(self, value, where):
        super().__init__(where)
        self.value, self.where = value, where


class ReturnEx(Exception):
    def __init__(self, value):
        self.value = value


class BreakEx(Exception):
    pass


class ContinueEx(Exception):
    pass


_AST_CACHE = {}


class SourceFile:
    def __init__(self, repo, path, text):
        self.repo, self.path = repo, path
        key = hashlib.sha1(text.encode("utf-8")).hexdigest()
        if key not in _AST_CACHE:
            _AST_CACHE[key] = ast.parse(text)
        self.tree = _AST_CACHE[key]  # shared read-only between commits with identical files

    def where(self, node):
        return f"{self.repo.label}:{self.path}:{getattr(node, 'lineno', 0)}"


class Repo:
    """One source tree at one commit (Megatron-Bridge tag or pinned Megatron-LM commit)."""

    def __init__(self, git, commit, label, roots):
        self.git, self.commit, self.label, self.roots = git, commit, label, roots
        self.files = {}

    def file(self, path):
        if path not in self.files:
            text = self.git.show(self.commit, path) if self.git else None
            self.files[path] = SourceFile(self, path, text) if text is not None else None
        return self.files[path]


class Module:
    def __init__(self, interp, name, src, is_pkg):
        self.interp, self.name, self.src, self.is_pkg = interp, name, src, is_pkg
        self.values = {}
        self.index = {}
        self.star = []
        self._build_index(src.tree.body, top=True)

    @property
    def package(self):
        return self.name if self.is_pkg else self.name.rpartition(".")[0]

    def _build_index(self, body, top):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.index[node.name] = node
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.index[n.id] = node
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.index[node.target.id] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    if a.name == "*":
                        self.star.append(node)
                    else:
                        key = a.asname or a.name.split(".")[0]
                        self.index.setdefault(key, node) if not top else self.index.__setitem__(key, node)
            elif isinstance(node, ast.Try):
                # import guards: the try body is indexed first, so its definitions win over the handlers'
                self._build_index(node.body, top=False)
                for h in node.handlers:
                    self._build_index(h.body, top=False)
            elif isinstance(node, ast.If):
                self._build_index(node.body, top=False)
                self._build_index(node.orelse, top=False)

    def lookup(self, name):
        if name in self.values:
            return self.values[name]
        node = self.index.get(name)
        if node is None:
            for imp in self.star:
                mod = self.interp.import_from_node(self, imp)
                if isinstance(mod, Module):
                    v = mod.lookup(name)
                    if not isinstance(v, Missing):
                        return v
            return MISSING
        self.values[name] = Unknown(f"recursive definition of {name}")
        try:
            v = self.interp.define(self, node, name)
        except (InterpError, Raised, RecursionError) as e:
            v = Unknown(f"{self.name}.{name}: {e}")
        self.values[name] = v
        return v


class Missing:
    pass


MISSING = Missing()


class Function:
    def __init__(self, module, node, klass=None):
        self.module, self.node, self.klass = module, node, klass
        self.name = node.name

    def qualname(self):
        return f"{self.module.name}.{self.klass.name + '.' if self.klass else ''}{self.name}"


class BoundMethod:
    def __init__(self, func, obj):
        self.func, self.obj = func, obj


class Class:
    def __init__(self, module, node, bases):
        self.module, self.node, self.bases = module, node, bases
        self.name = node.name
        self.members = {}
        self.field_order = []
        self.is_dataclass = any(_decorator_name(d) in ("dataclass", "dataclasses.dataclass") for d in node.decorator_list)
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                self.members[stmt.target.id] = stmt
                self.field_order.append(stmt.target.id)
            elif isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Name):
                        self.members[t.id] = stmt
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.members[stmt.name] = stmt
        self.cache = {}

    def mro(self):
        out, seen = [], set()

        def walk(c):
            if id(c) in seen:
                return
            seen.add(id(c))
            out.append(c)
            for b in c.bases:
                if isinstance(b, Class):
                    walk(b)
        walk(self)
        return out

    def dataclass_like(self):
        return any(c.is_dataclass for c in self.mro())

    def all_fields(self):
        fields = []
        for c in reversed(self.mro()):
            for f in c.field_order:
                if f not in fields:
                    fields.append(f)
        return fields


def _decorator_name(d):
    if isinstance(d, ast.Call):
        d = d.func
    try:
        return ast.unparse(d)
    except Exception:  # pragma: no cover
        return ""


class Instance:
    def __init__(self, cls):
        self.cls = cls
        self.attrs = {}  # name -> (value, set_at)

    def __repr__(self):
        return f"<{self.cls.name if isinstance(self.cls, Class) else self.cls}>"


class FieldSpec:
    def __init__(self, default=MISSING, factory=None):
        self.default, self.factory = default, factory


class External:
    """Something outside the two source trees (torch, argparse, logging, typing ...)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<external {self.name}>"


class HFStub:
    """Opaque Hugging Face config / pretrained object; only the HF_FACTS attributes are known."""

    def __init__(self, facts=None, hf_id=None):
        self.facts, self.hf_id = facts or {}, hf_id

    def __repr__(self):
        return "<hf config>"


class Builtin:
    def __init__(self, name, fn):
        self.name, self.fn = name, fn


class SuperProxy:
    def __init__(self, klass, obj):
        self.klass, self.obj = klass, obj


class ParserStub:
    def __init__(self, args):
        self.args = args


class NativeMethod:
    def __init__(self, obj, name):
        self.obj, self.name = obj, name


class AutoBridgeStub:
    def __init__(self, hf_id):
        self.hf_id = hf_id


class Captured(Exception):
    def __init__(self, config):
        self.config = config


# ============================================================================================
# interpreter
# ============================================================================================
class Interp:
    def __init__(self, mb_repo, mlm_repo, gpu, args_obj, notes):
        self.mb, self.mlm = mb_repo, mlm_repo
        self.gpu = gpu
        self.args_obj = args_obj
        self.notes = notes
        self.modules = {}
        self.depth = 0
        self.captured = None

    # ---------------------------------------------------------------- modules
    def resolve_module(self, name):
        if name in self.modules:
            return self.modules[name]
        mod = None
        parts = name.split(".")
        candidates = []
        if name.startswith("megatron.bridge"):
            base = "src/" + "/".join(parts)
            candidates = [(self.mb, base + ".py", False), (self.mb, base + "/__init__.py", True)]
        elif name.startswith("megatron.core"):
            base = "/".join(parts)
            if self.mlm is not None:
                candidates = [(self.mlm, base + ".py", False), (self.mlm, base + "/__init__.py", True)]
        elif name == "megatron":
            candidates = []
        else:
            base = "scripts/performance/" + "/".join(parts)
            candidates = [(self.mb, base + ".py", False), (self.mb, base + "/__init__.py", True)]
        for repo, path, is_pkg in candidates:
            src = repo.file(path)
            if src is not None:
                mod = Module(self, name, src, is_pkg)
                break
        if mod is None:
            mod = External(name)
        self.modules[name] = mod
        return mod

    def abs_module(self, module, node):
        if node.level:
            pkg = module.package.split(".") if module.package else []
            if node.level > 1:
                pkg = pkg[: len(pkg) - (node.level - 1)]
            base = ".".join(pkg)
            return f"{base}.{node.module}" if node.module else base
        return node.module

    def import_from_node(self, module, node):
        return self.resolve_module(self.abs_module(module, node))

    def import_name(self, module, node, name):
        """Value bound to `name` by the import statement `node` in `module`."""
        if isinstance(node, ast.Import):
            for a in node.names:
                key = a.asname or a.name.split(".")[0]
                if key == name:
                    return self.resolve_module(a.name if a.asname else a.name.split(".")[0])
            return MISSING
        base = self.abs_module(module, node)
        for a in node.names:
            if (a.asname or a.name) == name:
                special = SPECIAL_NAMES.get(a.name)
                if special is not None and (base.split(".")[0] in SPECIAL_ROOTS.get(a.name, {base.split(".")[0]})):
                    return special
                mod = self.resolve_module(base)
                if not isinstance(mod, Module):
                    sub = self.resolve_module(f"{base}.{a.name}")
                    if isinstance(sub, Module):
                        return sub
                if isinstance(mod, Module):
                    v = mod.lookup(a.name)
                    if isinstance(v, Missing):
                        sub = self.resolve_module(f"{base}.{a.name}")
                        return sub
                    return v
                return External(f"{base}.{a.name}")
        return MISSING

    def define(self, module, node, name):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return Function(module, node)
        if isinstance(node, ast.ClassDef):
            frame = Frame(module, None)
            bases = []
            for b in node.bases:
                try:
                    bases.append(self.eval(b, frame))
                except (InterpError, Raised):
                    bases.append(Unknown("base"))
            return Class(module, node, bases)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return self.import_name(module, node, name)
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            frame = Frame(module, None)
            value = self.eval(node.value, frame)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id == name:
                    return value
                if isinstance(t, (ast.Tuple, ast.List)):
                    scratch = {}
                    self.bind_target(t, value, Frame(module, None, scratch))
                    if name in scratch:
                        return scratch[name]
            return value
        raise InterpError(f"cannot define {name}")

    # ---------------------------------------------------------------- notes
    def note(self, frame, node, text):
        where = frame.module.src.where(node) if frame and isinstance(frame.module, Module) else "?"
        msg = f"{where}: {text}"
        if msg not in self.notes:
            self.notes.append(msg)

    # ---------------------------------------------------------------- calls
    def call(self, fn, args, kwargs, frame=None, node=None):
        fn_u = U(fn)
        if isinstance(fn_u, Function):
            return self.call_function(fn_u, None, args, kwargs)
        if isinstance(fn_u, BoundMethod):
            if isinstance(fn_u.func, Function):
                return self.call_function(fn_u.func, fn_u.obj, args, kwargs)
            return self.call(fn_u.func, [fn_u.obj] + list(args), kwargs, frame, node)
        if isinstance(fn_u, Class):
            return self.instantiate(fn_u, args, kwargs, frame, node)
        if isinstance(fn_u, Builtin):
            return fn_u.fn(self, args, kwargs, frame, node)
        if isinstance(fn_u, NativeMethod):
            return self.call_native_method(fn_u, args, kwargs)
        if isinstance(fn_u, Partial):
            merged = dict(fn_u.kwargs)
            merged.update(kwargs)
            return self.call(fn_u.fn, list(fn_u.args) + list(args), merged, frame, node)
        if isinstance(fn_u, External):
            handler = EXTERNAL_CALLS.get(fn_u.name)
            if handler is not None:
                return handler(self, args, kwargs, frame, node)
            return Unknown(f"call of {fn_u.name}")
        if isinstance(fn_u, AutoBridgeStub):
            return Unknown("AutoBridge call")
        if isinstance(fn_u, HFStub):
            return HFStub(fn_u.facts, fn_u.hf_id)
        if isinstance(fn_u, ParserStub):
            return Unknown("parser")
        return Unknown(f"call of {type(fn_u).__name__}")

    def call_function(self, fn, self_obj, args, kwargs):
        override = FUNCTION_OVERRIDES.get(fn.name)
        if override is not None:
            r = override(self, fn, self_obj, args, kwargs)
            if r is not NotImplemented:
                return r
        node = fn.node
        frame = Frame(fn.module, fn, {})
        a = node.args
        params = list(a.posonlyargs) + list(a.args)
        pos = list(args)
        if self_obj is not None:
            pos = [self_obj] + pos
        defaults = [None] * (len(params) - len(a.defaults)) + list(a.defaults)
        kw = dict(kwargs)
        for i, p in enumerate(params):
            if i < len(pos):
                frame.locals[p.arg] = pos[i]
            elif p.arg in kw:
                frame.locals[p.arg] = kw.pop(p.arg)
            elif defaults[i] is not None:
                frame.locals[p.arg] = self.eval(defaults[i], Frame(fn.module, None))
            else:
                frame.locals[p.arg] = Unknown(f"missing argument {p.arg}")
        if a.vararg:
            frame.locals[a.vararg.arg] = T(tuple(pos[len(params):]), None)
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kw:
                frame.locals[p.arg] = kw.pop(p.arg)
            elif d is not None:
                frame.locals[p.arg] = self.eval(d, Frame(fn.module, None))
            else:
                frame.locals[p.arg] = Unknown(f"missing argument {p.arg}")
        if a.kwarg:
            frame.locals[a.kwarg.arg] = kw
            kw = {}
        self.depth += 1
        if self.depth > 120:
            self.depth -= 1
            raise InterpError("recursion too deep")
        try:
            self.exec_block(node.body, frame)
        except ReturnEx as r:
            return r.value
        finally:
            self.depth -= 1
        return None

    def instantiate(self, cls, args, kwargs, frame, node):
        if cls.name == "AutoBridge":
            return Unknown("AutoBridge()")
        inst = Instance(cls)
        where = frame.module.src.where(node) if frame and node is not None and isinstance(frame.module, Module) else "?"
        init = self.find_member(cls, "__init__")
        if cls.dataclass_like() and (init is None or init[0].is_dataclass or not isinstance(init[1], ast.FunctionDef)):
            names = cls.all_fields()
            for i, v in enumerate(args):
                if i < len(names):
                    inst.attrs[names[i]] = (v, where)
            for k, v in kwargs.items():
                inst.attrs[k] = (v, where)
            return inst
        if init is not None and isinstance(init[1], ast.FunctionDef):
            owner, stmt = init
            try:
                self.call_function(Function(owner.module, stmt, owner), inst, args, kwargs)
            except (InterpError, Raised) as e:
                self.notes.append(f"{where}: constructor of {cls.name} not fully interpreted ({e})")
            return inst
        for k, v in kwargs.items():
            inst.attrs[k] = (v, where)
        return inst

    def find_member(self, cls, name):
        for c in cls.mro():
            if name in c.members:
                return c, c.members[name]
        return None

    def class_attr(self, cls, name, inst=None):
        """Value of `name` looked up on the class chain: (value, where) or None."""
        for c in cls.mro():
            stmt = c.members.get(name)
            if stmt is None:
                continue
            where = c.module.src.where(stmt)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decos = [_decorator_name(d) for d in stmt.decorator_list]
                func = Function(c.module, stmt, c)
                if "property" in decos:
                    if inst is None:
                        return Unknown("property on class"), where
                    return self.call_function(func, inst, [], {}), where
                if "staticmethod" in decos:
                    return func, where
                if "classmethod" in decos:
                    return BoundMethod(func, c), where
                return (BoundMethod(func, inst) if inst is not None else func), where
            key = (c.name, name)
            if key in c.cache:
                return c.cache[key], where
            value_node = stmt.value
            if value_node is None:
                continue  # annotation only: no default
            frame = Frame(c.module, None)
            value = self.eval(value_node, frame)
            if isinstance(U(value), FieldSpec):
                fs = U(value)
                if fs.factory is not None:
                    value = self.call(fs.factory, [], {}, frame, value_node)
                    if isinstance(U(value), list) and not isinstance(value, T):
                        value = T(U(value), where)
                elif not isinstance(fs.default, Missing):
                    value = fs.default
                else:
                    continue
            if not isinstance(value, T) and not isinstance(value, (Instance, Function, Class, BoundMethod)):
                value = T(value, where)
            c.cache[key] = value
            return value, where
        return None

    # ---------------------------------------------------------------- attributes
    def getattr(self, obj, name, frame=None, node=None):
        o = U(obj)
        if isinstance(o, Instance):
            if name in o.attrs:
                return o.attrs[name][0]
            if isinstance(o.cls, Class):
                r = self.class_attr(o.cls, name, o)
                if r is not None:
                    return r[0]
            return Unknown(f"attribute {name} not defined on {o}")
        if isinstance(o, Module):
            v = o.lookup(name)
            if isinstance(v, Missing):
                sub = self.resolve_module(f"{o.name}.{name}")
                return sub if isinstance(sub, Module) else Unknown(f"{o.name}.{name}")
            return v
        if isinstance(o, Class):
            if name == "__name__":
                return o.name
            if name == "__dataclass_fields__":
                return {f: True for f in o.all_fields()}
            r = self.class_attr(o, name)
            return r[0] if r is not None else Unknown(f"{o.name}.{name}")
        if isinstance(o, SuperProxy):
            for c in o.klass.mro()[1:]:
                if name in c.members:
                    stmt = c.members[name]
                    if isinstance(stmt, ast.FunctionDef):
                        return BoundMethod(Function(c.module, stmt, c), o.obj)
            if name == "provider_bridge":
                return Builtin("super.provider_bridge", lambda it, a, k, f, n: it.base_provider(o))
            return Unknown(f"super().{name}")
        if isinstance(o, External):
            if o.name in EXTERNAL_CALLS or f"{o.name}.{name}" in EXTERNAL_CALLS or o.name in ("torch", "torch.cuda"):
                return External(f"{o.name}.{name}")
            return External(f"{o.name}.{name}")
        if isinstance(o, HFStub):
            if name in o.facts:
                return T(o.facts[name], f"HF config.json of {o.hf_id} (published model config, not in the repo)")
            return HFStub(o.facts, o.hf_id)
        if isinstance(o, AutoBridgeStub):
            if name == "to_megatron_provider":
                return Builtin("to_megatron_provider", lambda it, a, k, f, n: it.hf_provider(o.hf_id, f, n))
            return Unknown(f"AutoBridge.{name}")
        if isinstance(o, ParserStub):
            if name in ("parse_known_args", "parse_args"):
                args = o.args
                return Builtin(name, lambda it, a, k, f, n: T((args, []), None) if name == "parse_known_args" else args)
            return Unknown(f"parser.{name}")
        if isinstance(o, Unknown):
            return o
        if isinstance(o, (str, list, dict, tuple, set, int, float)) and hasattr(o, name):
            return NativeMethod(obj, name)
        if o is None:
            raise InterpError(f"attribute {name} of None")
        return Unknown(f"attribute {name} of {type(o).__name__}")

    def setattr(self, obj, name, value, where):
        o = U(obj)
        if isinstance(o, Instance):
            o.attrs[name] = (value, where)
        # assignments to unknown/external objects are dropped

    def call_native_method(self, m, args, kwargs):
        obj = U(m.obj)
        if m.name in ("get",) and isinstance(obj, dict):
            key = U(args[0])
            return obj.get(key, args[1] if len(args) > 1 else None)
        if m.name == "update" and isinstance(obj, dict):
            for a in args:
                if isinstance(U(a), dict):
                    obj.update(U(a))
            obj.update(kwargs)
            return None
        if m.name == "items" and isinstance(obj, dict):
            return T(list(obj.items()), None)
        if m.name == "pop" and isinstance(obj, dict):
            return obj.pop(U(args[0]), *(args[1:2]))
        if m.name == "setdefault" and isinstance(obj, dict):
            return obj.setdefault(U(args[0]), args[1] if len(args) > 1 else None)
        if m.name == "append" and isinstance(obj, list):
            obj.append(args[0])
            return None
        if m.name == "extend" and isinstance(obj, list):
            obj.extend(U(args[0]) if isinstance(U(args[0]), list) else [])
            return None
        if m.name == "copy" and isinstance(obj, (dict, list)):
            return obj.copy()
        if any(is_unknown(a) for a in args) or any(is_unknown(v) for v in kwargs.values()):
            return Unknown(f"{m.name} on unknown arguments")
        try:
            return getattr(obj, m.name)(*[deep(a) for a in args], **{k: deep(v) for k, v in kwargs.items()})
        except Exception as e:  # noqa: BLE001
            raise Raised(e, f"native {m.name}")

    # ---------------------------------------------------------------- stubs
    def hf_provider(self, hf_id, frame, node):
        hf_id = U(hf_id)
        for pattern, modname, clsname in HF_BRIDGES:
            if isinstance(hf_id, str) and re.match(pattern, hf_id):
                mod = self.resolve_module(modname)
                if not isinstance(mod, Module):
                    break
                cls = mod.lookup(clsname)
                if not isinstance(cls, Class):
                    break
                bridge = Instance(cls)
                # @MegatronModelBridge.register_bridge(..., provider=X) sets PROVIDER_CLASS; decorators are not run
                for d in cls.node.decorator_list:
                    if isinstance(d, ast.Call):
                        for kw in d.keywords:
                            if kw.arg == "provider":
                                bridge.attrs["PROVIDER_CLASS"] = (self.eval(kw.value, Frame(cls.module, None)),
                                                                  cls.module.src.where(kw.value))
                facts = {}
                for fpat, fvals in HF_FACTS:
                    if re.match(fpat, hf_id):
                        facts = fvals
                self.hf_facts = (hf_id, facts)
                owner, stmt = self.find_member(cls, "provider_bridge")
                return self.call_function(Function(owner.module, stmt, owner), bridge, [HFStub(facts, hf_id)], {})
        self.note(frame, node, f"no bridge mapping for {hf_id!r}; model provider unknown")
        return Unknown(f"provider for {hf_id}")

    def base_provider(self, proxy):
        """super().provider_bridge(hf) of a registered bridge: the provider dataclass with defaults."""
        cls = proxy.klass
        provider_cls = None
        for d in cls.node.decorator_list:
            if isinstance(d, ast.Call):
                for kw in d.keywords:
                    if kw.arg == "provider":
                        provider_cls = self.eval(kw.value, Frame(cls.module, None))
        if not isinstance(provider_cls, Class):
            mod = self.resolve_module("megatron.bridge.models.gpt_provider")
            provider_cls = mod.lookup("GPTModelProvider") if isinstance(mod, Module) else None
        if isinstance(provider_cls, Class):
            inst = Instance(provider_cls)
            hf_id, facts = getattr(self, "hf_facts", (None, {}))
            for hf_name in ("num_experts", "num_local_experts", "n_routed_experts"):
                if hf_name in facts:
                    where = f"HF config.json {hf_name} of {hf_id} via MegatronModelBridge.CONFIG_MAPPING"
                    inst.attrs["num_moe_experts"] = (T(facts[hf_name], where), where)
            return inst
        return Unknown("base provider")

    # ---------------------------------------------------------------- statements
    def exec_block(self, stmts, frame):
        for s in stmts:
            self.exec_stmt(s, frame)

    def exec_stmt(self, s, frame):
        if isinstance(s, ast.Expr):
            self.eval(s.value, frame)
        elif isinstance(s, ast.Assign):
            value = self.eval(s.value, frame)
            for t in s.targets:
                self.bind_target(t, value, frame, s)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.bind_target(s.target, self.eval(s.value, frame), frame, s)
        elif isinstance(s, ast.AugAssign):
            cur = self.eval(s.target, frame)
            val = self.binop(s.op, cur, self.eval(s.value, frame))
            self.bind_target(s.target, val, frame, s)
        elif isinstance(s, ast.If):
            test = self.truth(self.eval(s.test, frame))
            if isinstance(test, Unknown):
                self.note(frame, s, f"branch not resolvable: if {ast.unparse(s.test)[:120]}")
                return
            self.exec_block(s.body if test else s.orelse, frame)
        elif isinstance(s, ast.Return):
            raise ReturnEx(self.eval(s.value, frame) if s.value is not None else None)
        elif isinstance(s, ast.For):
            it = U(self.eval(s.iter, frame))
            if isinstance(it, dict):
                it = list(it.keys())
            if not isinstance(it, (list, tuple)):
                self.note(frame, s, f"loop not resolvable: for {ast.unparse(s.target)} in {ast.unparse(s.iter)[:80]}")
                return
            for v in it:
                self.bind_target(s.target, v, frame, s)
                try:
                    self.exec_block(s.body, frame)
                except BreakEx:
                    break
                except ContinueEx:
                    continue
            else:
                self.exec_block(s.orelse, frame)
        elif isinstance(s, ast.Try):
            try:
                self.exec_block(s.body, frame)
            except Raised as r:
                for h in s.handlers:
                    names = []
                    if h.type is not None:
                        names = [ast.unparse(e) for e in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])]
                    exc_name = r.value.name if isinstance(r.value, (Class, External)) else (
                        r.value.cls.name if isinstance(r.value, Instance) and isinstance(r.value.cls, Class)
                        else type(r.value).__name__)
                    if h.type is None or any(n.split(".")[-1] in (exc_name, "Exception") for n in names):
                        if h.name:
                            frame.locals[h.name] = r.value
                        self.exec_block(h.body, frame)
                        break
                else:
                    raise
            else:
                self.exec_block(s.orelse, frame)
            finally:
                self.exec_block(s.finalbody, frame)
        elif isinstance(s, ast.With):
            self.exec_block(s.body, frame)
        elif isinstance(s, ast.Raise):
            exc = self.eval(s.exc, frame) if s.exc is not None else Unknown("re-raise")
            raise Raised(U(exc), frame.module.src.where(s))
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            frame.locals[s.name] = Function(frame.module, s)
        elif isinstance(s, ast.ClassDef):
            frame.locals[s.name] = self.define(frame.module, s, s.name)
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                key = a.asname or a.name.split(".")[0]
                frame.locals[key] = self.import_name(frame.module, s, key)
        elif isinstance(s, ast.Break):
            raise BreakEx()
        elif isinstance(s, ast.Continue):
            raise ContinueEx()
        elif isinstance(s, (ast.Pass, ast.Global, ast.Nonlocal, ast.Assert, ast.Delete)):
            pass
        elif isinstance(s, ast.While):
            self.note(frame, s, "while loop skipped")
        else:
            self.note(frame, s, f"statement {type(s).__name__} skipped")

    def bind_target(self, t, value, frame, stmt=None):
        where = frame.module.src.where(stmt if stmt is not None else t) if isinstance(frame.module, Module) else "?"
        if isinstance(t, ast.Name):
            frame.locals[t.id] = value
        elif isinstance(t, ast.Attribute):
            obj = self.eval(t.value, frame)
            self.setattr(obj, t.attr, value, where)
        elif isinstance(t, ast.Subscript):
            obj = U(self.eval(t.value, frame))
            key = U(self.eval(t.slice, frame))
            if isinstance(obj, (dict, list)) and not isinstance(key, Unknown):
                try:
                    obj[key] = value
                except Exception:  # noqa: BLE001
                    pass
        elif isinstance(t, (ast.Tuple, ast.List)):
            v = U(value)
            if isinstance(v, ParserStub):
                v = (v.args, [])
            if isinstance(v, (tuple, list)) and len(v) == len(t.elts):
                for sub, sv in zip(t.elts, v):
                    self.bind_target(sub, sv, frame, stmt)
            else:
                for sub in t.elts:
                    self.bind_target(sub, Unknown("unpacking"), frame, stmt)
        elif isinstance(t, ast.Starred):
            self.bind_target(t.value, value, frame, stmt)

    # ---------------------------------------------------------------- expressions
    def truth(self, v):
        v = U(v)
        if isinstance(v, (Unknown, HFStub, External)):
            return Unknown("truth")
        if isinstance(v, (Instance, Function, Class, BoundMethod, Module, Builtin)):
            return True
        try:
            return bool(v)
        except Exception:  # noqa: BLE001
            return Unknown("truth")

    def binop(self, op, a, b):
        a, b = U(a), U(b)
        if is_unknown(a) or is_unknown(b) or isinstance(a, External) or isinstance(b, External):
            return Unknown("arithmetic on unknown")
        a, b = deep(a), deep(b)
        ops = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y,
               ast.Div: lambda x, y: x / y, ast.FloorDiv: lambda x, y: x // y, ast.Mod: lambda x, y: x % y,
               ast.Pow: lambda x, y: x ** y, ast.BitOr: lambda x, y: x | y, ast.BitAnd: lambda x, y: x & y}
        try:
            return ops[type(op)](a, b)
        except Exception:  # noqa: BLE001
            return Unknown("arithmetic")

    def compare(self, op, a, b):
        a, b = U(a), U(b)
        if isinstance(op, (ast.Is, ast.IsNot)):
            if isinstance(a, (Unknown, HFStub)) or isinstance(b, (Unknown, HFStub)):
                return Unknown("is on unknown")
            r = (a is b) or (a is None and b is None) or (type(a) in (bool,) and a == b and type(b) is bool)
            return r if isinstance(op, ast.Is) else not r
        if isinstance(op, (ast.In, ast.NotIn)):
            if is_unknown(a) or isinstance(b, (Unknown, HFStub, External)):
                return Unknown("in on unknown")
            bb = deep(b)
            if isinstance(bb, (list, tuple, set)) and any(isinstance(e, Unknown) for e in bb):
                return Unknown("in on unknown")
            try:
                r = deep(a) in bb
            except Exception:  # noqa: BLE001
                return Unknown("in")
            return r if isinstance(op, ast.In) else not r
        if is_unknown(a) or is_unknown(b) or isinstance(a, External) or isinstance(b, External):
            return Unknown("comparison on unknown")
        if isinstance(a, (Instance, Class, Function)) or isinstance(b, (Instance, Class, Function)):
            if isinstance(op, ast.Eq):
                return a is b
            if isinstance(op, ast.NotEq):
                return a is not b
            return Unknown("comparison of objects")
        a, b = deep(a), deep(b)
        fns = {ast.Eq: lambda x, y: x == y, ast.NotEq: lambda x, y: x != y, ast.Lt: lambda x, y: x < y,
               ast.LtE: lambda x, y: x <= y, ast.Gt: lambda x, y: x > y, ast.GtE: lambda x, y: x >= y}
        try:
            return fns[type(op)](a, b)
        except Exception:  # noqa: BLE001
            return Unknown("comparison")

    def eval(self, node, frame):
        where = frame.module.src.where(node) if isinstance(frame.module, Module) else None
        if isinstance(node, ast.Constant):
            return T(node.value, where)
        if isinstance(node, ast.Name):
            if node.id in frame.locals:
                return frame.locals[node.id]
            v = frame.module.lookup(node.id) if isinstance(frame.module, Module) else MISSING
            if not isinstance(v, Missing):
                return v
            if node.id in BUILTINS:
                return BUILTINS[node.id]
            return Unknown(f"name {node.id}")
        if isinstance(node, ast.Attribute):
            return self.getattr(self.eval(node.value, frame), node.attr, frame, node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = U(self.eval(e.value, frame))
                    out.extend(list(v) if isinstance(v, (list, tuple)) else [Unknown("starred")])
                else:
                    out.append(deep(self.eval(e, frame)))
            if isinstance(node, ast.Tuple):
                return T(tuple(out), where)
            if isinstance(node, ast.Set):
                try:
                    return T(set(out), where)
                except TypeError:
                    return Unknown("set")
            return T(out, where)
        if isinstance(node, ast.Dict):
            d = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    src = U(self.eval(v, frame))
                    if isinstance(src, dict):
                        d.update(src)
                    elif isinstance(src, Instance):
                        pass
                    continue
                key = U(self.eval(k, frame))
                if isinstance(key, (Unknown, HFStub)):
                    continue
                d[key] = self.eval(v, frame)
            return d
        if isinstance(node, ast.Call):
            return self.eval_call(node, frame)
        if isinstance(node, ast.BoolOp):
            is_and = isinstance(node.op, ast.And)
            last = None
            for v in node.values:
                val = self.eval(v, frame)
                t = self.truth(val)
                if isinstance(t, Unknown):
                    # `unknown and False` is still False; otherwise unknown
                    rest = [self.truth(self.eval(x, frame)) for x in node.values[node.values.index(v) + 1:]]
                    if is_and and any(r is False for r in rest):
                        return False
                    if not is_and and any(r is True for r in rest):
                        return True
                    return Unknown("boolean on unknown")
                last = val
                if is_and and not t:
                    return val
                if not is_and and t:
                    return val
            return last
        if isinstance(node, ast.UnaryOp):
            v = self.eval(node.operand, frame)
            if isinstance(node.op, ast.Not):
                t = self.truth(v)
                return t if isinstance(t, Unknown) else (not t)
            v = U(v)
            if is_unknown(v):
                return Unknown("unary")
            if isinstance(node.op, ast.USub):
                return T(-v, where)
            if isinstance(node.op, ast.UAdd):
                return v
            return Unknown("unary")
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.eval(node.left, frame), self.eval(node.right, frame))
        if isinstance(node, ast.Compare):
            left = self.eval(node.left, frame)
            result = True
            for op, comp in zip(node.ops, node.comparators):
                right = self.eval(comp, frame)
                r = self.compare(op, left, right)
                if isinstance(r, Unknown):
                    return r
                if not r:
                    return False
                left = right
            return result
        if isinstance(node, ast.IfExp):
            t = self.truth(self.eval(node.test, frame))
            if isinstance(t, Unknown):
                a, b = self.eval(node.body, frame), self.eval(node.orelse, frame)
                if not is_unknown(a) and deep(a) == deep(b):
                    return a
                return Unknown(f"conditional expression {ast.unparse(node)[:80]}")
            return self.eval(node.body if t else node.orelse, frame)
        if isinstance(node, ast.Subscript):
            obj = self.eval(node.value, frame)
            key = U(self.eval(node.slice, frame))
            o = U(obj)
            if isinstance(o, Class) and isinstance(key, str) and is_enum_class(o):
                return T(key, where)  # Enum[name]: the member, recorded by its name
            if isinstance(o, (Class, External)) or isinstance(key, Unknown):
                return o if isinstance(o, Class) else Unknown("subscript")
            if isinstance(o, (dict, list, tuple, str)):
                try:
                    return o[deep(key)] if not isinstance(o, dict) else o[key]
                except Exception:  # noqa: BLE001
                    return Unknown("subscript")
            return Unknown("subscript")
        if isinstance(node, ast.Slice):
            parts = [U(self.eval(x, frame)) if x is not None else None for x in (node.lower, node.upper, node.step)]
            return slice(*parts)
        if isinstance(node, ast.JoinedStr):
            out = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    out.append(str(v.value))
                else:
                    x = deep(self.eval(v.value, frame))
                    if is_unknown(x) or isinstance(x, (Instance, External)):
                        return Unknown("f-string")
                    out.append(format(x, ast.unparse(v.format_spec)[2:-1] if v.format_spec else "") if v.conversion == -1 else str(x))
            return T("".join(out), where)
        if isinstance(node, ast.Lambda):
            return Unknown("lambda")
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            return self.eval_comprehension(node, frame)
        if isinstance(node, ast.Starred):
            return self.eval(node.value, frame)
        if isinstance(node, ast.NamedExpr):
            v = self.eval(node.value, frame)
            frame.locals[node.target.id] = v
            return v
        return Unknown(f"expression {type(node).__name__}")

    def eval_comprehension(self, node, frame):
        if len(node.generators) != 1:
            return Unknown("comprehension")
        gen = node.generators[0]
        it = U(self.eval(gen.iter, frame))
        if isinstance(it, dict):
            it = list(it.keys())
        if not isinstance(it, (list, tuple, set)):
            return Unknown("comprehension over unknown")
        sub = Frame(frame.module, frame.function, dict(frame.locals))
        out_list, out_dict = [], {}
        for v in it:
            self.bind_target(gen.target, v, sub)
            ok = True
            for cond in gen.ifs:
                t = self.truth(self.eval(cond, sub))
                if isinstance(t, Unknown):
                    return Unknown("comprehension condition")
                ok = ok and t
            if not ok:
                continue
            if isinstance(node, ast.DictComp):
                out_dict[U(self.eval(node.key, sub))] = self.eval(node.value, sub)
            else:
                out_list.append(deep(self.eval(node.elt, sub)))
        if isinstance(node, ast.DictComp):
            return out_dict
        return T(out_list, None)

    def eval_call(self, node, frame):
        fn = self.eval(node.func, frame)
        args, kwargs = [], {}
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = U(self.eval(a.value, frame))
                if isinstance(v, (list, tuple)):
                    args.extend(v)
                else:
                    args.append(Unknown("*args"))
            else:
                args.append(self.eval(a, frame))
        for kw in node.keywords:
            if kw.arg is None:
                v = U(self.eval(kw.value, frame))
                if isinstance(v, dict):
                    kwargs.update(v)
                elif isinstance(v, Instance):
                    pass
            else:
                kwargs[kw.arg] = self.eval(kw.value, frame)
        # AutoBridge.from_hf_pretrained(...)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "from_hf_pretrained" and (
                (isinstance(U(fn), BoundMethod) and isinstance(U(fn).obj, Class) and U(fn).obj.name == "AutoBridge")
                or ast.unparse(node.func.value).endswith("AutoBridge")):
            return AutoBridgeStub(args[0] if args else kwargs.get("hf_path"))
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            f = frame.function
            obj = frame.locals.get(f.node.args.args[0].arg) if f and f.node.args.args else None
            if f is not None and f.klass is not None:
                return SuperProxy(f.klass, obj)
            return Unknown("super")
        try:
            return self.call(fn, args, kwargs, frame, node)
        except Raised as e:
            callee = U(fn).func if isinstance(U(fn), BoundMethod) else U(fn)
            mod = callee.module.name if isinstance(callee, Function) else ""
            if mod.startswith(("megatron.bridge.models", "megatron.core")):
                self.note(frame, node, f"call raised inside model code, result unknown: {ast.unparse(node.func)[:80]}")
                return Unknown(f"call {ast.unparse(node.func)[:60]}")
            raise
        except (InterpError, RecursionError) as e:
            self.note(frame, node, f"call not interpreted: {ast.unparse(node.func)[:80]} ({str(e)[:120]})")
            return Unknown(f"call {ast.unparse(node.func)[:60]}")


class Frame:
    def __init__(self, module, function, local_vars=None):
        self.module, self.function = module, function
        self.locals = local_vars if local_vars is not None else {}


# ---------------------------------------------------------------- builtins and externals
def _b_isinstance(it, args, kwargs, frame, node):
    obj, cls = U(args[0]), U(args[1])
    classes = list(cls) if isinstance(cls, tuple) else [cls]
    results = []
    for c in classes:
        c = U(c)
        if isinstance(c, Builtin) and c.name in PY_TYPES:
            if isinstance(obj, (Unknown, HFStub)):
                results.append(Unknown("isinstance"))
            else:
                results.append(isinstance(deep(obj), PY_TYPES[c.name]) and not isinstance(obj, Instance))
        elif isinstance(c, Class) and isinstance(obj, HFStub) and "PreTrained" in c.name:
            results.append(True)  # AutoBridge hands provider_bridge a PreTrainedCausalLM
        elif isinstance(c, Class):
            if isinstance(obj, Instance) and isinstance(obj.cls, Class):
                results.append(any(x is c or x.name == c.name for x in obj.cls.mro()))
            elif isinstance(obj, (Unknown, HFStub)):
                results.append(Unknown("isinstance"))
            else:
                results.append(False)
        else:
            results.append(Unknown("isinstance"))
    if any(r is True for r in results):
        return True
    if any(isinstance(r, Unknown) for r in results):
        return Unknown("isinstance")
    return False


def _b_issubclass(it, args, kwargs, frame, node):
    sub, sup = U(args[0]), U(args[1])
    sups = list(sup) if isinstance(sup, tuple) else [sup]
    if isinstance(sub, Class) and all(isinstance(U(x), Class) for x in sups):
        return any(c is U(x) or c.name == U(x).name for c in sub.mro() for x in sups)
    return Unknown("issubclass")


def _b_hasattr(it, args, kwargs, frame, node):
    obj, name = U(args[0]), U(args[1])
    if isinstance(obj, Instance):
        if name in obj.attrs:
            return True
        if isinstance(obj.cls, Class) and it.class_attr(obj.cls, name, obj) is not None:
            return True
        return Unknown("hasattr")
    if isinstance(obj, Module):
        return not isinstance(obj.lookup(name), Missing)
    if isinstance(obj, HFStub) and name in obj.facts:
        return True
    return Unknown("hasattr")


def _b_getattr(it, args, kwargs, frame, node):
    obj, name = args[0], U(args[1])
    if isinstance(name, Unknown):
        return Unknown("getattr")
    o = U(obj)
    if isinstance(o, Instance):
        if name in o.attrs:
            return o.attrs[name][0]
        if isinstance(o.cls, Class):
            r = it.class_attr(o.cls, name, o)
            if r is not None:
                return r[0]
        if len(args) > 2:
            return args[2]
        return Unknown(f"getattr {name}")
    if isinstance(o, Module):
        v = o.lookup(name)
        return v if not isinstance(v, Missing) else (args[2] if len(args) > 2 else Unknown(name))
    if o is None and len(args) > 2:
        return args[2]
    if isinstance(o, HFStub):
        v = it.getattr(o, name)
        if isinstance(v, HFStub) and name not in o.facts and len(args) > 2:
            return Unknown(f"HF config {name}")
        return v
    if isinstance(o, Unknown):
        return Unknown(f"getattr {name}")
    try:
        return it.getattr(obj, name, frame, node)
    except InterpError:
        return args[2] if len(args) > 2 else Unknown(name)


def _b_setattr(it, args, kwargs, frame, node):
    it.setattr(args[0], U(args[1]), args[2], frame.module.src.where(node) if frame else "?")
    return None


def _native(fn):
    def call(it, args, kwargs, frame, node):
        if any(is_unknown(a) for a in args) or any(isinstance(U(a), (Instance, External)) for a in args):
            return Unknown("builtin on unknown")
        try:
            return fn(*[deep(a) for a in args], **{k: deep(v) for k, v in kwargs.items()})
        except Exception as e:  # noqa: BLE001
            raise Raised(e, "builtin")
    return call


def _b_print(it, args, kwargs, frame, node):
    return None


def _b_type_ctor(py):
    def call(it, args, kwargs, frame, node):
        if not args:
            return py()
        a = U(args[0])
        if isinstance(a, (Unknown, HFStub, Instance, External)):
            return Unknown(py.__name__)
        try:
            return py(deep(a))
        except Exception as e:  # noqa: BLE001
            raise Raised(e, "builtin")
    return call


def _b_exception(name):
    def call(it, args, kwargs, frame, node):
        return External(name)
    return call


def _b_super(it, args, kwargs, frame, node):
    return Unknown("super")


PY_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict, "tuple": tuple,
            "set": set}
BUILTINS = {
    "True": True, "False": False, "None": None,
    "isinstance": Builtin("isinstance", _b_isinstance),
    "issubclass": Builtin("issubclass", _b_issubclass),
    "hasattr": Builtin("hasattr", _b_hasattr),
    "getattr": Builtin("getattr", _b_getattr),
    "setattr": Builtin("setattr", _b_setattr),
    "print": Builtin("print", _b_print),
    "len": Builtin("len", _native(len)), "min": Builtin("min", _native(min)), "max": Builtin("max", _native(max)),
    "sorted": Builtin("sorted", _native(sorted)), "any": Builtin("any", _native(any)),
    "all": Builtin("all", _native(all)), "range": Builtin("range", _native(lambda *a: list(range(*a)))),
    "enumerate": Builtin("enumerate", _native(lambda x: list(enumerate(x)))),
    "zip": Builtin("zip", _native(lambda *a: list(zip(*a)))), "abs": Builtin("abs", _native(abs)),
    "round": Builtin("round", _native(round)), "divmod": Builtin("divmod", _native(divmod)),
    "vars": Builtin("vars", lambda it, a, k, f, n: {kk: vv[0] for kk, vv in U(a[0]).attrs.items()}
                    if isinstance(U(a[0]), Instance) else Unknown("vars")),
    "super": Builtin("super", _b_super),
}
for _n, _t in PY_TYPES.items():
    BUILTINS[_n] = Builtin(_n, _b_type_ctor(_t))
for _n in ("ValueError", "TypeError", "KeyError", "AttributeError", "RuntimeError", "NotImplementedError",
           "ImportError", "ModuleNotFoundError", "AssertionError", "Exception"):
    BUILTINS[_n] = Builtin(_n, _b_exception(_n))


def _x_replace(it, args, kwargs, frame, node):
    src = U(args[0])
    if not isinstance(src, Instance):
        return Unknown("replace")
    out = Instance(src.cls)
    out.attrs = dict(src.attrs)
    where = frame.module.src.where(node) if frame else "?"
    for k, v in kwargs.items():
        out.attrs[k] = (v, where)
    return out


def _x_field(it, args, kwargs, frame, node):
    return FieldSpec(default=kwargs.get("default", MISSING), factory=kwargs.get("default_factory"))


def _x_deepcopy(it, args, kwargs, frame, node):
    src = U(args[0])
    if isinstance(src, Instance):
        return _copy_instance(src)
    return copy.deepcopy(src) if not is_unknown(src) else src


def _copy_instance(src, memo=None):
    memo = {} if memo is None else memo
    if id(src) in memo:
        return memo[id(src)]
    out = Instance(src.cls)
    memo[id(src)] = out
    for k, (v, w) in src.attrs.items():
        vv = U(v)
        out.attrs[k] = (_copy_instance(vv, memo) if isinstance(vv, Instance) else v, w)
    return out


def _x_import_module(it, args, kwargs, frame, node):
    name = U(args[0])
    if not isinstance(name, str):
        return Unknown("import_module")
    mod = it.resolve_module(name)
    if isinstance(mod, External):
        raise Raised(External("ModuleNotFoundError"), name)
    return mod


def _x_device_properties(it, args, kwargs, frame, node):
    major, minor, name = DEVICE[it.gpu]
    inst = Instance("cudaDeviceProp")
    where = "simulated:torch.cuda.get_device_properties"
    inst.attrs = {"major": (T(major, where), where), "minor": (T(minor, where), where),
                  "name": (T(name, where), where)}
    return inst


def _x_device_capability(it, args, kwargs, frame, node):
    major, minor, _ = DEVICE[it.gpu]
    return T((major, minor), "simulated:torch.cuda.get_device_capability")


def _x_get_rank(it, args, kwargs, frame, node):
    return 0


def _x_dataclass(it, args, kwargs, frame, node):
    return args[0] if args else Builtin("dataclass", lambda it2, a, k, f, n: a[0])


def _x_pretrain(it, args, kwargs, frame, node):
    cfg = kwargs.get("config", args[0] if args else None)
    raise Captured(cfg)


class Partial:
    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, args, kwargs


def _x_partial(it, args, kwargs, frame, node):
    return Partial(args[0], list(args[1:]), dict(kwargs))


def _x_is_te_min_version(it, args, kwargs, frame, node):
    return Unknown("is_te_min_version (installed Transformer Engine)")


EXTERNAL_CALLS = {
    "dataclasses.replace": _x_replace,
    "dataclasses.field": _x_field,
    "dataclasses.dataclass": _x_dataclass,
    "copy.deepcopy": _x_deepcopy,
    "copy.copy": _x_deepcopy,
    "importlib.import_module": _x_import_module,
    "torch.cuda.get_device_properties": _x_device_properties,
    "torch.cuda.get_device_capability": _x_device_capability,
    "functools.partial": _x_partial,
}
SPECIAL_NAMES = {
    "replace": External("dataclasses.replace"),
    "field": External("dataclasses.field"),
    "dataclass": External("dataclasses.dataclass"),
    "deepcopy": External("copy.deepcopy"),
    "import_module": External("importlib.import_module"),
    "partial": External("functools.partial"),
    "pretrain": Builtin("pretrain", _x_pretrain),
    "get_rank_safe": Builtin("get_rank_safe", _x_get_rank),
    "is_te_min_version": Builtin("is_te_min_version", _x_is_te_min_version),
}
SPECIAL_ROOTS = {"partial": {"functools"}, "replace": {"dataclasses"}, "field": {"dataclasses"}, "dataclass": {"dataclasses"},
                 "deepcopy": {"copy"}, "import_module": {"importlib"}, "pretrain": {"megatron"},
                 "get_rank_safe": {"megatron"}, "is_te_min_version": {"megatron"}}


# ---------------------------------------------------------------- function overrides (by name)
def _o_parse_cli_args(it, fn, self_obj, args, kwargs):
    if fn.module.name != "argument_parser":
        return NotImplemented
    return ParserStub(it.args_obj)


def _o_find_perf_recipe(it, fn, self_obj, args, kwargs):
    """v0.6.0 scripts/performance/utils/utils.py find_perf_recipe: pkgutil scan of perf_recipes."""
    name = U(args[0]) if args else U(kwargs.get("recipe_name"))
    for path in it.mb.git.ls(it.mb.commit, "src/megatron/bridge/perf_recipes"):
        if not path.endswith(".py"):
            continue
        src = it.mb.file(path)
        for node in src.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                modname = path[len("src/"):-3].replace("/", ".")
                mod = it.resolve_module(modname)
                it.selected = (path, node.lineno, name)
                return Function(mod, node)
    return None


def _o_dump_env(it, fn, self_obj, args, kwargs):
    return None


def _o_omegaconf_roundtrip(it, fn, self_obj, args, kwargs):
    """v0.2.0 run_script.py converts the recipe to OmegaConf and applies it back even without CLI
    overrides; with no overrides that round trip leaves every value unchanged."""
    if not fn.module.name.endswith("omegaconf_utils"):
        return NotImplemented
    if fn.name == "create_omegaconf_dict_config":
        return T((Unknown("omegaconf"), Unknown("excluded")), None)
    return None


FUNCTION_OVERRIDES = {
    "parse_cli_args": _o_parse_cli_args,
    "create_omegaconf_dict_config": _o_omegaconf_roundtrip,
    "apply_overrides": _o_omegaconf_roundtrip,
    "parse_hydra_overrides": _o_omegaconf_roundtrip,
    "find_perf_recipe": _o_find_perf_recipe,
    "_dump_env_rank0": _o_dump_env,
}


# ============================================================================================
# argparse defaults
# ============================================================================================
def parse_argument_defaults(src):
    """dest -> default for every add_argument call in scripts/performance/argument_parser.py."""
    out = {}
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        opts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        kws = {k.arg: k.value for k in node.keywords}
        if "dest" in kws and isinstance(kws["dest"], ast.Constant):
            dest = kws["dest"].value
        else:
            longs = [o for o in opts if o.startswith("--")]
            if not longs:
                continue
            dest = longs[0][2:].replace("-", "_")
        action = kws.get("action")
        action = action.value if isinstance(action, ast.Constant) else None
        if "default" in kws:
            try:
                default = ast.literal_eval(kws["default"])
            except ValueError:
                default = Unknown(f"default of --{dest}")
        elif action == "store_true":
            default = False
        elif action == "store_false":
            default = True
        else:
            default = None
        out[dest] = (default, f"MB:{src.path}:{node.lineno}")
    return out


def make_args(defaults, overrides):
    ns = Instance("argparse.Namespace")
    for k, (v, where) in defaults.items():
        ns.attrs[k] = (T(v, where), where)
    for k, v in overrides.items():
        ns.attrs[k] = (T(v, "row"), "row")
    return ns


# ============================================================================================
# per-row resolution
# ============================================================================================
_REPOS = {}


def repo_for(git, commit, label):
    """One parsed-file cache per (mirror, commit), shared by all rows resolved at that commit."""
    key = (id(git), commit)
    if key not in _REPOS:
        _REPOS[key] = Repo(git, commit, label, [])
    return _REPOS[key]


def config_variants(mb_git, rev, row):
    """Non-default preset variants defined for the row's model/GPU/precision at `rev` (e.g. 'gbs15360')."""
    gpu = SYSTEM_GPU[row["gpu_type"]]
    dtype = PRECISION[row["precision"]]
    _, _, family, recipe_name = MODELS[row["model_name"]]
    out = set()
    prefix = f"{recipe_name}_pretrain_config_{gpu}_{dtype}_".upper()
    for path in mb_git.ls(rev, f"scripts/performance/configs/{family}"):
        text = mb_git.show(rev, path) or ""
        for m in re.finditer(rf"^({re.escape(prefix)}(\w+))\s*=", text, re.M):
            out.add(m.group(2).lower())
    flat = re.compile(rf"^def {re.escape(recipe_name)}_pretrain_{row['num_gpus']}gpu_{gpu}_"
                      rf"{dtype.replace('_', '')}_(\w+)_config\(", re.M)
    for path in mb_git.ls(rev, f"src/megatron/bridge/perf_recipes/{family}"):
        for m in flat.finditer(mb_git.show(rev, path) or ""):
            out.add(m.group(1))
    return sorted(out - {"v2"})  # v2 is the argument_parser default (v1 is its fallback)


def resolve_row(row, mb_git, mlm_git, rev, variant=None):
    """Interpret scripts/performance/run_script.py main() at `rev` for one table row."""
    gpu = SYSTEM_GPU[row["gpu_type"]]
    dtype = PRECISION[row["precision"]]
    name02, size02, family, recipe_name = MODELS[row["model_name"]]
    commit = mb_git.rev_parse(rev)
    mlm_commit = mb_git.submodule_commit(commit, "3rdparty/Megatron-LM")
    mb = repo_for(mb_git, commit, "MB")
    mlm = None
    if mlm_git and mlm_commit and mlm_git.show(mlm_commit, "megatron/core/model_parallel_config.py") is not None:
        mlm = repo_for(mlm_git, mlm_commit, f"MLM@{mlm_commit[:9]}")
    argsrc = mb.file("scripts/performance/argument_parser.py")
    defaults = parse_argument_defaults(argsrc)
    row_args = {"gpu": gpu, "num_gpus": row["num_gpus"], "compute_dtype": dtype, "task": "pretrain",
                "domain": "llm", "data": "mock"}
    if "model_size" in defaults:  # v0.2.x: -m <model_name> -s <model_size>
        row_args.update(model_name=name02, model_size=size02)
    else:  # v0.3.0+: -m <model_family_name> -mr <model_recipe_name>
        row_args.update(model_family_name=family, model_recipe_name=recipe_name)
    if variant is not None:
        row_args["config_variant"] = variant
    args_obj = make_args(defaults, row_args)
    notes = []
    it = Interp(mb, mlm, gpu, args_obj, notes)
    it.selected = None
    it.old_cli = "model_size" in defaults
    run_script = it.resolve_module("run_script")
    main = run_script.lookup("main")
    cfg = None
    try:
        it.call_function(main, None, [], {})
        notes.append("run_script.main returned without reaching pretrain()")
    except Captured as c:
        cfg = U(c.config)
    except Raised as r:
        notes.append(f"interpreted code raised {r.value!r} at {r.where}")
    if mlm is None:
        notes.append("Megatron-LM submodule commit not available; Megatron-Core defaults unresolved")
    return it, cfg, commit, mlm_commit


# A second tag worth reporting for a release: 25.11 shipped Megatron-Bridge 0.2.0, but its performance numbers
# were first published (and revised on 2025-12-09, commit 00b7660be) in the docs of v0.2.1, whose perf presets differ.
ALTERNATE_TAGS = {"25.11": ("v0.2.1", "v0.2.1 (2025-12-09, r0.2.0 branch) is the first tag whose performance summary "
                                      "lists the 25.11 numbers; its scripts/performance presets differ from v0.2.0")}
RELEASE_BRANCH = {"v0.2.0": "r0.2.0", "v0.3.0": "r0.3.0", "v0.3.1": "r0.3.0", "v0.4.0": "r0.4.0",
                  "v0.4.2": "r0.4.0", "v0.5.0": "r0.5.0", "v0.5.1": "r0.5.0", "v0.6.0": "r0.6.0"}
SEARCH_PATHS = ["scripts/performance", "src/megatron/bridge/perf_recipes", "src/megatron/bridge/recipes"]


def candidate_revs(mb_git, tag):
    """Later commits that could have produced a table row whose layout the tag's preset does not give:
    first the release branch after the tag, then main (first parent) from the tag date to the next tag."""
    out = []

    def log(args):
        return subprocess.run(["git", "--git-dir", mb_git.git_dir, "log", "--first-parent", "--reverse",
                               "--format=%H %cs"] + args + ["--"] + SEARCH_PATHS,
                              capture_output=True, text=True, check=True).stdout.split("\n")

    branch = RELEASE_BRANCH.get(tag)
    for line in log([f"{tag}..{branch}"]):
        if line.strip():
            h, d = line.split()
            out.append((h, d, branch))
    tags = list(RELEASES.values())
    nxt = tags[tags.index(tag) + 1] if tags.index(tag) + 1 < len(tags) else None
    since = subprocess.run(["git", "--git-dir", mb_git.git_dir, "log", "-1", "--format=%cI", tag],
                           capture_output=True, text=True, check=True).stdout.strip()
    args = [f"--since={since}", "main"]
    if nxt:
        until = subprocess.run(["git", "--git-dir", mb_git.git_dir, "log", "-1", "--format=%cI", nxt],
                               capture_output=True, text=True, check=True).stdout.strip()
        args.insert(0, f"--until={until}")
    for line in log(args):
        if line.strip():
            h, d = line.split()
            out.append((h, d, "main"))
    return out


_CANDIDATES = {}


def fingerprint(mb_git, commit, row):
    """Tree/blob ids of everything a row's resolution reads; equal ids give an equal result."""
    name02, _, family, _ = MODELS[row["model_name"]]
    paths = [f"scripts/performance/configs/{name02}", f"scripts/performance/configs/{family}",
             "scripts/performance/configs/llama31", "scripts/performance/utils", "scripts/performance/run_script.py",
             "scripts/performance/argument_parser.py", f"src/megatron/bridge/recipes/{family}",
             "src/megatron/bridge/recipes/common.py", f"src/megatron/bridge/perf_recipes/{family}",
             "src/megatron/bridge/perf_recipes/_common.py", "src/megatron/bridge/training", "src/megatron/bridge/models"]
    out = subprocess.run(["git", "--git-dir", mb_git.git_dir, "ls-tree", commit, "--"] + paths,
                         capture_output=True, text=True, check=True).stdout
    return out


def search_layout_match(row, mb_git, mlm_git, tag, base_settings):
    if tag not in _CANDIDATES:
        _CANDIDATES[tag] = candidate_revs(mb_git, tag)
    seen = {fingerprint(mb_git, mb_git.rev_parse(tag), row)}
    for h, date, branch in _CANDIDATES[tag]:
        fp = fingerprint(mb_git, h, row)
        if fp in seen:
            continue
        seen.add(fp)
        try:
            it, cfg, commit, _ = resolve_row(row, mb_git, mlm_git, h)
        except Exception:  # noqa: BLE001 - a commit that cannot be read is skipped
            continue
        if not isinstance(cfg, Instance):
            continue
        settings, sources, defaults, _ = collect_settings(it, cfg)
        if compare_layout(row, settings, defaults):
            continue
        cname, cwhere = selected_config(it, row)
        changed = {k: {"tag": base_settings.get(k), "here": settings.get(k), "source": sources.get(k)}
                   for k in settings if settings.get(k) != base_settings.get(k)}
        return {"commit": commit, "date": date, "branch": branch, "config": cname, "config_source": cwhere,
                "settings_changed_vs_tag": changed}
    return None


def lookup_path(it, cfg, path):
    """(value, origin, set_at, from_default) for a dotted attribute path of the ConfigContainer."""
    obj = cfg
    parts = path.split(".")
    for p in parts[:-1]:
        o = U(obj)
        if not isinstance(o, Instance):
            return None, None, None, "container missing"
        obj = it.getattr(o, p)
    o = U(obj)
    if o is None:
        return None, None, None, f"{parts[0]} is None"
    if not isinstance(o, Instance):
        return None, None, None, f"{'.'.join(parts[:-1])} unknown"
    name = parts[-1]
    if name in o.attrs:
        v, set_at = o.attrs[name]
        origin = v.origin if isinstance(v, T) else None
        return v, origin, set_at, None
    if isinstance(o.cls, Class):
        r = it.class_attr(o.cls, name, o)
        if r is not None:
            v, where = r
            origin = v.origin if isinstance(v, T) else where
            return v, origin, where, "class default"
    return None, None, None, "not a field"


def jsonable(v):
    v = deep(v)
    if isinstance(v, (Unknown, HFStub)):
        return None
    if isinstance(v, (list, tuple)):
        return [jsonable(e) for e in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, External) and v.name.startswith("torch.") and v.name.count(".") == 1:
        return v.name  # a dtype such as torch.bfloat16 (optimizer main_grads_dtype, exp_avg_dtype)
    if isinstance(v, (External, Instance)):
        return None
    return str(v)


def short(where):
    if where is None:
        return None
    where = where.replace("MB:", "")
    return where


def collect_settings(it, cfg):
    settings, sources, defaults, unresolved = {}, {}, {}, []
    for key, path in SETTINGS:
        v, origin, set_at, status = lookup_path(it, cfg, path)
        in_mlm = (set_at or "").startswith("MLM@")
        if status in ("container missing",) or (status and status.endswith("unknown")):
            settings[key] = None
            unresolved.append(f"{key}: {status}")
            continue
        if status and status.endswith("is None"):
            settings[key] = None
            defaults[key] = f"{path.split('.')[0]} is None in this recipe"
            continue
        if status == "not a field":
            settings[key] = None
            defaults[key] = "not a field of this release's config classes"
            continue
        if is_unknown(v):
            settings[key] = None
            unresolved.append(f"{key}: {U(v).why if isinstance(U(v), Unknown) else 'unknown'}")
            if set_at:
                sources[key] = short(set_at)
            continue
        if status == "class default" and in_mlm:
            settings[key] = None
            defaults[key] = {"value": jsonable(v), "source": set_at}
            continue
        settings[key] = jsonable(v)
        src = short(set_at)
        org = short(origin)
        sources[key] = src if (org is None or org == src) else f"{src} (value from {org})"
    # CommOverlapConfig._get_model_comm_overlap_cfgs turns TP communication overlap off at setup time when
    # TP < 2 or sequence parallelism is off (src/megatron/bridge/training/comm_overlap.py).
    path = "src/megatron/bridge/training/comm_overlap.py"
    src = it.mb.file(path)
    lines = []
    if src is not None:
        text = it.mb.git.show(it.mb.commit, path).splitlines()
        lines = [i + 1 for i, ln in enumerate(text)
                 if "tensor_model_parallel_size < 2" in ln or "elif not model_cfg.sequence_parallel" in ln]
    tp = settings.get("tensor_model_parallel_size") or 1
    sp = settings.get("sequence_parallel")
    settings["tp_comm_overlap_effective"] = bool(settings.get("tp_comm_overlap") is True and tp >= 2 and sp)
    sources["tp_comm_overlap_effective"] = (f"derived from tp_comm_overlap, TP and sequence_parallel as in "
                                            f"{path}:{','.join(map(str, lines))}")
    return settings, sources, defaults, unresolved


TABLE_KEYS = [("tp", "tensor_model_parallel_size"), ("pp", "pipeline_model_parallel_size"),
              ("cp", "context_parallel_size"), ("ep", "expert_model_parallel_size"),
              ("vpp", "virtual_pipeline_model_parallel_size"), ("micro_batch", "micro_batch_size"),
              ("global_batch", "global_batch_size")]


def compare_layout(row, settings, defaults):
    diffs = []
    for tk, sk in TABLE_KEYS:
        want = row.get(tk)
        got = settings.get(sk)
        if got is None and isinstance(defaults.get(sk), dict):
            got = defaults[sk]["value"]
        if tk == "vpp":
            want = None if want in (None, 1) else want
            got = None if got in (None, 1) else got
        if tk in ("cp", "ep", "tp", "pp"):
            want = want or 1
            got = got or 1
        if want != got:
            diffs.append(f"{tk}: table {row.get(tk)} vs recipe {got}")
    fsdp_table = row.get("optimizer_sharding") == "FSDP"
    fsdp_recipe = bool(settings.get("use_megatron_fsdp"))
    if fsdp_table != fsdp_recipe:
        diffs.append(f"fsdp: table {'FSDP' if fsdp_table else 'none'} vs recipe use_megatron_fsdp={settings.get('use_megatron_fsdp')}")
    return diffs


def selected_config(it, row):
    """Name and place of the preset the run selected (WorkloadBaseConfig or flat perf recipe)."""
    gpu = SYSTEM_GPU[row["gpu_type"]]
    dtype = PRECISION[row["precision"]]
    name02, size02, family, recipe_name = MODELS[row["model_name"]]
    if it.selected:
        path, line, name = it.selected
        return name, f"{path}:{line}"
    if it.old_cli:
        cname = f"{name02}_{size02}_{gpu}_{dtype}".upper() + "_BASE_CONFIG"
        mod = it.resolve_module(f"configs.{name02}.workload_base_configs")
    else:
        variant = U(it.args_obj.attrs["config_variant"][0]) if "config_variant" in it.args_obj.attrs else "v1"
        cname = None
        mod = it.resolve_module(f"configs.{family}")
        for cand in [f"{recipe_name}_pretrain_config_{gpu}_{dtype}_{variant}",
                     f"{recipe_name}_pretrain_config_{gpu}_{dtype}_v1",
                     f"{recipe_name}_pretrain_config_{gpu}_{dtype}"]:
            if isinstance(mod, Module) and not isinstance(mod.lookup(cand.upper()), Missing):
                cname = cand.upper()
                break
        if cname is None:
            return None, None
    # find defining file/line
    if isinstance(mod, Module):
        for m in [mod] + [it.import_from_node(mod, s) for s in mod.star]:
            if isinstance(m, Module) and cname in m.index and isinstance(m.index[cname], ast.Assign):
                return cname, f"{m.src.path}:{m.index[cname].lineno}"
            if isinstance(m, Module) and cname in m.index and isinstance(m.index[cname], ast.ImportFrom):
                sub = it.import_from_node(m, m.index[cname])
                if isinstance(sub, Module) and cname in sub.index:
                    return cname, f"{sub.src.path}:{sub.index[cname].lineno}"
    return cname, None


def check_release_evidence(mb_git):
    out = {}
    sv = mb_git.show(SUMMARY_COMMIT, "docs/releases/software-versions.md") or ""
    sv_map, section = {}, None
    for line_no, line in enumerate(sv.splitlines(), 1):
        m = re.match(r"^## NeMo Framework (\S+)", line)
        if m:
            section = m.group(1)
        m = re.match(r"^\| Megatron-Bridge \| (\S+) \|", line)
        if m and section:
            sv_map[section] = (m.group(1), line_no)
    for release, tag in RELEASES.items():
        found = []
        for path, pattern in RELEASE_EVIDENCE[release]:
            text = mb_git.show(SUMMARY_COMMIT, path) or ""
            for line_no, line in enumerate(text.splitlines(), 1):
                if re.search(pattern, line):
                    found.append(f"{path}:{line_no} ({line.strip()[:90]})")
                    break
            else:
                raise SystemExit(f"release evidence for {release} not found: {path} /{pattern}/")
        if release in sv_map:
            found.append(f"docs/releases/software-versions.md:{sv_map[release][1]} (NeMo Framework {release} "
                         f"lists Megatron-Bridge {sv_map[release][0]})")
        commit = mb_git.rev_parse(tag)
        date = subprocess.run(["git", "--git-dir", mb_git.git_dir, "log", "-1", "--format=%cs", tag],
                              capture_output=True, text=True, check=True).stdout.strip()
        out[release] = {
            "megatron_bridge": tag,
            "commit": commit,
            "tag_date": date,
            "megatron_lm_submodule": mb_git.submodule_commit(tag, "3rdparty/Megatron-LM"),
            "evidence": f"at Megatron-Bridge {SUMMARY_COMMIT[:9]}: " + "; ".join(found),
        }
    # First tag whose performance summary lists the release's numbers (they are usually published after the tag).
    all_tags = subprocess.run(["git", "--git-dir", mb_git.git_dir, "tag", "--sort=creatordate"], capture_output=True,
                              text=True, check=True).stdout.split()
    for release in out:
        for t in all_tags:
            if not t.startswith("v"):
                continue
            texts = [mb_git.show(t, p) or "" for p in ("docs/performance-summary.md",
                                                       "docs/performance-summary-archive.md")]
            if any(f"## {release} NeMo Container" in x for x in texts):
                out[release]["first_tag_with_published_numbers"] = t
                out[release]["evidence"] += f"; the performance summary first lists '## {release} NeMo Container' at tag {t}"
                break
    same = subprocess.run(["git", "--git-dir", mb_git.git_dir, "diff", "--stat", "v0.2.0", "v0.2.1", "--",
                           "scripts/performance/configs", "scripts/performance/utils",
                           "src/megatron/bridge/recipes/qwen", "src/megatron/bridge/recipes/deepseek",
                           "src/megatron/bridge/recipes/llama", "src/megatron/bridge/recipes/gpt_oss"],
                          capture_output=True, text=True, check=True).stdout.strip()
    out["25.11"]["evidence"] += ("; v0.2.1 (2025-12-09, which adds the 25.11 numbers to the docs) has " +
                                 ("no changes to the perf configs or the four recipe families versus v0.2.0"
                                  if not same else f"changes versus v0.2.0: {same.splitlines()[-1]}"))
    out["26.04.01"]["evidence"] += ("; no software-versions.md section for 26.04.01 exists; docs/versions1.json pairs it "
                                    "with 0.4.2 (v0.4.1 exists as a tag but is not named for any container)")
    out["26.06.01"]["evidence"] += "; no software-versions.md section for 26.06.01 exists"
    out["26.08"]["evidence"] += ("; no software-versions.md section for 26.08 exists at this commit; "
                                 "src/megatron/bridge/package_info.py at v0.6.0 says PATCH = 1")
    return out


def load_rows():
    archive = json.load(open(os.path.join(ROOT, "tests/fixtures/published_runs_nemo_archive.json")))
    shared = json.load(open(os.path.join(ROOT, "tests/fixtures/published_runs.json")))
    shared = shared if isinstance(shared, list) else shared.get("runs", [])
    extra = [r for r in shared if r["id"].startswith("nemo_bridge_25.11_h100_")]
    return archive + extra


def release_of(row_id):
    return re.match(r"^nemo_bridge_(\d\d\.\d\d(?:\.\d\d)?)_", row_id).group(1)


def _eff(entry, key):
    """Value of a setting with the Megatron-Core default filled in (for display)."""
    v = entry["settings"].get(key)
    if v is None and key in entry.get("megatron_defaults", {}):
        return entry["megatron_defaults"][key]
    return v


def _fmt_recompute(e):
    g = _eff(e, "recompute_granularity")
    if not g:
        return "none"
    if g == "full":
        return f"full/{_eff(e, 'recompute_method')}/{_eff(e, 'recompute_num_layers')}"
    mods = _eff(e, "recompute_modules")
    # TransformerConfig.__post_init__ turns recompute_modules=None into ["core_attn"]
    return "selective:" + ("+".join(mods) if mods else ("[] (nothing)" if mods == [] else "core_attn (default)"))


def _fmt_offload(e):
    parts = []
    if _eff(e, "cpu_offloading"):
        what = "act" if _eff(e, "cpu_offloading_activations") else ""
        what += "+wgt" if _eff(e, "cpu_offloading_weights") else ""
        parts.append(f"{_eff(e, 'cpu_offloading_num_layers')} layers ({what or '-'})")
    if _eff(e, "fine_grained_activation_offloading"):
        parts.append("fine-grained:" + "+".join(_eff(e, "offload_modules") or []))
    if _eff(e, "optimizer_cpu_offload"):
        parts.append(f"optimizer {_eff(e, 'optimizer_offload_fraction')}")
    return "; ".join(parts) or "none"


def _fmt_cg(e):
    impl = _eff(e, "cuda_graph_impl")
    if not impl or impl == "none":
        return "none"
    scope = _eff(e, "cuda_graph_scope")
    scope = "+".join(scope) if isinstance(scope, list) else scope
    return f"{impl}" + (f":{scope}" if scope else "")


def _fmt_layout(e):
    lay = e["settings"].get("pipeline_model_parallel_layout")
    if isinstance(lay, list):
        stages = ["".join({"embedding": "E", "decoder": "t", "mtp": "m", "loss": "L"}.get(x, "?") for x in st)
                  for st in lay]
        return "|".join(stages)
    return lay or "-"


KNOWN_ISSUES_DEEPEP = ("docs/releases/known-issues.md", "DeepEP is not supported in the current NeMo framework 26.02")


def _find_line(mb_git, rev, path, needle):
    text = mb_git.show(rev, path) or ""
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    return None


def row_notes(row, e, mb_git):
    """One human-readable string per row: layout check, model caveats, Megatron defaults for unset settings."""
    out = []
    if e["layout_matches_table"]:
        out.append(f"layout (TP/PP/CP/EP/VP/MBS/GBS/FSDP) of {e['config']} at {e['megatron_bridge']} matches the table")
    else:
        out.append(f"layout differs from the table at {e['megatron_bridge']}: " + "; ".join(e["layout_differences"]))
        m = e.get("later_commit_matching_table_layout")
        if m:
            changed = ", ".join(f"{k}={v['here']!r}" for k, v in m["settings_changed_vs_tag"].items()
                                if k != "tp_comm_overlap_effective")
            out.append(f"first later commit whose preset gives the table layout: {m['commit'][:9]} ({m['date']}, "
                       f"{m['branch']}, {m['config']}); settings that differ there: {changed or 'none'}")
        elif "later_commit_matching_table_layout" in e:
            out.append("no later commit on the release branch, and none on main before the next release tag, has a "
                       "preset that gives the table layout, so the table layout cannot be traced to a preset in the "
                       "repo (argument_parser.py accepts per-run overrides of these sizes, which the repo does not "
                       "record)")
    if e.get("config_variant"):
        out.append(e["config_variant"])
    alt = e.get("alternate")
    if alt:
        changed = ", ".join(f"{k}={v['alternate']!r}" for k, v in alt["settings_changed"].items()
                            if k != "tp_comm_overlap_effective")
        out.append(f"at {alt['megatron_bridge']} ({alt['config']}) the settings differ in: {changed or 'nothing'}; "
                   f"layout {'matches' if alt['layout_matches_table'] else 'does not match'} the table there")
    s = e["settings"]
    if row["model_name"] == "DeepSeekV3" and (s.get("mtp_num_layers") or 0) > 0:
        label = "the table labels this row 'w/o MTP' but " if row["id"].startswith("nemo_bridge_25.11") else ""
        out.append(f"{label}the recipe keeps mtp_num_layers={s['mtp_num_layers']} ({e['sources'].get('mtp_num_layers')}); "
                   "the pipeline layout places the MTP block ('m') on the last stage")
    if (e["release"] == "26.02" and s.get("moe_token_dispatcher_type") == "flex"
            and s.get("moe_flex_dispatcher_backend") == "deepep"):
        line = _find_line(mb_git, SUMMARY_COMMIT, KNOWN_ISSUES_DEEPEP[0], KNOWN_ISSUES_DEEPEP[1])
        out.append(f"the recipe selects DeepEP, but {KNOWN_ISSUES_DEEPEP[0]}:{line} (at {SUMMARY_COMMIT[:9]}) says DeepEP "
                   "is not supported in the 26.02 container")
    if s.get("tp_comm_overlap") and not s.get("tp_comm_overlap_effective"):
        out.append("tp_comm_overlap is requested but Bridge disables it at setup (TP<2 or no sequence parallel)")
    if (s.get("moe_token_dispatcher_type") != "flex" and s.get("moe_flex_dispatcher_backend")
            and row["model_name"] not in ("LLAMA3_8B", "LLAMA3_70B", "LLAMA3.1_405B")):
        out.append(f"moe_flex_dispatcher_backend={s['moe_flex_dispatcher_backend']!r} is inert: the dispatcher is "
                   f"{s.get('moe_token_dispatcher_type')!r}")
    defaults = []
    for k in CORE_SETTINGS + ["cpu_offloading_num_layers", "optimizer_cpu_offload", "enable_cuda_graph",
                              "external_cuda_graph", "nccl_ub", "mtp_num_layers"]:
        d = e["megatron_defaults"].get(k)
        if s.get(k) is None and isinstance(d, dict):
            defaults.append(f"{k}={d['value']!r}")
    if defaults:
        out.append(f"not set by Bridge, Megatron-Core default (MLM {str(e['megatron_lm_commit'])[:9]}) applies: "
                   + ", ".join(defaults))
    if e.get("compute_dtype") == "fp8_cs" and row["precision"] == "FP8":
        out.append("table precision 'FP8' read as --compute_dtype fp8_cs (current scaling)")
    return ". ".join(out)


def render_markdown(doc):
    """Settings table per (model, system, precision), consecutive releases with equal cells merged."""
    rows_by_key = {}
    order = list(RELEASES)
    fixture = {r["id"]: r for r in load_rows()}
    for rid, e in doc["rows"].items():
        if not e.get("settings"):
            continue
        r = fixture[rid]
        key = (r["model_name"].replace(" ", "_"), r["gpu_type"].removeprefix("DGX-"), r["precision"],
               rid.split("_")[-1] if rid.endswith("_tp1pp2") else "")
        rows_by_key.setdefault(key, []).append((order.index(e["release"]), e["release"], e))
    dense = ("LLAMA3_8B", "LLAMA3_70B", "LLAMA3.1_405B")
    out = ["| Model | System | Prec | Release(s) | TP/PP/CP/EP/VP | MBS/GBS | SP | Recompute | M-FSDP | CPU offload |"
           " Dispatcher | EP A2A overlap | CUDA graph | TP overlap (eff.) | MTP | PP layout | Table layout |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(rows_by_key):
        model, system, prec, extra = key
        cells_prev, group = None, []
        items = sorted(rows_by_key[key])
        groups = []
        for _, rel, e in items:
            s = e["settings"]
            vp = s.get("virtual_pipeline_model_parallel_size")
            moe = model not in dense
            disp = "-"
            if moe:
                disp = _eff(e, "moe_token_dispatcher_type")
                if disp == "flex":
                    disp += "/" + str(_eff(e, "moe_flex_dispatcher_backend"))
            cells = (
                f"{s['tensor_model_parallel_size']}/{s['pipeline_model_parallel_size']}/{s['context_parallel_size']}/"
                f"{s['expert_model_parallel_size']}/{vp or '-'}",
                f"{s['micro_batch_size']}/{s['global_batch_size']}",
                "y" if s.get("sequence_parallel") else "n",
                _fmt_recompute(e),
                ("y:" + str(s.get("data_parallel_sharding_strategy"))) if s.get("use_megatron_fsdp") else "n",
                _fmt_offload(e),
                disp,
                ("y" if s.get("overlap_moe_expert_parallel_comm") else "n") if moe else "-",
                _fmt_cg(e),
                f"{'y' if s.get('tp_comm_overlap') else 'n'} ({'y' if s.get('tp_comm_overlap_effective') else 'n'})",
                str(_eff(e, "mtp_num_layers") or "-") if moe else "-",
                _fmt_layout(e),
                "match" if e["layout_matches_table"] else "DIFFERS",
            )
            if groups and groups[-1][1] == cells:
                groups[-1][0].append(rel)
            else:
                groups.append(([rel], cells))
        for rels, cells in groups:
            label = rels[0] if len(rels) == 1 else f"{rels[0]}..{rels[-1]}" if len(rels) > 2 else ", ".join(rels)
            name = model + (f" ({extra})" if extra else "")
            out.append(f"| {name} | {system} | {prec} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR)
    ap.add_argument("--megatron-lm", default=DEFAULT_MLM_MIRROR)
    ap.add_argument("--only", default=None, help="regex on row id (debugging)")
    ap.add_argument("--no-search", action="store_true",
                    help="skip the search of later commits for rows whose layout differs from the table")
    ap.add_argument("--markdown", metavar="JSON", default=None,
                    help="print the settings table of docs/nemo-recipe-settings.md from an existing output file")
    opts = ap.parse_args()
    if opts.markdown:
        print(render_markdown(json.load(open(opts.markdown))))
        return
    mb_git = Git(opts.mirror, "MB")
    mlm_git = Git(opts.megatron_lm, "MLM") if os.path.isdir(opts.megatron_lm) else None
    releases = check_release_evidence(mb_git)
    rows = load_rows()
    out_rows = {}
    n_full = n_layout = 0
    for row in rows:
        if opts.only and not re.search(opts.only, row["id"]):
            continue
        release = release_of(row["id"])
        tag = RELEASES[release]
        it, cfg, commit, mlm_commit = resolve_row(row, mb_git, mlm_git, tag)
        variant_note = None
        if isinstance(cfg, Instance):
            st, _, df, _ = collect_settings(it, cfg)
            if compare_layout(row, st, df):
                # The table may show a named preset variant (argument_parser.py --config_variant).
                for variant in config_variants(mb_git, tag, row):
                    vit, vcfg, _, _ = resolve_row(row, mb_git, mlm_git, tag, variant)
                    if isinstance(vcfg, Instance):
                        vst, _, vdf, _ = collect_settings(vit, vcfg)
                        if not compare_layout(row, vst, vdf):
                            it, cfg = vit, vcfg
                            variant_note = (f"selected with --config_variant {variant}: the default variant does not "
                                            f"give the table layout, this one does")
                            break
        entry = {"release": release, "megatron_bridge": tag, "commit": commit,
                 "megatron_lm_commit": mlm_commit}
        if variant_note:
            entry["config_variant"] = variant_note
        model_notes = [n for n in it.notes if "/bridge/models/" in n]
        notes = [n for n in it.notes if "/bridge/models/" not in n]
        if model_notes:
            notes.append(f"{len(model_notes)} statements in the Hugging Face model bridge (src/megatron/bridge/models) "
                         "depend on config.json values that are not in the repo and were left unresolved; they set "
                         "architecture fields only (rope, dtype, activation, vocab), none of the settings above")
        if not isinstance(cfg, Instance):
            entry.update(file=None, config=None, settings=None, layout_matches_table=False,
                         resolved=False, notes=notes or ["no config captured"])
            out_rows[row["id"]] = entry
            continue
        settings, sources, defaults, unresolved = collect_settings(it, cfg)
        experts = lookup_path(it, cfg, "model.num_moe_experts")[0]
        if row["model_name"] not in ("LLAMA3_8B", "LLAMA3_70B", "LLAMA3.1_405B") and (
                is_unknown(experts) or not U(experts)):
            notes.append("num_moe_experts unresolved: MoE-only branches may have been skipped")
        cname, cwhere = selected_config(it, row)
        diffs = compare_layout(row, settings, defaults)
        core_missing = [k for k in CORE_SETTINGS if k in [u.split(":")[0] for u in unresolved]]
        resolved = not core_missing
        n_full += resolved
        n_layout += not diffs
        entry.update(
            file=cwhere.split(":")[0] if cwhere else None,
            config=cname,
            config_source=cwhere,
            compute_dtype=PRECISION[row["precision"]],
            settings=settings,
            sources=sources,
            megatron_defaults=defaults,
            unresolved=unresolved,
            resolved=resolved,
            layout_matches_table=not diffs,
            layout_differences=diffs,
        )
        if diffs and not opts.no_search:
            entry["later_commit_matching_table_layout"] = search_layout_match(row, mb_git, mlm_git, tag, settings)
        if release in ALTERNATE_TAGS:
            alt_tag, reason = ALTERNATE_TAGS[release]
            ait, acfg, acommit, _ = resolve_row(row, mb_git, mlm_git, alt_tag)
            asettings, asources, adefaults, _ = collect_settings(ait, acfg)
            acname, acwhere = selected_config(ait, row)
            entry["alternate"] = {
                "megatron_bridge": alt_tag, "commit": acommit, "reason": reason, "config": acname,
                "config_source": acwhere, "layout_matches_table": not compare_layout(row, asettings, adefaults),
                "settings_changed": {k: {"tag": settings.get(k), "alternate": asettings.get(k),
                                         "source": asources.get(k)}
                                     for k in asettings if asettings.get(k) != settings.get(k)},
            }
        entry["interpreter_notes"] = notes
        entry["notes"] = row_notes(row, entry, mb_git)
        out_rows[row["id"]] = entry
    # Compact form: per row only the default values; where each default is defined, once per Megatron-LM commit.
    default_sources = {}
    for entry in out_rows.values():
        md = entry.pop("megatron_defaults", None)
        if md is None:
            continue
        values, not_applicable = {}, {}
        srcs = default_sources.setdefault(str(entry["megatron_lm_commit"]), {})
        for k, v in md.items():
            if isinstance(v, dict):
                values[k] = v["value"]
                srcs[k] = v["source"].split(":", 1)[1]
            else:
                not_applicable[k] = v
        entry["megatron_defaults"] = values
        entry["not_applicable"] = not_applicable
        entry.pop("interpreter_notes", None) if not entry.get("interpreter_notes") else None
    doc = {
        "source": ("tools/extract_nemo_recipe_settings.py: Megatron-Bridge perf recipes read (not executed) from "
                   f"the git mirror at the release tag of each NeMo container; Megatron-Core defaults from the "
                   f"pinned 3rdparty/Megatron-LM submodule commit. Stubs: {' '.join(STUBS.split())}"),
        "conventions": {
            "settings": "effective value on the ConfigContainer handed to pretrain(); null = not set by Megatron-Bridge "
                        "(see megatron_defaults / not_applicable) or unresolved (see unresolved)",
            "sources": "file:line (at 'commit') of the statement that set the value, and of the literal it came from",
            "megatron_defaults": "Megatron-Core dataclass default that applies when Bridge leaves the field unset; "
                                 "its file:line at megatron_lm_commit is in megatron_core_default_sources; runtime "
                                 "__post_init__ adjustments are not applied",
            "not_applicable": "settings whose config object is None in this recipe or whose field does not exist "
                              "in this release",
            "later_commit_matching_table_layout": "only for rows whose layout differs from the table: the first later "
                                                  "commit (release branch, then main up to the next release tag) "
                                                  "whose preset reproduces the table layout, or null",
            "tp_comm_overlap_effective": "tp_comm_overlap and TP>=2 and sequence_parallel (Bridge switches TP "
                                         "overlap off otherwise, comm_overlap.py)",
            "fp8_recipe": "MixedPrecisionConfig field; only meaningful when fp8 is not null",
            "tp_comm_overlap": "as configured in CommOverlapConfig; Bridge's CommOverlapConfig setup disables it at "
                               "runtime when TP=1 or sequence parallel is off (see docs/nemo-recipe-settings.md)",
            "compute_dtype": "FP8 in the 26.x tables is read as fp8_cs (current scaling), FP8-CS as fp8_cs, MXFP8 as fp8_mx",
        },
        "releases": releases,
        "megatron_core_default_sources": default_sources,
        "rows": out_rows,
        "summary": {"rows": len(out_rows), "fully_resolved": n_full, "layout_matches_table": n_layout},
    }
    write_json(doc, sys.stdout)


def write_json(doc, fh):
    """Indented at the top, one line per row (keeps the file diffable without tripling its size)."""
    fh.write("{\n")
    keys = list(doc)
    for i, k in enumerate(keys):
        sep = "," if i + 1 < len(keys) else ""
        if k == "rows":
            fh.write(' "rows": {\n')
            rids = list(doc["rows"])
            for j, rid in enumerate(rids):
                fh.write(f"  {json.dumps(rid)}: {json.dumps(doc['rows'][rid], ensure_ascii=False)}"
                         f"{',' if j + 1 < len(rids) else ''}\n")
            fh.write(f" }}{sep}\n")
        else:
            body = json.dumps(doc[k], indent=1, ensure_ascii=False).replace("\n", "\n ")
            fh.write(f" {json.dumps(k)}: {body}{sep}\n")
    fh.write("}\n")


if __name__ == "__main__":
    main()
