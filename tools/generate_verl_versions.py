#!/usr/bin/env python3
"""Writes data/verl/verl_versions.json: what `check` knows of each verl version, from verl's git
history (nothing is imported or run).

Per version (the releases users run from v0.4.0 on, plus main commits):
- the Hydra config tree verl/trainer/config/**/*.yaml (the YAML defaults; the dataclass fields
  and types follow from it: verl builds its config dataclasses from these sections), with
  comment-only and blank lines dropped (`# @package` headers kept) and without verl's
  `_generated_*.yaml` snapshots (meshplan composes the tree as Hydra does);
- per version, the version specifiers its setup.py gives the rollout engines ("engines": vllm,
  sglang), which say whether an engine argument meshplan's tables lack may be newer than them;
- the config overlays of verl's other trainer entry points (ENTRY_CONFIG_DIRS: the one-step-off
  trainer's one_step_off_ppo_trainer.yaml and the fully-async trainer's fully_async_ppo_trainer.yaml,
  `defaults: [ppo_trainer, _self_]` with
  hydra.searchpath verl/trainer/config), under their own names at the root of the tree: Hydra
  resolves their defaults against verl/trainer/config as it does for the entry point; and, until
  v0.7.0, those of the recipes whose entry point composes over the PPO config (recipe_entries:
  recipe/dapo's dapo_trainer, ...), with the entry_config registry naming each entry point's config;
- the Python-side names that verl looks up in registries at start-up:
  adv_estimator  values of `class AdvantageEstimator` (verl/trainer/ppo/core_algos.py or
                 ray_trainer.py), the names get_adv_estimator_fn / compute_advantage accept;
  policy_loss    `@register_policy_loss("name")` in verl/trainer/ppo/core_algos.py
                 (get_policy_loss_fn);
  reward_manager `@register("name")` in verl/workers/reward_manager/*.py (get_reward_manager_cls); from
                 v0.7.1 in verl/experimental/reward_loop/reward_manager/*.py, the registry
                 load_reward_manager and RewardManagerConfig.__post_init__ read there;
  logger         the trainer.logger backends of `Tracking.supported_backend` (verl/utils/tracking.py);
  agent_loop     `@register("name")` in verl/experimental/agent_loop/*.py (the rollout.agent loops);
  checkpoint_engine `@CheckpointEngineRegistry.register("name")` in verl/checkpoint_engine/*.py (the
                 rollout.checkpoint_engine.backend names CheckpointEngineRegistry.get accepts);
  distillation_loss  the names of each `DistillationLossSettings(names=[...])` registered in
                 verl/trainer/distillation/losses.py (distillation.distillation_loss.loss_mode);
                 distillation_topk_loss those with use_topk=True;
  v1_trainer     `@register_trainer("name")` in verl/trainer/ppo/v1/*.py (the trainer.v1.trainer_mode
                 names get_trainer_cls accepts);
  vllm_executor  the distributed_executor_backend verl's vLLM server gives the engine
                 (verl/workers/rollout/vllm_rollout/vllm_async_server.py: "mp", or verl's own
                 ExternalZeroMQDistributedExecutor / ExternalRayDistributedExecutor): vLLM runs async
                 scheduling only with its uni, mp and external_launcher executors;
  loss_agg_mode  the list ActorConfig.__post_init__ (v0.6 on) or _validate_config checks;
  strategy       the actor strategies main_ppo dispatches on (`strategy in {...}` /
                 `strategy == "..."` in verl/trainer/main_ppo.py), the backends of
                 `@EngineRegistry.register(backend=...)` under verl/workers/engine/, and the
                 `strategy: str = "..."` defaults of the actor config dataclasses
                 (verl/workers/config/actor.py: MindSpeedActorConfig's "mindspeed" from v0.8.0,
                 whose engine takes its backend from actor.mindspeed.strategy instead).
- the fields of verl's config dataclasses (`@dataclass` classes of verl/**/*.py, with the fields of
  their bases), as "Class.field" (dataclass_field) and, for fields whose annotation admits a string
  (str, Any, a Union with str), also in dataclass_field_str: a section with `_target_` becomes that
  class at start-up, which can have fields its YAML does not list;
- the Python modules (verl/**/*.py) present: a rule of meshplan names the verl function it mirrors
  (`verl/workers/megatron_workers.py:...`) and applies only where that module exists (the legacy
  workers were removed in v0.8.0).
Compact form: every distinct config text and every name is one entry with `since` (the first
version that has it) and `until` (the first later version that does not; absent while the newest
still has it). An entry that leaves and returns gets one entry per run.

usage: tools/generate_verl_versions.py VERL_GIT_DIR > data/verl/verl_versions.json
  VERL_GIT_DIR: a clone of github.com/verl-project/verl (formerly volcengine/verl) with its tags.
"""
import ast
import json
import re
import subprocess
import sys

