#include "verl/schema/registry_sources.hpp"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <string_view>

#include "core/std_regex.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {
namespace {

// Every first group of `pattern` in `text`.
void collect(const std::string& text, const std::regex& pattern, std::set<std::string>& out) {
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) out.insert((*it)[1].str());
}

bool under(const std::string& path, const std::string& directory) { return path.rfind(directory, 0) == 0; }

// The quoted names inside every first group of `pattern` in `text` ("x" or 'x').
void collect_quoted(const std::string& text, const std::regex& pattern, std::set<std::string>& out) {
  static const std::regex quoted(R"re(["']([A-Za-z0-9_.-]+)["'])re");
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    collect((*it)[1].str(), quoted, out);
  }
}

const std::string* source(const std::map<std::string, std::string>& sources, const std::string& path) {
  const auto it = sources.find(path);
  return it == sources.end() ? nullptr : &it->second;
}

std::set<std::string> loggers(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  const std::string* tracking = source(sources, "utils/tracking.py");
  std::smatch list;
  if (tracking == nullptr || !std::regex_search(*tracking, list, std::regex(R"(supported_backend\s*=\s*\[([^\]]*)\])"))) {
    return names;
  }
  collect(list[1].str(), std::regex(R"re("([a-z0-9_]+)")re"), names);
  return names;
}

std::set<std::string> adv_estimators(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  for (const char* path : {"trainer/ppo/core_algos.py", "trainer/ppo/ray_trainer.py"}) {
    const std::string* text = source(sources, path);
    if (text == nullptr) continue;
    const std::size_t start = text->find("class AdvantageEstimator");
    if (start == std::string::npos) continue;
    // The class body: the indented lines after its header, up to the next unindented line.
    std::size_t end = text->find('\n', start);
    while (end != std::string::npos && end + 1 < text->size() &&
           ((*text)[end + 1] == ' ' || (*text)[end + 1] == '\t' || (*text)[end + 1] == '\n')) {
      end = text->find('\n', end + 1);
    }
    const std::string body = text->substr(start, end == std::string::npos ? std::string::npos : end - start);
    collect(body, std::regex(R"re(\n\s+[A-Za-z_0-9]+\s*=\s*["']([^"']+)["'])re"), names);
    return names;
  }
  return names;
}

