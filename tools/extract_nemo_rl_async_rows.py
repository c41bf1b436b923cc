#!/usr/bin/env python3
"""NeMo RL's measured off-policy (async GRPO) steps, in the layout of tests/fixtures/rl_runs_public.json,
for the RL calibration's unseen rows (docs/accuracy.md, "Off-policy rows").

Reads docs/about/performance-summary.md of a NeMo RL checkout (git show, no work tree) at the release
a table belongs to and, for every BF16 row whose On/Off policy column says "N-step Off", resolves the
performance recipe the table was measured with at the same commit
(examples/configs/recipes/llm/performance/grpo-<model>-<nodes>n<gpus>g-async-<N>off.yaml, its
`defaults:` chain down to examples/configs/grpo_math_1B.yaml): which GPUs generate
(policy.generation.colocated.resources), the vLLM and Megatron layouts, gpu_memory_utilization,
activation checkpointing, the first/last pipeline stage sizes, logprob_batch_size and
grpo.async_grpo (max_trajectory_age_steps, in_flight_weight_updates). Writes a JSON list to stdout.

    python3 tools/extract_nemo_rl_async_rows.py /work/.mirror/NVIDIA-NeMo+RL/repo \\
        > tests/fixtures/rl_runs_async.json

Needs PyYAML (Debian python3-yaml) for the recipes; it is a development tool, not part of the build.
"""

import json
import re
import subprocess
import sys

import yaml

# The release each table section belongs to, and the commit its doc and recipes are read at.
RELEASES = [
    ("v0.6", "v0.6.0", "Nemo RL v0.6"),
    ("v0.5", "108bffdab", "Nemo RL v0.5"),
]
DOC = "docs/about/performance-summary.md"
RECIPES = "examples/configs/recipes/llm/performance"
# Table model -> (recipe name, model name as the calibration reader's presets know it).
MODELS = {
    "LLAMA3.1_8B": ("llama3.1-8b-instruct", "Llama-3.1-8B-Instruct", "llama_31_8b_instruct"),
    "DeepSeek V3": ("deepseek-v3", "DeepSeek-V3", "deepseek_v3"),
    "Qwen3-235B": ("qwen3-235b", "Qwen3-235B-A22B", "qwen3_235b_a22b"),
    "Qwen3-30B3A": ("qwen3-30ba3b", "Qwen3-30B-A3B", "qwen3_30b_a3b"),
    "Qwen3-32B": ("qwen3-32b", "Qwen3-32B", "qwen3_32b"),
}
# Table section -> (GPU as the calibration reader knows it, GPUs per recipe node, id tag, precision):
# the FP8 section's recipes are named grpo-<model>-<nodes>n<gpus>g-fp8-async-<N>off.yaml.
SYSTEMS = {
    "H100 BF16": ("H100-80GB", 8, "h100", "BF16"),
    "H100 FP8": ("H100-80GB", 8, "h100", "FP8"),
    "GB200 BF16": ("GB200-NVL72", 4, "gb200", "BF16"),
}