# (id, git ref). Main commits are named main@<short commit>.
VERSIONS = [
    ("0.4.0", "v0.4.0"), ("0.4.1", "v0.4.1"), ("0.5.0", "v0.5.0"), ("0.6.0", "v0.6.0"),
    ("0.6.1", "v0.6.1"), ("0.7.0", "v0.7.0"),
    ("main@b178a3cd", "b178a3cd56f58b2d502255daba591e92833930a7"),
    ("0.7.1", "v0.7.1"), ("0.8.0", "v0.8.0"), ("0.9.0", "v0.9.0"),
    ("main@1dda039b", "1dda039b9c6311889a9c9a26040677e1254814f9"),
]
CONFIG_DIR = "verl/trainer/config/"
# Entry points whose @hydra.main config_path is a directory of their own (recipe/ until v0.7.0,
# verl/experimental/ from main@b178a3cd on).
ENTRY_CONFIG_DIRS = ["recipe/one_step_off_policy/config/", "verl/experimental/one_step_off_policy/config/",
                     "recipe/fully_async_policy/config/", "verl/experimental/fully_async_policy/config/"]


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True,
                          text=True).stdout


def show(git_dir, ref, path):
    try:
        return git(git_dir, "show", f"{ref}:{path}")
    except subprocess.CalledProcessError:
        return ""


def compact_yaml(text):
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or (stripped.startswith("#") and not stripped.startswith("# @package")):
            continue
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def recipe_entries(git_dir, ref):
    """The recipes' trainer entry points that compose over verl's PPO config (verl's recipe/ until
    v0.7.0): {"recipe.dapo.main_dapo=dapo_trainer", ...} for each recipe/<name>/<file>.py whose
    `@hydra.main(config_path="config", config_name=N)` names a recipe/<name>/config/N.yaml with
    ppo_trainer or ppo_megatron_trainer in its defaults."""
    found = set()
    try:
        files = git(git_dir, "grep", "-l", "-E", r'@hydra\.main\(config_path="config"', ref, "--",
                    "recipe/*/*.py").split()
    except subprocess.CalledProcessError:  # no match
        return found
    for item in files:
        path = item.split(":", 1)[1]
        match = re.search(r'@hydra\.main\(config_path="config", config_name="([^"]+)"', show(git_dir, ref, path))
        if not match:
            continue
        directory = path.rsplit("/", 1)[0]
        config = show(git_dir, ref, f"{directory}/config/{match.group(1)}.yaml")
        if re.search(r"^\s*-\s*ppo_(megatron_)?trainer\s*$", config, re.M):
            found.add(path[:-len(".py")].replace("/", ".") + "=" + match.group(1))
    return found


def config_texts(git_dir, ref):
    names = git(git_dir, "ls-tree", "-r", "--name-only", ref, CONFIG_DIR).split()
    texts = {n[len(CONFIG_DIR):-len(".yaml")]: compact_yaml(show(git_dir, ref, n))
             for n in names if n.endswith(".yaml") and not n.startswith(CONFIG_DIR + "_generated_")}
    recipe_dirs = sorted({"recipe/" + e.split(".")[1] + "/config/" for e in recipe_entries(git_dir, ref)})
    for directory in [*ENTRY_CONFIG_DIRS, *recipe_dirs]:
        for n in git(git_dir, "ls-tree", "--name-only", ref, directory).split():
            name = n[len(directory):-len(".yaml")]
            # A recipe's config never shadows one of verl's own trees (recipe/r1's evaluation).
            if n.endswith(".yaml") and (directory in ENTRY_CONFIG_DIRS or name not in texts):
                texts[name] = compact_yaml(show(git_dir, ref, n))
    return texts


