#!/usr/bin/env python3
"""Training rows of Megatron-Bridge's performance summaries, in the layout of
../shared/calibration/published_runs.json, for the held-out training table (docs/accuracy.md).

Reads docs/performance-summary.md and docs/performance-summary-archive.md at one commit of a
Megatron-Bridge checkout (git show, no work tree needed) and writes every pre-training row that
the time model can be asked about: a model with a known shape (Llama 3 / 3.1 from the Llama 3
paper's Table 3, the MoE models through meshplan's presets), a precision it represents (BF16,
FP8 current scaling, MXFP8, NVFP4), and token-dropless routing. The 25.11 H100 rows
are left out: ../shared/calibration/published_runs.json already has them and the fit uses them.

    python3 tools/extract_nemo_perf_rows.py /work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo \
        > tests/fixtures/published_runs_nemo_archive.json
"""

import json
import re
import subprocess
import sys

LLAMA_ARCH = {  # Llama 3 paper (arXiv 2407.21783) Table 3; vocabulary 128,000 as the shared rows have it
    "LLAMA3_8B": (32, 4096, 32, 8, 14336),
    "LLAMA3_70B": (80, 8192, 64, 8, 28672),
    "LLAMA3.1_405B": (126, 16384, 128, 8, 53248),
}
PRESET_MODELS = {"DeepSeekV3", "GPT OSS 120B", "Qwen3_30B_a3B", "Qwen3_235B_a22B", "Nemotron_3_Nano",
                 "Nemotron_3_Super"}
SYSTEMS = {"DGX-H100", "DGX-B200", "DGX-B300", "DGX-GB200", "DGX-GB300"}
PATHS = ["docs/performance-summary.md", "docs/performance-summary-archive.md"]


def first_value(cell):
    """'31508 (29789)' -> '31508': the parenthesised figure is another quantisation granularity."""
    return re.sub(r"\[\^[^\]]*\]", "", cell).split("(")[0].strip()


def as_int(cell):
    value = first_value(cell)
    return None if value in ("n/a", "", "-") else int(value)


def precision_of(cell):
    value = first_value(cell)
    if value in ("BF16", "FP8-CS", "FP8", "MXFP8", "FP8-MX", "NVFP4"):
        return "MXFP8" if value == "FP8-MX" else value
    return None  # anything new


def model_key(name):
    """'DeepSeekV3 (w/o MTP)' -> ('DeepSeekV3', 'w/o MTP')."""
    match = re.match(r"^(.*?)\s*(?:\((.*)\))?\s*$", name)
    return match.group(1).strip(), (match.group(2) or "").strip()


def rows_of(text, path, commit):
    release = None
    system = None
    model = None
    header = None
    training = False
    for line_no, line in enumerate(text.splitlines(), 1):
        if m := re.match(r"^## (\d\d\.\d\d(?:\.\d\d)?) NeMo Container", line):
            release, system, model, header, training = m.group(1), None, None, None, False
            continue
        if line.startswith("### "):
            training = "Pre-Training" in line
            continue
        if m := re.match(r"^#### System: (\S+)", line):
            system, model = m.group(1), None
            continue
        if m := re.match(r"^#### Model: (.+)$", line):
            model, system = m.group(1).strip(), None
            continue
        if not line.startswith("|") or release is None or not training:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("System", "Model"):
            header = cells
            continue
        if header is None or set(cells[0]) <= {"-"}:
            continue
        row = dict(zip(header, cells))
        yield release, row.get("System", system), row.get("Model", model), row, f"{path}:{line_no}"


def footnotes_of(text, path):
    """'[^name]: text' definitions of a summary file: name -> (text, 'path:line')."""
    notes = {}
    for line_no, line in enumerate(text.splitlines(), 1):
        if m := re.match(r"^\[\^([^\]]+)\]:\s*(.+)$", line):
            notes[m.group(1)] = (m.group(2).strip(), f"{path}:{line_no}")
    return notes