std::set<std::string> policy_losses(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  if (const std::string* algos = source(sources, "trainer/ppo/core_algos.py")) {
    collect(*algos, std::regex(R"re(register_policy_loss\("([^"]+)")re"), names);
  }
  if (names.empty()) return names;  // no registry yet: loss_mode did not exist
  // Before "vanilla" was registered (v0.5.0) the actors branched on it themselves.
  for (const auto& [path, text] : sources) {
    if (under(path, "workers/actor/")) collect(text, std::regex(R"re(loss_mode == "([^"]+)")re"), names);
  }
  return names;
}

// The reward managers a checkout knows: @register in workers/reward_manager/ and, from v0.7.1,
// experimental/reward_loop/reward_manager/; before the registry (v0.4.0) and in forks, the names
// load_reward_manager (trainer/ppo/reward.py) or main_ppo.py's TaskRunner branch on, in either quote
// style: `reward_manager_name == 'x'`, `in ['x', ...]`, and `'x' in reward_manager_name` (a part
// of the name, kept as "~x").
std::set<std::string> reward_managers(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  static const std::regex decorated(R"re(\n@register\(["']([^"']+)["']\))re");
  for (const auto& [path, text] : sources) {
    if (under(path, "workers/reward_manager/") || under(path, "experimental/reward_loop/reward_manager/")) {
      collect(text, decorated, names);
    }
  }
  static const std::regex equals(R"re(reward_manager_name\s*==\s*["']([^"']+)["'])re");
  static const std::regex member(R"re(reward_manager_name\s+in\s+[\[({]([^\])}]*)[\])}])re");
  static const std::regex part(R"re(["']([^"']+)["']\s+in\s+reward_manager_name)re");
  for (const char* path : {"trainer/ppo/reward.py", "trainer/main_ppo.py"}) {
    const std::string* text = source(sources, path);
    if (text == nullptr) continue;
    collect(*text, equals, names);
    collect_quoted(*text, member, names);
    std::set<std::string> parts;
    collect(*text, part, parts);
    for (const std::string& name : parts) names.insert("~" + name);
  }
  return names;
}

// The names of a registry's decorator at the start of a line, in the *.py files under `directory`.
std::set<std::string> decorated_names(const std::map<std::string, std::string>& sources, const char* directory,
                                      const std::regex& decorator) {
  std::set<std::string> names;
  for (const auto& [path, text] : sources) {
    if (under(path, directory)) collect(text, decorator, names);
  }
  return names;
}

std::set<std::string> agent_loops(const std::map<std::string, std::string>& sources) {
  return decorated_names(sources, "experimental/agent_loop/", std::regex(R"re(\n@register\("([^"]+)")re"));
}

// get_trainer_cls's names (trainer/ppo/v1/*.py), the trainer.v1.trainer_mode values.
std::set<std::string> v1_trainers(const std::map<std::string, std::string>& sources) {
  return decorated_names(sources, "trainer/ppo/v1/", std::regex(R"re(\n@register_trainer\("([^"]+)")re"));
}

// CheckpointEngineRegistry.get's names (checkpoint_engine/*.py), the rollout.checkpoint_engine.backend values.
std::set<std::string> checkpoint_engines(const std::map<std::string, std::string>& sources) {
  return decorated_names(sources, "checkpoint_engine/",
                         std::regex(R"re(\n@CheckpointEngineRegistry\.register\("([^"]+)")re"));
}

// ActorConfig.__post_init__'s valid_loss_agg_modes (v0.6 on), else _validate_config's list.
std::set<std::string> loss_agg_modes(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  const std::pair<const char*, const char*> lists[] = {
      {"workers/config/actor.py", R"(valid_loss_agg_modes\s*=\s*\[([^\]]*)\])"},
      {"trainer/ppo/ray_trainer.py", R"(actor\.loss_agg_mode in \[([^\]]*)\])"}};
  for (const auto& [path, pattern] : lists) {
    const std::string* text = source(sources, path);
    std::smatch list;
    if (text == nullptr || !std::regex_search(*text, list, std::regex(pattern))) continue;
    collect(list[1].str(), std::regex(R"re("([a-z-]+)")re"), names);
    return names;
  }
  return names;
}

// The rollout modes RolloutConfig.__post_init__ refuses (workers/config/rollout.py, v0.7.0 on:
// "Rollout mode 'sync' has been removed"), read from a checkout's own file: "none" when the file is
// there and refuses none (a snapshot from before the removal, or a fork that commented it out).
std::set<std::string> refused_rollout_modes(const std::map<std::string, std::string>& sources) {
  const std::string* rollout = source(sources, "workers/config/rollout.py");
  if (rollout == nullptr) return {};
  for (std::size_t at = rollout->find("Rollout mode 'sync' has been removed"); at != std::string::npos;
       at = rollout->find("Rollout mode 'sync' has been removed", at + 1)) {
    const std::size_t line = rollout->rfind('\n', at) + 1;  // npos + 1 = 0 on the first line
    const std::size_t text = rollout->find_first_not_of(" \t", line);
    if (text != std::string::npos && (*rollout)[text] != '#') return {"sync"};
  }
  return {"none"};
}

// The actor strategies main_ppo dispatches on (`actor.strategy in {...}` / `== "..."` in
// trainer/main_ppo.py), the engine backends (@EngineRegistry.register(..., backend=...) in
// workers/engine/) and the actor configs' `strategy: str = "..."` defaults: a fork's own backend
// (HabitGraylight/verl-hyper adds "hyper"), as tools/generate_verl_versions.py reads the releases.
std::set<std::string> strategies(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  if (const std::string* main_ppo = source(sources, "trainer/main_ppo.py")) {
    collect_quoted(*main_ppo, std::regex(R"(actor\.strategy (?:in|==) ([^\n:]*))"), names);
  }
  static const std::regex backend(R"re(EngineRegistry\.register\([^)]*backend=(\[[^\]]*\]|"[^"]*"))re");
  for (const auto& [path, text] : sources) {
    if (under(path, "workers/engine/")) collect_quoted(text, backend, names);
  }
  if (const std::string* actor = source(sources, "workers/config/actor.py")) {
    collect(*actor, std::regex(R"re(\n[ \t]+strategy: str = "([a-z0-9_]+)")re"), names);
  }
  return names;
}

// The rollout engines a checkout registers (verl 0.6 on): RolloutReplicaRegistry.register("name", ...)
// in workers/rollout/replica.py and the ("name", "sync" | "async") keys of _ROLLOUT_REGISTRY in
// workers/rollout/base.py (a fork's own engine: Hhankyangg/verl-opd's "bagel").
// `rollout.name == "x"` / `rollout_name == 'x'`: a _build_rollout branch.
const std::regex& rollout_branch() {
  static const std::regex branch(R"re(rollout(?:_name|\.name)\s*==\s*["']([a-z0-9_]+)["'])re");
  return branch;
}

std::set<std::string> rollout_names(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  if (const std::string* replica = source(sources, "workers/rollout/replica.py")) {
    collect(*replica, std::regex(R"re(RolloutReplicaRegistry\.register\(\s*"([a-z0-9_]+)")re"), names);
  }
  if (const std::string* base = source(sources, "workers/rollout/base.py")) {
    collect(*base, std::regex(R"re(\(\s*"([a-z0-9_]+)",\s*"(?:sync|async)"\s*\))re"), names);
  }
  // Before the registries (v0.6.0), the workers' _build_rollout branches (a fork adds its own:
  // Tool-Star's `rollout.name == "vllm_with_search"`).
  for (const char* path : {"workers/fsdp_workers.py", "workers/megatron_workers.py"}) {
    if (const std::string* workers = source(sources, path)) collect(*workers, rollout_branch(), names);
  }
  return names;
}

// The names of the first `self.<field> in [...]` assertion inside class `class_name` of `text`.
std::set<std::string> asserted_names(const std::string* text, const std::string& class_name, const std::string& field) {
  std::set<std::string> names;
  if (text == nullptr) return names;
  const std::size_t start = text->find("class " + class_name);
  if (start == std::string::npos) return names;
  const std::size_t next_class = text->find("\nclass ", start + 1);
  const std::string body = text->substr(start, next_class == std::string::npos ? std::string::npos : next_class - start);
  std::smatch list;
  if (!std::regex_search(body, list, std::regex("self\\." + field + R"(\s+in\s+\[([^\]]*)\])"))) return names;
  collect(list[1].str(), std::regex(R"re("([A-Za-z0-9_-]+)")re"), names);
  return names;
}

// Whether `text` holds `needle` on a line that is not a comment (a fork comments checks out:
// DrMAS's `# assert config.data.train_batch_size >= ...`).
bool live_occurrence(const std::string& text, std::string_view needle) {
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    const std::size_t line = text.rfind('\n', at) + 1;  // npos + 1 = 0 on the first line
    const std::size_t first = text.find_first_not_of(" \t", line);
    if (first != std::string::npos && text[first] != '#') return true;
  }
  return false;
}

// `name` of each of `files` (relative to the package) whose code holds `message` outside comments,
// or "none" when the checkout has some of the files and none holds it (a fork or snapshot without
// that check).
std::set<std::string> files_raising(const std::map<std::string, std::string>& sources,
                                    std::initializer_list<std::pair<const char*, const char*>> files,
                                    std::string_view message) {
  std::set<std::string> names;
  bool any_file = false;
  for (const auto& [path, name] : files) {
    const std::string* text = source(sources, path);
    if (text == nullptr) continue;
    any_file = true;
    if (live_occurrence(*text, message)) names.insert(name);
  }
  if (any_file && names.empty()) names.insert("none");
  return names;
}

// Whether a checkout still refuses a train batch smaller than the actor's (critic's) mini-batch:
// RayPPOTrainer._validate_config's assertion (to v0.5) or ActorConfig / CriticConfig's check (from
// v0.6). "live" or "none".
std::set<std::string> mini_le_train_checks(const std::map<std::string, std::string>& sources, const char* role) {
  const std::string role_key = std::string("config.") + (std::string(role) == "actor" ? "actor_rollout_ref.actor" : "critic");
  std::set<std::string> names = files_raising(
      sources, {{"trainer/ppo/ray_trainer.py", "live"}},
      "train_batch_size >= " + role_key + ".ppo_mini_batch_size");
  const std::set<std::string> config = files_raising(
      sources, {{std::string(role) == "actor" ? "workers/config/actor.py" : "workers/config/critic.py", "live"}},
      "if train_batch_size < self.ppo_mini_batch_size");
  if (names.count("live") > 0 || config.count("live") > 0) return {"live"};
  return names.empty() && config.empty() ? std::set<std::string>{} : std::set<std::string>{"none"};
}

// The rollouts of a checkout whose constructor asserts enforce_eager while free_cache_engine is on
// ("disable CUDA graph (enforce_eager = False) if free cache engine": verl 0.4.1's vLLMRollout and
// SGLangRollout, lifted by PR #1464 for 0.5.0): "vllm", "sglang", or "none" (a 0.5.0.dev snapshot
// read with 0.4.1's rules).
std::set<std::string> eager_free_cache_asserts(const std::map<std::string, std::string>& sources) {
  return files_raising(sources,
                       {{"workers/rollout/vllm_rollout/vllm_rollout_spmd.py", "vllm"},
                        {"workers/rollout/vllm_rollout/vllm_rollout.py", "vllm"},
                        {"workers/rollout/sglang_rollout/sglang_rollout.py", "sglang"}},
                       "if free cache engine\"");
}

// The reward model strategies main_ppo's TaskRunner.add_reward_model_worker branches on
// (`reward_model.strategy == "x"` / `in {...}`): a fork's own worker (OPPO-Mente-Lab/LLM-Self-Judge's
// "judge").
std::set<std::string> reward_model_strategies(const std::map<std::string, std::string>& sources) {
  std::set<std::string> names;
  const std::string* main_ppo = source(sources, "trainer/main_ppo.py");
  if (main_ppo == nullptr) return names;
  collect_quoted(*main_ppo, std::regex(R"(reward_model\.strategy\s*(?:==|in)\s*([^\n:]*))"), names);
  return names;
}

// The vLLM rollout files of a checkout that raise "Enable chunked prefill, max_num_batched_tokens is
// smaller than max_model_len" (verl 0.4.0-0.6.1's vLLMRollout; not every fork's), or "none".
std::set<std::string> chunked_prefill_checks(const std::map<std::string, std::string>& sources) {
  return files_raising(sources,
                       {{"workers/rollout/vllm_rollout/vllm_rollout_spmd.py", "vllm_rollout_spmd.py"},
                        {"workers/rollout/vllm_rollout/vllm_rollout.py", "vllm_rollout.py"}},
                       "max_num_batched_tokens is smaller than max_model_len");
}

// Which of the modules that decide the workers a launch builds (worker_impl.hpp) the checkout has,
// in verl_versions.json's "module" spelling, with "read" marking that the checkout's workers/ was read.
std::set<std::string> worker_modules(const std::map<std::string, std::string>& sources) {
  const bool has_workers = std::any_of(sources.begin(), sources.end(), [](const auto& s) { return under(s.first, "workers/"); });
  if (!has_workers) return {};
  std::set<std::string> names = {"read"};
  for (const char* module : {"workers/fsdp_workers.py", "experimental/fully_async_policy/fully_async_main.py"}) {
    if (source(sources, module) != nullptr) names.insert(std::string("verl/") + module);
  }
  return names;
}

// One `@dataclass` class of a source: its annotated fields, those whose annotation admits a
// string (str, Any), and its bases' names.
struct DataclassFields {
  std::set<std::string> fields;
  std::set<std::string> text_fields;
  std::vector<std::string> bases;
};

std::size_t indent_of(const std::string& line) { return line.find_first_not_of(" \t"); }

// The @dataclass classes of `text`, read line by line as tools/generate_verl_versions.py reads
// them with Python's ast: a field is `name: annotation` at the class body's indentation, neither
// private nor a ClassVar.
void read_dataclasses(const std::string& text, std::map<std::string, DataclassFields>& classes) {
  static const std::regex header(R"(^class\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*:)");
  static const std::regex field(R"(^([A-Za-z][A-Za-z0-9_]*)\s*:\s*([^=#\s][^=#]*))");
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  bool decorated = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch match;
    if (lines[i].rfind("@dataclass", 0) == 0 || lines[i].rfind("@dataclasses.dataclass", 0) == 0) {
      decorated = true;
      continue;
    }
    if (!decorated || !std::regex_search(lines[i], match, header)) {
      if (lines[i].rfind("@", 0) != 0) decorated = false;
      continue;
    }
    decorated = false;
    DataclassFields& found = classes[match[1].str()];
    static const std::regex base_name(R"(([A-Za-z_][A-Za-z0-9_]*)\s*(?:,|$))");
    const std::string bases = match[2].str();
    for (std::sregex_iterator it(bases.begin(), bases.end(), base_name), end; it != end; ++it) {
      found.bases.push_back((*it)[1].str());
    }
    std::size_t body_indent = std::string::npos;
    for (++i; i < lines.size(); ++i) {
      const std::size_t indent = indent_of(lines[i]);
      if (indent == std::string::npos || lines[i][indent] == '#') continue;
      if (indent == 0) break;
      if (body_indent == std::string::npos) body_indent = indent;
      if (indent != body_indent) continue;
      const std::string statement = lines[i].substr(indent);
      if (statement.starts_with(R"(""")") || statement.starts_with("'''")) {
        // A docstring ("Args:" is no field): skip to its closing quotes.
        const std::string quotes = statement.substr(0, 3);
        if (statement.find(quotes, 3) != std::string::npos) continue;
        while (i + 1 < lines.size() && lines[i + 1].find(quotes) == std::string::npos) ++i;
        ++i;
        continue;
      }
      if (!std::regex_search(statement, match, field) || match[1].str()[0] == '_') continue;
      const std::string annotation = match[2].str();
      if (annotation.find("ClassVar") != std::string::npos) continue;
      found.fields.insert(match[1].str());
      static const std::regex text_type(R"(\b(str|Any)\b)");
      if (std::regex_search(annotation, text_type)) found.text_fields.insert(match[1].str());
    }
    --i;
  }
}

// "Class.field" of every dataclass in the sources with its bases' fields (text fields only when
// `text_only`), as verl_versions.json's dataclass_field / dataclass_field_str.
std::set<std::string> dataclass_fields(const std::map<std::string, DataclassFields>& classes, bool text_only) {
  std::set<std::string> names;
  for (const auto& [name, own] : classes) {
    std::vector<std::string> pending = {name};
    std::set<std::string> seen;
    while (!pending.empty()) {
      const std::string current = pending.back();
      pending.pop_back();
      const auto it = classes.find(current);
      if (it == classes.end() || !seen.insert(current).second) continue;
      for (const std::string& field : text_only ? it->second.text_fields : it->second.fields) {
        names.insert(name + "." + field);
      }
      pending.insert(pending.end(), it->second.bases.begin(), it->second.bases.end());
    }
  }
  return names;
}

}  // namespace

const std::vector<std::string>& registry_source_paths() {
  static const std::vector<std::string> paths = {"utils/tracking.py",         "trainer/ppo/core_algos.py",
                                                 "trainer/ppo/ray_trainer.py", "trainer/ppo/reward.py",
                                                 "workers/reward_manager/",    "workers/actor/",
                                                 "workers/config/",            "trainer/config/",
                                                 "utils/profiler/",            "base_config.py",
                                                 "experimental/agent_loop/",  "checkpoint_engine/",
                                                 "trainer/ppo/v1/",           "trainer/main_ppo.py",
                                                 "workers/engine/**/",           "workers/rollout/replica.py",
                                                 "workers/rollout/base.py",
                                                 "workers/rollout/vllm_rollout/vllm_rollout_spmd.py",
                                                 "workers/rollout/vllm_rollout/vllm_rollout.py",
                                                 "workers/rollout/sglang_rollout/sglang_rollout.py",
                                                 "workers/fsdp_workers.py",
                                                 "experimental/reward_loop/reward_manager/",
                                                 "experimental/fully_async_policy/fully_async_main.py"};
  return paths;
}

std::vector<std::string> dataclass_field_names(const std::string& text, const std::string& class_name) {
  std::map<std::string, DataclassFields> classes;
  read_dataclasses(text, classes);
  std::vector<std::string> names;
  const std::string prefix = class_name + ".";
  for (const std::string& qualified : dataclass_fields(classes, false)) {
    if (qualified.starts_with(prefix)) names.push_back(qualified.substr(prefix.size()));
  }
  return names;
}

std::map<std::string, std::vector<std::string>> registry_names_from_sources(
    const std::map<std::string, std::string>& sources) {
  std::map<std::string, std::vector<std::string>> out;
  std::map<std::string, DataclassFields> classes;
  for (const auto& [path, text] : sources) {
    if (text.find("@dataclass") != std::string::npos) read_dataclasses(text, classes);
  }
  const std::pair<const char*, std::set<std::string>> kinds[] = {
      {"logger", loggers(sources)},
      {"adv_estimator", adv_estimators(sources)},
      {"policy_loss", policy_losses(sources)},
      {"reward_manager", reward_managers(sources)},
      {"agent_loop", agent_loops(sources)},
      {"checkpoint_engine", checkpoint_engines(sources)},
      {"v1_trainer", v1_trainers(sources)},
      {"loss_agg_mode", loss_agg_modes(sources)},
      {"refused_rollout_mode", refused_rollout_modes(sources)},
      {"strategy", strategies(sources)},
      {"rollout_name", rollout_names(sources)},
      {"fsdp_lr_scheduler", asserted_names(source(sources, "workers/config/optimizer.py"), "FSDPOptimizerConfig",
                                           "lr_scheduler_type")},
      {"fsdp_warmup_style", asserted_names(source(sources, "workers/config/optimizer.py"), "FSDPOptimizerConfig",
                                           "warmup_style")},
      {"eager_free_cache_assert", eager_free_cache_asserts(sources)},
      {"worker_module", worker_modules(sources)},
      {"actor_mini_le_train", mini_le_train_checks(sources, "actor")},
      {"critic_mini_le_train", mini_le_train_checks(sources, "critic")},
      {"reward_model_strategy", reward_model_strategies(sources)},
      {"chunked_prefill_check", chunked_prefill_checks(sources)},
      {"dataclass_field", dataclass_fields(classes, false)},
      {"dataclass_field_str", dataclass_fields(classes, true)}};
  for (const auto& [kind, names] : kinds) {
    if (!names.empty()) out[kind] = std::vector<std::string>(names.begin(), names.end());
  }
  return out;
}

std::map<std::string, std::vector<std::string>> registrations_in(const std::map<std::string, std::string>& sources) {
  // verl's registry decorators as a fork's package uses them to add its own names: core_algos.py's
  // register_policy_loss / register_adv_est, the reward managers' register (register_manager and
  // register_manager_legacy in the reward loop), the agent loops' register.
  static const std::regex policy_loss(R"re(register_policy_loss\(["']([^"']+)["']\))re");
  static const std::regex estimator(R"re(register_adv_est\(["']([^"']+)["']\))re");
  static const std::regex manager(R"re(@register(?:_manager(?:_legacy)?)?\(["']([^"']+)["']\))re");
  // An entry point's own dispatch on the name (LongRLVR's main_dapo.py: reward_manager_name == "longrl").
  static const std::regex dispatched(R"re(reward_manager_name\s*==\s*["']([^"']+)["'])re");
  std::set<std::string> losses, estimators, managers, rollouts;
  for (const auto& [path, text] : sources) {
    collect(text, policy_loss, losses);
    collect(text, estimator, estimators);
    collect(text, manager, managers);
    collect(text, dispatched, managers);
    collect(text, rollout_branch(), rollouts);
  }
  std::map<std::string, std::vector<std::string>> out;
  const std::pair<const char*, const std::set<std::string>*> kinds[] = {{"policy_loss", &losses},
                                                                         {"adv_estimator", &estimators},
                                                                         {"reward_manager", &managers},
                                                                         {"agent_loop", &managers},
                                                                         {"rollout_name", &rollouts}};
  for (const auto& [kind, names] : kinds) {
    if (!names->empty()) out[kind] = std::vector<std::string>(names->begin(), names->end());
  }
  return out;
}

void add_registrations(std::map<std::string, std::vector<std::string>>& names,
                       const std::map<std::string, std::string>& package_sources, const VerlVersion& version) {
  for (const auto& [kind, added] : registrations_in(package_sources)) {
    auto [it, fresh] = names.try_emplace(kind);
    if (fresh) it->second = verl_registry_names(version, kind);
    it->second.insert(it->second.end(), added.begin(), added.end());
    std::sort(it->second.begin(), it->second.end());
    it->second.erase(std::unique(it->second.begin(), it->second.end()), it->second.end());
  }
}

}  // namespace meshplan