def grep(git_dir, ref, pattern, paths):
    try:
        out = git(git_dir, "grep", "-h", "-E", pattern, ref, "--", *paths)
    except subprocess.CalledProcessError:  # no match
        return []
    return out.splitlines()


def adv_estimators(git_dir, ref):
    for path in ("verl/trainer/ppo/core_algos.py", "verl/trainer/ppo/ray_trainer.py"):
        text = show(git_dir, ref, path)
        block = re.search(r"^class AdvantageEstimator\b.*?:\n((?:[ \t]+.*\n|\n)+)", text, re.M)
        if block:
            return set(re.findall(r'^\s+[A-Z_0-9]+\s*=\s*"([^"]+)"', block.group(1), re.M))
    return set()


def policy_losses(git_dir, ref):
    lines = grep(git_dir, ref, r'@register_policy_loss\("', ["verl/trainer/ppo/core_algos.py"])
    names = {m for line in lines for m in re.findall(r'register_policy_loss\("([^"]+)"', line)}
    if not names:  # no registry yet: loss_mode did not exist
        return names
    # before "vanilla" was registered (v0.5.0), the actors branched on it themselves
    lines = grep(git_dir, ref, r'loss_mode == "', ["verl/workers/actor/"])
    return names | {m for line in lines for m in re.findall(r'loss_mode == "([^"]+)"', line)}


def reward_managers(git_dir, ref):
    # from v0.7.1 load_reward_manager (and RewardManagerConfig.__post_init__) look the name up in the
    # reward loop's registry, whose managers register with @register or an alias of it
    reward_loop = "verl.experimental.reward_loop.reward_manager import get_reward_manager_cls"
    if reward_loop in show(git_dir, ref, "verl/trainer/ppo/reward.py"):
        lines = grep(git_dir, ref, r'^@register(_manager)?\("', ["verl/experimental/reward_loop/reward_manager/"])
        return {m for line in lines for m in re.findall(r'@register(?:_manager)?\("([^"]+)"', line)}
    lines = grep(git_dir, ref, r'^@register\("', ["verl/workers/reward_manager/"])
    # before the registry (v0.4.0) load_reward_manager branched on the name
    lines += grep(git_dir, ref, r'reward_manager_name == "', ["verl/trainer/ppo/reward.py"])
    return {m for line in lines for m in re.findall(r'(?:@register\(|reward_manager_name == )"([^"]+)"', line)}


def loggers(git_dir, ref):
    """The trainer.logger backends Tracking accepts: `supported_backend = [...]` in verl/utils/tracking.py."""
    block = re.search(r"supported_backend\s*=\s*\[([^\]]*)\]", show(git_dir, ref, "verl/utils/tracking.py"))
    return set(re.findall(r'"([a-z0-9_]+)"', block.group(1))) if block else set()


def agent_loops(git_dir, ref):
    """The agent loops verl registers: `@register("...")` in verl/experimental/agent_loop/."""
    lines = grep(git_dir, ref, r'^@register\("', ["verl/experimental/agent_loop/"])
    return {m for line in lines for m in re.findall(r'@register\("([^"]+)"', line)}


def checkpoint_engines(git_dir, ref):
    """The weight-sync backends verl registers: `@CheckpointEngineRegistry.register("...")` in
    verl/checkpoint_engine/ (CheckpointEngineRegistry.get, called by CheckpointEngineManager)."""
    lines = grep(git_dir, ref, r'@CheckpointEngineRegistry\.register\("', ["verl/checkpoint_engine/"])
    return {m for line in lines for m in re.findall(r'@CheckpointEngineRegistry\.register\("([^"]+)"', line)}


