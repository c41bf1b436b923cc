#!/usr/bin/env python3
"""Writes data/verl/verl_schema.json: verl's option names and defaults (types follow from the
defaults) for the base configs `ppo_trainer` and `ppo_megatron_trainer`.

Input: verl's fully resolved reference configs verl/trainer/config/_generated_ppo_trainer.yaml and
_generated_ppo_megatron_trainer.yaml, at volcengine/verl commit
b178a3cd56f58b2d502255daba591e92833930a7 (2026-01-29); the team's copy is ../shared/verl/config/.
Interpolations (`${...}`) are kept as strings; meshplan resolves them like OmegaConf.

usage: tools/generate_verl_schema.py CONFIG_DIR > data/verl/verl_schema.json
"""
import json
import re
import sys

import yaml

COMMIT = "b178a3cd56f58b2d502255daba591e92833930a7"
# YAML 1.1 (PyYAML) reads 1e-6 as a string; OmegaConf's loader reads it as a float.
FLOAT = re.compile(r"^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$")


def typed(value):
    if isinstance(value, dict):
        return {str(k): typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    if isinstance(value, str) and FLOAT.match(value) and any(c.isdigit() for c in value) \
            and any(c in value for c in ".eE"):
        return float(value)
    return value


def main() -> None:
    config_dir = sys.argv[1]
    configs = {}
    for name in ("ppo_trainer", "ppo_megatron_trainer"):
        with open(f"{config_dir}/_generated_{name}.yaml", encoding="utf-8") as f:
            configs[name] = typed(yaml.safe_load(f))
    json.dump({"source": f"volcengine/verl@{COMMIT} (2026-01-29), "
                         "verl/trainer/config/_generated_{ppo_trainer,ppo_megatron_trainer}.yaml",
               "configs": configs}, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