def git_show(repo, commit, path):
    return subprocess.run(["git", "--git-dir", repo, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def merge(base, over):
    out = dict(base)
    for key, value in over.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def load_recipe(repo, commit, path, chain):
    """The recipe with its defaults chain merged under it; `chain` collects the files read."""
    text = git_show(repo, commit, path)
    chain.append(path)
    data = yaml.safe_load(text) or {}
    parent = data.pop("defaults", None)
    if parent:
        base_path = "/".join(path.split("/")[:-1] + [parent])
        parts = []
        for part in base_path.split("/"):
            if part == "..":
                parts.pop()
            elif part != ".":
                parts.append(part)
        data = merge(load_recipe(repo, commit, "/".join(parts), chain), data)
    return data


def lookup(config, dotted):
    node = config
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    if isinstance(node, str):
        match = re.fullmatch(r"\$\{([\w.]+)\}", node.strip())
        if match:
            return lookup(config, match.group(1))
    return node


def number(cell):
    return float(cell.replace(",", "").strip())


def table_rows(text):
    """(section, line number, cells) of every table row, with the '### ...' section above it."""
    release = section = None
    for line_no, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            release = line[3:].strip()
        elif line.startswith("### "):
            section = line[4:].strip()
        elif line.startswith("|") and not line.startswith("|--") and "Algorithm" not in line:
            yield release, section, line_no, [cell.strip() for cell in line.strip().strip("|").split("|")]


def rows_of(repo, tag, commit, heading):
    doc = git_show(repo, commit, DOC)
    for release, section, line_no, cells in table_rows(doc):
        system = next((key for key in SYSTEMS if section and section.startswith(key)), None)
        if release != heading or system is None or len(cells) < 12:
            continue
        algorithm, model, policy = cells[0], cells[1], cells[2]
        off = re.fullmatch(r"(\d+)-step Off", policy)
        if algorithm != "GRPO" or not off or model not in MODELS:
            continue
        recipe_model, model_name, model_tag = MODELS[model]
        gpu_type, per_node, gpu_tag, precision = SYSTEMS[system]
        gpus = int(number(cells[5]))
        fp8 = "-fp8" if precision == "FP8" else ""
        recipe_path = f"{RECIPES}/grpo-{recipe_model}-{gpus // per_node}n{per_node}g{fp8}-async-{off.group(1)}off.yaml"
        chain = []
        config = load_recipe(repo, commit, recipe_path, chain)
        megatron = lambda key: lookup(config, f"policy.megatron_cfg.{key}")
        resources = lookup(config, "policy.generation.colocated.resources") or {}
        generation_gpus = int(resources["num_nodes"]) * int(resources["gpus_per_node"])
        prompts = int(lookup(config, "grpo.num_prompts_per_step"))
        generations = int(lookup(config, "grpo.num_generations_per_prompt"))
        layout = [int(megatron("tensor_model_parallel_size") or 1), int(megatron("context_parallel_size") or 1),
                  int(megatron("expert_model_parallel_size") or 1), int(megatron("pipeline_model_parallel_size") or 1)]
        table_layout = [int(v) for v in re.findall(r"\d+", cells[9])[:4]]
        g_gbs, t_gbs = int(number(cells[6])), int(number(cells[7]))
        notes = []
        if table_layout != layout and len(table_layout) == 4:
            notes.append(f"table Training {cells[9]} vs recipe [TP,CP,EP,PP] {layout}: the recipe's is used")
        if prompts * generations != g_gbs:
            notes.append(f"recipe prompts x generations {prompts * generations} vs table G-GBS {g_gbs}")
        recipe_t_gbs = lookup(config, "policy.train_global_batch_size")
        if recipe_t_gbs is not None and int(recipe_t_gbs) != t_gbs:
            notes.append(f"recipe train_global_batch_size {recipe_t_gbs} vs table T-GBS {t_gbs}: the table's is used")
        row = {
            "id": f"nemorl_{tag.split('.')[0]}{tag.split('.')[1]}_{gpu_tag}_{model_tag}_{gpus}gpu_{off.group(1)}off"
                  + fp8.replace("-", "_"),
            "source": f"NVIDIA-NeMo/RL @ {commit} {DOC}:{line_no} ('{heading}' / '{section}' table, GRPO {model} "
                      f"{policy} {gpus} GPUs); recipe {recipe_path}",
            "framework": "nemo-rl",
            "mode": f"async {off.group(1)}-step off",
            "algorithm": "GRPO",
            "model": model_name,
            "gpu_type": gpu_type,
            "num_gpus": gpus,
            "generation_gpus": generation_gpus,
            "off_policy_steps": int(lookup(config, "grpo.async_grpo.max_trajectory_age_steps") or 1),
            "in_flight_weight_updates": bool(lookup(config, "grpo.async_grpo.in_flight_weight_updates")),
            "train_backend": "megatron-core",
            "rollout_engine": "vllm",
            "actor_parallel": {"tp": layout[0], "cp": layout[1], "ep": layout[2], "pp": layout[3]},
            "rollout_tp": int(lookup(config, "policy.generation.vllm_cfg.tensor_parallel_size") or 1),
            "train_batch_size": prompts,
            "rollout_n": generations,
            "ppo_mini_batch_size": t_gbs,
            "gpu_memory_utilization": float(lookup(config, "policy.generation.vllm_cfg.gpu_memory_utilization")),
            "gradient_checkpointing": bool(megatron("activation_checkpointing")),
            "first_stage_layers": int(megatron("num_layers_in_first_pipeline_stage") or 0),
            "last_stage_layers": int(megatron("num_layers_in_last_pipeline_stage") or 0),
            "logprob_batch_size": int(lookup(config, "policy.logprob_batch_size") or 1),
            "measured": {"step_s": number(cells[11]), "throughput_tokens_per_s": number(cells[10]),
                         "throughput_unit": "tokens/s/GPU (prompt+generated tokens / step time / #GPUs)"},
            "other_config": {"T_max_seq_len": int(number(cells[3])), "G_avg_seq_len": int(number(cells[4])),
                             "G_GBS_samples_per_step": g_gbs, "T_GBS": t_gbs, "precision": precision},
            "config_provenance": "table columns (#GPUs, T-Max, G-Average Seq len, G-GBS, T-GBS, Tokens/sec/GPU, step) "
                                 f"and the recipe chain {' <- '.join(chain)} at {commit} (the rest), read by "
                                 "tools/extract_nemo_rl_async_rows.py",
            "notes": "; ".join(notes),
        }
        # Stated only where the recipe sets them: vLLM's weights in fp8 (vllm_cfg.precision), Megatron's
        # GEMMs in fp8 (megatron_cfg.fp8_cfg.enabled), the engine's batch limit (vllm_kwargs.max_num_seqs).
        if lookup(config, "policy.generation.vllm_cfg.precision") == "fp8":
            row["generation_precision"] = "fp8"
        if megatron("fp8_cfg.enabled"):
            row["training_precision"] = "fp8"
        if lookup(config, "policy.generation.vllm_kwargs.max_num_seqs"):
            row["max_num_seqs"] = int(lookup(config, "policy.generation.vllm_kwargs.max_num_seqs"))
        yield row


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = [row for tag, commit, heading in RELEASES for row in rows_of(sys.argv[1], tag, commit, heading)]
    json.dump(rows, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