def distillation_losses(git_dir, ref, topk_only=False):
    """The on-policy distillation losses: the names of each `DistillationLossSettings(names=[...])`
    registered in verl/trainer/distillation/losses.py (get_distillation_loss_settings); with topk_only,
    those registered with use_topk=True (the teacher's top-k log-probs)."""
    lines = grep(git_dir, ref, r'DistillationLossSettings\(names=\[', ["verl/trainer/distillation/losses.py"])
    names = set()
    for line in lines:
        listed = re.search(r'names=\[([^\]]*)\]', line)
        if listed and (not topk_only or "use_topk=True" in line):
            names |= set(re.findall(r'"([^"]+)"', listed.group(1)))
    return names


def v1_trainers(git_dir, ref):
    """The V1 trainer modes: `@register_trainer("...")` in verl/trainer/ppo/v1/ (get_trainer_cls)."""
    lines = grep(git_dir, ref, r'^@register_trainer\("', ["verl/trainer/ppo/v1/"])
    return {m for line in lines for m in re.findall(r'@register_trainer\("([^"]+)"', line)}


def vllm_executors(git_dir, ref):
    """The executors verl's vLLM server passes as distributed_executor_backend (vllm_async_server.py):
    the string "mp", or the names of verl's own executor classes; None (vLLM's choice) is left out."""
    lines = grep(git_dir, ref, r'distributed_executor_backend"?[[:space:]]*[:=]',
                 ["verl/workers/rollout/vllm_rollout/vllm_async_server.py"])
    names = set()
    for line in lines:
        for quote, name in re.findall(r'distributed_executor_backend"?\s*[:=]\s*("?)([A-Za-z_]+)\1', line):
            if name not in ("None", "distributed_executor_backend"):
                names.add(name)
    return names


def loss_agg_modes(git_dir, ref):
    """The actor's loss_agg_mode values verl accepts at start-up: the list of ActorConfig.__post_init__
    (`valid_loss_agg_modes = [...]`, verl/workers/config/actor.py) or, before v0.6, of
    RayPPOTrainer._validate_config (`actor.loss_agg_mode in [...]`, verl/trainer/ppo/ray_trainer.py)."""
    for path, pattern in (("verl/workers/config/actor.py", r"valid_loss_agg_modes\s*=\s*\[([^\]]*)\]"),
                          ("verl/trainer/ppo/ray_trainer.py", r"actor\.loss_agg_mode in \[([^\]]*)\]")):
        block = re.search(pattern, show(git_dir, ref, path))
        if block:
            return set(re.findall(r'"([a-z-]+)"', block.group(1)))
    return set()


def strategies(git_dir, ref):
    names = set()
    for line in grep(git_dir, ref, r'actor\.strategy (in|==) ', ["verl/trainer/main_ppo.py"]):
        names |= set(re.findall(r'"([a-z0-9_]+)"', line.split("strategy", 1)[1]))
    for line in grep(git_dir, ref, r'EngineRegistry\.register\(.*backend=', ["verl/workers/engine/"]):
        backend = re.search(r'backend=(\[[^\]]*\]|"[^"]*")', line)
        if backend:
            names |= set(re.findall(r'"([a-z0-9_]+)"', backend.group(1)))
    for line in grep(git_dir, ref, r'^[[:space:]]+strategy: str = "', ["verl/workers/config/actor.py"]):
        names |= set(re.findall(r'"([a-z0-9_]+)"', line))
    return names


def dataclasses(git_dir, ref):
    """{class name: (fields, string-typed fields, base names)} of every @dataclass under verl/."""
    try:
        paths = git(git_dir, "grep", "-l", "@dataclass", ref, "--", "verl/").split()
    except subprocess.CalledProcessError:
        return {}
    classes = {}
    for path in paths:
        try:
            tree = ast.parse(show(git_dir, ref, path.split(":", 1)[1]))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            decorated = any("dataclass" in ast.unparse(d) for d in node.decorator_list)
            if not decorated:
                continue
            fields, text_fields = set(), set()
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    name = item.target.id
                    if name.startswith("_") or "ClassVar" in ast.unparse(item.annotation):
                        continue
                    fields.add(name)
                    if re.search(r"\b(str|Any)\b", ast.unparse(item.annotation)):
                        text_fields.add(name)
            bases = [ast.unparse(b).split(".")[-1] for b in node.bases]
            old_fields, old_text, old_bases = classes.get(node.name, (set(), set(), []))
            classes[node.name] = (fields | old_fields, text_fields | old_text, bases + old_bases)
    return classes