def known_regression(row, notes):
    """The row's footnote where the table itself calls its figure a performance regression (a known
    software issue of that container, fixed in a later one): the run is not what the stack does."""
    for cell in row.values():
        for name in re.findall(r"\[\^([^\]]+)\]", cell):
            text, where = notes.get(name, ("", ""))
            if re.search(r"regression", text, re.IGNORECASE):
                return f"{text} ({where})"
    return None


def build(row_system, row_model, row, release, where, commit, notes):
    if row_system not in SYSTEMS or row_model is None:
        return None
    name, variant = model_key(row_model)
    if name not in LLAMA_ARCH and name not in PRESET_MODELS:
        return None
    if "tokendrop" in variant or "w/ MTP" in variant:
        return None  # capacity-factor routing and the MTP head are not what the model costs
    if release == "25.11" and row_system == "DGX-H100":
        return None  # in ../shared/calibration/published_runs.json (the fit's rows)
    precision = precision_of(row.get("Precision", ""))
    if precision is None:
        return None  # a precision not listed, or a table without a precision column (25.09)
    gpus = as_int(row["#-GPUs"])
    tp, pp, cp = as_int(row["TP"]) or 1, as_int(row["PP"]) or 1, as_int(row["CP"]) or 1
    fsdp = as_int(row.get("FSDP", "0")) or 0
    arch = {"seq_len": as_int(row["Sequence Length"]), "moe": None}
    if name in LLAMA_ARCH:
        layers, hidden, heads, kv, ffn = LLAMA_ARCH[name]
        arch.update(num_layers=layers, hidden_size=hidden, num_attention_heads=heads, num_kv_heads=kv,
                    ffn_hidden_size=ffn, vocab_size=128000)
    system = row_system.removeprefix("DGX-").lower()
    run = {
        "id": f"nemo_bridge_{release}_{system}_{name}_{gpus}gpu_{precision}".replace(" ", "_"),
        "source": {"repo": "NVIDIA-NeMo/Megatron-Bridge", "path": f"{where} (commit {commit[:9]})",
                   "url": "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/" + commit + "/" + where.split(":")[0]},
        "model_name": name,
        "arch": arch,
        "gpu_type": row_system,
        "precision": precision,
        "num_gpus": gpus,
        "tp": tp, "pp": pp, "cp": cp, "dp": gpus // (tp * pp * cp),
        "ep": as_int(row["EP"]) or 1,
        "vpp": as_int(row["VP"]),
        "micro_batch": as_int(row["MBS"]),
        "global_batch": as_int(row["GBS"]),
        "optimizer_sharding": "FSDP" if fsdp > 0 else None,
        "measured": {"tokens_per_sec_per_gpu": as_int(row["Tokens / sec / GPU"]),
                     "tflops_per_gpu": as_int(row["Model TFLOP / sec / GPU"])},
        "notes": f"NeMo container {release}; table row as published" + (f" ({variant})" if variant else "")
                 + "; MoE rows force-balanced and token-dropless (the table's note).",
    }
    if regression := known_regression(row, notes):
        run["known_regression"] = regression
    return run


def main():
    repo = sys.argv[1]
    commit = subprocess.check_output(["git", "-C", repo, "rev-parse", "HEAD"], text=True).strip()
    runs, seen = [], set()
    for path in PATHS:
        text = subprocess.check_output(["git", "-C", repo, "show", f"{commit}:{path}"], text=True)
        notes = footnotes_of(text, path)
        for release, system, model, row, where in rows_of(text, path, commit):
            run = build(system, model, row, release, where, commit, notes)
            if run is None:
                continue
            if run["id"] in seen:  # a second layout of the same model, GPUs and precision
                run["id"] += f"_tp{run['tp']}pp{run['pp']}" + ("_fsdp" if run["optimizer_sharding"] else "")
            seen.add(run["id"])
            runs.append(run)
    json.dump(runs, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