def dataclass_fields(git_dir, ref, string_only):
    classes = dataclasses(git_dir, ref)

    def collect(name, seen):
        if name not in classes or name in seen:
            return set()
        fields, text_fields, bases = classes[name]
        own = text_fields if string_only else fields
        return own | {f for b in bases for f in collect(b, seen | {name})}

    return {f"{name}.{field}" for name in classes for field in collect(name, set())}


ENUMS = {"adv_estimator": adv_estimators, "policy_loss": policy_losses, "agent_loop": agent_loops,
         "checkpoint_engine": checkpoint_engines, "v1_trainer": v1_trainers, "vllm_executor": vllm_executors,
         "loss_agg_mode": loss_agg_modes,
         "reward_manager": reward_managers, "strategy": strategies, "logger": loggers,
         "distillation_loss": distillation_losses,
         "distillation_topk_loss": lambda g, r: distillation_losses(g, r, True),
         "dataclass_field": lambda g, r: dataclass_fields(g, r, False),
         "dataclass_field_str": lambda g, r: dataclass_fields(g, r, True),
         "entry_config": recipe_entries}


def runs(present, ids):
    """[(since, until)] for the runs of consecutive versions where present[i] is true."""
    out, start = [], None
    for i, here in enumerate(present + [False]):
        if here and start is None:
            start = i
        elif not here and start is not None:
            out.append((ids[start], ids[i] if i < len(ids) else None))
            start = None
    return out


def entry(base, since, until):
    base["since"] = since
    if until is not None:
        base["until"] = until
    return base


def engine_requirements(git_dir, ref):
    """{"vllm": ">=0.18.0", "sglang": "==0.5.8"}: the version specifiers verl's setup.py gives its
    rollout engines (VLLM_REQUIRES / SGLANG_REQUIRES), which say which engine releases it runs with."""
    text = show(git_dir, ref, "setup.py")
    found = {}
    for engine in ("vllm", "sglang"):
        match = re.search(r'"' + engine + r'(?:\[[^\]]*\])?([<>=!~][^"]*)"', text)
        if match:
            found[engine] = match.group(1)
    return found


def main():
    git_dir = sys.argv[1]
    ids = [v for v, _ in VERSIONS]
    versions, per_version_configs, per_version_enums = [], [], []
    for vid, ref in VERSIONS:
        commit = git(git_dir, "rev-parse", f"{ref}^{{commit}}").strip()
        date = git(git_dir, "log", "-1", "--format=%cs", commit).strip()
        version_file = show(git_dir, commit, "verl/version/version").strip()
        versions.append({"id": vid, "commit": commit, "date": date, "version_file": version_file,
                         "engines": engine_requirements(git_dir, commit)})
        per_version_configs.append(config_texts(git_dir, commit))
        per_version_enums.append({kind: fn(git_dir, commit) for kind, fn in ENUMS.items()})
        per_version_enums[-1]["module"] = {n for n in git(git_dir, "ls-tree", "-r", "--name-only", commit,
                                                          "verl/").split() if n.endswith(".py")}

    configs = []
    keys = sorted({(name, text) for c in per_version_configs for name, text in c.items()})
    for name, text in keys:
        present = [c.get(name) == text for c in per_version_configs]
        for since, until in runs(present, ids):
            configs.append(entry({"name": name, "text": text}, since, until))
    enums = {}
    for kind in [*ENUMS, "module"]:
        names = sorted({n for e in per_version_enums for n in e[kind]})
        enums[kind] = [entry({"name": n}, since, until) for n in names
                       for since, until in runs([n in e[kind] for e in per_version_enums], ids)]
    json.dump({"source": "github.com/verl-project/verl (formerly volcengine/verl) git history, "
                         "tools/generate_verl_versions.py",
               "versions": versions, "enums": enums, "configs": configs},
              sys.stdout, indent=0, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
