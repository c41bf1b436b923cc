#include "verl/hydra/verl_launch.hpp"

#include <algorithm>
#include <set>

#include "verl/hydra/config_loader.hpp"
#include "verl/hydra/engine_keys.hpp"
#include "verl/hydra/hydra_compose.hpp"
#include "verl/hydra/hydra_flags.hpp"
#include "verl/hydra/hydra_override.hpp"
#include "verl/hydra/interpolation.hpp"
#include "verl/hydra/verl_base.hpp"
#include "verl/hydra/verl_version_choice.hpp"
#include "verl/hydra/version_keys.hpp"
#include "verl/schema/registry_sources.hpp"
#include "verl/schema/worker_impl.hpp"
#include "verl/shell/launch_search.hpp"
#include "verl/shell/shell_script.hpp"

namespace meshplan {

bool is_yaml_input(const InputText& input) {
  const std::string& name = input.file_name;
  return name.size() > 5 && (name.ends_with(".yaml") || name.ends_with(".yml"));
}

namespace {


std::string strip_yaml_suffix(std::string name) {
  for (std::string_view suffix : {".yaml", ".yml"}) {
    if (name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  return name;
}

// A file of bare override lines: every non-comment line is one `key=value` word.
bool looks_like_override_lines(const ShellScript& script) {
  if (script.invocations.empty()) return false;
  return std::all_of(script.invocations.begin(), script.invocations.end(), [](const ShellInvocation& call) {
    return std::all_of(call.args.begin(), call.args.end(), [](const ShellArgument& arg) {
      return arg.text.find('=') != std::string::npos || arg.text.rfind("~", 0) == 0;
    });
  });
}

Finding input_finding(const Error& error, const SourceLocation& where) {
  Finding finding;
  finding.severity = Severity::error;
  finding.rule = "hydra.parse";
  finding.keys = {error.key};
  finding.message = error.message + ": Hydra's override parser stops before verl starts";
  finding.location = where;
  return finding;
}

class Reader {
 public:
  explicit Reader(const VerlReadOptions& options) : options_(options) {}

  Result<VerlLaunch> run(const std::vector<InputText>& inputs) {
    std::vector<ConfigNode> yaml_layers;
    std::vector<ShellArgument> overrides;
    std::optional<std::string> script_config_name;
    std::string entry_config = "ppo_trainer";  ///< the entry point's @hydra.main config_name
    std::string entry;
    for (const InputText& input : inputs) {
      if (is_yaml_input(input)) {
        auto layer = config_from_yaml(input.text, input.file_name);
        if (!layer.ok()) return layer.error();
        yaml_layers.push_back(std::move(layer.value()));
        continue;
      }
      ShellScript script = evaluate_shell_script(input.text, input.file_name, options_.environment);
      std::vector<Launch> launches = find_launches(script);
      if (launches.empty()) {
        if (auto head = read_as_head_node(input.text, input.file_name, options_.environment)) {
          script = std::move(head->script);
          launches = std::move(head->launches);
          info(launches.front().location,
               "the launch runs on the head node only (a branch on the node's rank): checked as that node, with " +
                   head->assumed + " (give --env to check another node's path)",
               "launch.head-node");
        } else if (auto inner = read_command_string(script, input.file_name, options_.environment)) {
          script = std::move(inner->script);
          launches = std::move(inner->launches);
          info(launches.front().location,
               "the launch is inside the string of `bash -c` at line " + std::to_string(inner->line) +
                   ": read as a script of its own",
               "launch.command-string");
        }
      }
      append(result_.findings, script.findings);
      bool found = false;
      for (Launch& launch : launches) {
        std::optional<EntryPointConfig> own;
        std::optional<std::string> recipe;  // verl's recipe entry point, whose config verl ships
        if (launch.kind == LaunchKind::megatron) {
          result_.megatron.push_back(launch);
          found = true;
        } else if (launch.kind == LaunchKind::verl_ppo || (own = own_entry_point(launch)) ||
                   (launch.kind == LaunchKind::other_trainer && (recipe = recipe_entry_config(launch.entry)))) {
          found = true;
          if (result_.verl_launch_count++ != options_.launch_index) continue;
          result_.has_verl_launch = true;
          if (launch.config_name) script_config_name = strip_yaml_suffix(*launch.config_name);
          entry_config = own ? own->config_name : recipe.value_or(launch.default_config);
          entry = launch.entry;
          if (own) own_entry_ = std::move(own);
          recipe_entry_ = recipe.has_value() && !own_entry_;
          if (launch.config_path) config_path_ = *launch.config_path;
          if (launch.uses_script_arguments) {
            info(launch.location, "the script passes its own arguments (\"$@\") to the trainer; none are assumed");
          }
          overrides.insert(overrides.end(), launch.arguments.begin(), launch.arguments.end());
          result_.environment = launch.environment;
          result_.location = launch.location;
        } else {
          info(launch.location, "'" + launch.entry + "' is not verl.trainer.main_ppo; its arguments are not checked");
          found = true;
        }
      }
      if (!found && looks_like_override_lines(script)) {
        result_.has_verl_launch = true;
        result_.location = SourceLocation{input.file_name, 0};
        for (const ShellInvocation& call : script.invocations) overrides.insert(overrides.end(), call.args.begin(), call.args.end());
        found = true;
      }
      if (!found) return no_launch_error(script, input.file_name);
    }
    for (const std::string& line : options_.set_overrides) {
      overrides.push_back(ShellArgument{line, std::nullopt, SourceLocation{"--set", 0}});
    }
    if (!result_.has_verl_launch && yaml_layers.empty()) return std::move(result_);
    result_.has_verl_launch = true;
    if (auto chosen = choose_version(inputs); !chosen.ok()) return chosen.error();
    take_group_choices(overrides);
    const std::string name = options_.config_name ? *options_.config_name : script_config_name.value_or(entry_config);
    if (entry_config != "ppo_trainer" && texts_->count(entry_config) == 0 && !own_entry_) {
      // The one-step-off trainer arrived in v0.5.0 (recipe/one_step_off_policy/config), the
      // fully-async one in v0.6.1 (recipe/fully_async_policy/config).
      info(result_.location, "'" + entry + "' composes " + entry_config + ", which verl " + result_.verl_version.id +
                                 " does not have; its arguments are not checked (give --verl-version)");
      result_.has_verl_launch = false;
      result_.config = ConfigNode{};
      return std::move(result_);
    }
    if (recipe_entry_) {
      result_.own_entry_point = entry;
      info(result_.location,
           "'" + entry + "' is verl " + result_.verl_version.id + "'s recipe: its @hydra.main config " + entry_config +
               " is composed over verl's config tree; an error its trainer may not check is a warning",
           "verl.config-tree");
    }
    result_.trainer = trainer_of_config(entry.empty() ? name : entry_config);
    auto base = load_base(name);
    // A config its own app cannot compose stops Hydra as it stops main_ppo (exit 2 below, naming the
    // missing config); one that composes but is not verl's PPO config has nothing to check it by.
    if (own_entry_ && base.ok() && find_path(base.value(), "actor_rollout_ref") == nullptr) {
      info(result_.location, "'" + entry + "' (" + own_entry_->file + ") composes " + name +
                                 ", which is not verl's PPO trainer config; its arguments are not checked");
      result_.has_verl_launch = false;
      result_.config = ConfigNode{};
      return std::move(result_);
    }
    if (!base.ok()) return base.error();
    compose_launch(std::move(base.value()), yaml_layers, overrides);
    if (options_.config_texts.empty()) {
      note_newer_keys(result_.findings, result_.verl_version, result_.config_name, group_choices_);
      if (result_.verl_version_assumed) {
        note_older_keys(result_.findings, result_.verl_version, result_.config_name, group_choices_);
      }
    }
    note_own_config_path();
    note_group_keys(result_.findings, *texts_, group_choices_, choice_locations_, result_.choice_fixes);
    const auto composer = [this](const std::string& config_name, const std::map<std::string, std::string>& choices) {
      return compose(config_name, choices);
    };
    if (auto engine = note_engine_keys(result_.findings, result_.config, result_.config_name, *texts_,
                                       group_choices_, overrides, composer, result_.choice_fixes)) {
      // The rules and the memory fit judge the launch with the engine its keys are for: the
      // findings so far stand, the overrides are applied again over the choice's config.
      std::vector<Finding> findings = std::move(result_.findings);
      group_choices_ = engine->choices;
      result_.config_name = engine->config_name;
      compose_launch(std::move(engine->base), yaml_layers, overrides);
      result_.findings = std::move(findings);
      info(result_.location, "the rules and the memory fit below read the launch with " + engine->fix,
           "hydra.engine-keys");
    }
    return std::move(result_);
  }

 private:
  static void append(std::vector<Finding>& to, const std::vector<Finding>& from) {
    to.insert(to.end(), from.begin(), from.end());
  }

  // Which verl the launch runs (verl_version_choice.hpp), said in one line.
  Result<bool> choose_version(const std::vector<InputText>& inputs) {
    auto choice = choose_verl_version(inputs, options_, result_.location);
    if (!choice.ok()) return choice.error();
    result_.verl_version = choice->version;
    result_.verl_version_assumed = choice->assumed;
    result_.older_verl = choice->older_verl;
    result_.vllm_pin = choice->vllm_pin;
    result_.vllm_pin_file = choice->vllm_pin_file;
    append(result_.findings, choice->findings);
    texts_ = options_.config_texts.empty() ? &embedded_config_texts(result_.verl_version) : &options_.config_texts;
    // A checkout's own sources name its registries (a fork's extra logger or estimator).
    result_.registry_names = options_.registry_names;
    result_.vendored_engines = options_.vendored_engines;
    result_.vendored_engine_arguments = options_.vendored_engine_arguments;
    if (options_.config_texts_from_verl && options_.verl_version) result_.checkout_version = *options_.verl_version;
    if (own_entry_) {
      result_.own_entry_point = own_entry_->file;
      add_registrations(result_.registry_names, own_entry_->package_sources, result_.verl_version);
    }
    return true;
  }


  // `--config-path DIR --config-name ppo_trainer`: Hydra composes DIR's ppo_trainer.yaml (the
  // command line's path replaces main_ppo's `config_path`; a relative one is relative to
  // main_ppo.py, so `./config` is verl's own tree: Hydra 1.3 hydra/_internal/utils.py
  // compute_search_path_dir). Another DIR is a file meshplan does not read
  // and that may add keys; verl's config of that name stands in for it, so a key it lacks is a
  // warning.
  // The launch's --config-path is the entry point's own directory (or none): `config` next to
  // main_ppo.py, one_step_off_policy/ or fully_async_policy/, or verl/trainer/config.
  bool own_config_path() const {
    std::string path = config_path_;
    while (path.starts_with("./")) path.erase(0, 2);
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return path.empty() || path == "config" || path.find("verl/trainer/config") != std::string::npos;
  }

  void note_own_config_path() {
    if (own_config_path() || launch_directory_read_) return;
    if (!options_.config_texts.empty() && !options_.config_texts_from_verl) return;  // --verl-config: the launch's own
    for (Finding& finding : result_.findings) {
      if (finding.rule != "hydra.unknown-key" || finding.severity != Severity::error) continue;
      finding.severity = Severity::warning;
      finding.message += "; the launch composes " + result_.config_name + " from --config-path " + config_path_ +
                         ", which meshplan does not read: if that config has the key, Hydra accepts it";
    }
  }

  void info(const SourceLocation& where, const std::string& message, const char* rule = "launch.not-checked") {
    Finding finding;
    finding.severity = Severity::info;
    finding.rule = rule;
    finding.message = message;
    finding.location = where;
    result_.findings.push_back(std::move(finding));
  }

  // `group=option` / `group@package=option` overrides of a config group (Hydra group choices such
  // as `model_engine=megatron`): they select configs, they are not keys.
  void take_group_choices(std::vector<ShellArgument>& overrides) {
    std::vector<ShellArgument> keys;
    std::string searchpath;
    for (ShellArgument& word : overrides) {
      const std::size_t eq = word.text.find('=');
      const std::string name = eq == std::string::npos ? "" : word.text.substr(0, eq);
      const std::string group = name.substr(0, name.find('@'));  // `group@package=option`
      if (name == "hydra.searchpath" || name == "+hydra.searchpath" || name == "++hydra.searchpath") {
        searchpath = word.text.substr(eq + 1);
      }
      if (!group.empty() && !word.unknown && is_config_group(*texts_, group)) {
        group_choices_[name] = word.text.substr(eq + 1);
        choice_locations_[name] = word.location;
      } else {
        keys.push_back(std::move(word));
      }
    }
    overrides = std::move(keys);
    if (!searchpath.empty()) take_searchpath_choices(searchpath);
  }

  // Hydra's `hydra.searchpath=[pkg://..., file://...]` adds config directories meshplan does not
  // read: a group option found only there (`actor@actor_rollout_ref.actor=mlite_actor`) is
  // composed from the group's default, and the keys under its package are not checked.
  void take_searchpath_choices(const std::string& searchpath) {
    for (auto it = group_choices_.begin(); it != group_choices_.end();) {
      const std::string& name = it->first;
      const std::string group = name.substr(0, name.find('@'));
      if (texts_->count(group + "/" + it->second) > 0) {
        ++it;
        continue;
      }
      std::string package = name.find('@') == std::string::npos ? group : name.substr(name.find('@') + 1);
      std::replace(package.begin(), package.end(), '/', '.');
      info(choice_locations_[name], "config '" + group + "/" + it->second + "' (" + name + "=" + it->second +
                                        ") comes from hydra.searchpath=" + searchpath +
                                        ", which meshplan does not read: " + package +
                                        " is composed from the group's default and its keys are not checked");
      if (!result_.opaque_argument) result_.opaque_argument = "'" + name + "=" + it->second + "' (hydra.searchpath)";
      searchpath_packages_.push_back(package);
      it = group_choices_.erase(it);
    }
  }

  // A key under a package whose config comes from hydra.searchpath.
  bool in_searchpath_package(const std::string& key) const {
    std::string bare = key;
    while (!bare.empty() && (bare.front() == '+' || bare.front() == '~')) bare.erase(0, 1);
    return std::any_of(searchpath_packages_.begin(), searchpath_packages_.end(), [&](const std::string& package) {
      return bare == package || bare.rfind(package + ".", 0) == 0;
    });
  }

  // The launch's own --config-path directory, when the caller finds it (CodeDance's
  // "$(pwd)/configs", spectra's container path /verl/spectra/config): composed over the verl tree,
  // as Hydra's search path has it.
  void read_launch_config_directory() {
    if (own_entry_) {
      // The entry point's @hydra.main config directory, over verl's tree as its hydra.searchpath has it.
      with_verl_tree_ = options_.config_texts.empty() ? embedded_config_texts(result_.verl_version) : options_.config_texts;
      for (const auto& [config, text] : own_entry_->directory.texts) with_verl_tree_[config] = text;
      texts_ = &with_verl_tree_;
      launch_directory_read_ = true;
      info(result_.location,
           "the launch runs " + own_entry_->file + ", the repository's own entry point: its @hydra.main config " +
               own_entry_->config_name + " is composed from " + own_entry_->directory.path +
               " over verl's config tree; an error its trainer may not check is a warning",
           "verl.config-tree");
      return;
    }
    if (own_config_path() || !options_.find_config_path) return;
    if (!options_.config_texts.empty() && !options_.config_texts_from_verl) return;  // --verl-config gave it
    const auto found = options_.find_config_path(config_path_);
    if (!found) return;
    with_verl_tree_ = options_.config_texts.empty() ? embedded_config_texts(result_.verl_version) : options_.config_texts;
    for (const auto& [config, text] : found->texts) with_verl_tree_[config] = text;
    texts_ = &with_verl_tree_;
    launch_directory_read_ = true;
    info(result_.location, "--config-path " + config_path_ + " read from " + found->path, "verl.config-tree");
  }

  // The launch's entry point when it is the repository's own Hydra app (found by the caller).
  std::optional<EntryPointConfig> own_entry_point(const Launch& launch) const {
    if (launch.kind != LaunchKind::other_trainer || !options_.find_entry_point) return std::nullopt;
    return options_.find_entry_point(launch.entry, launch.config_path.value_or(""));
  }

  // The base, then the YAML layers and the overrides over it.
  void compose_launch(ConfigNode base, const std::vector<ConfigNode>& yaml_layers,
                      const std::vector<ShellArgument>& overrides) {
    result_.config = std::move(base);
    for (const ConfigNode& layer : yaml_layers) merge_yaml(result_.config, layer, "");
    for (std::size_t i = 0; i < overrides.size(); ++i) {
      i += apply(overrides[i], i + 1 < overrides.size() ? &overrides[i + 1] : nullptr);
    }
    drop_ref_fields_of_legacy_workers();
    drop_critic_fields_without_critic();
    append(result_.findings, resolve_interpolations(result_.config));
  }

  // `name` composed from the launch's config tree with these group choices.
  Result<ConfigNode> compose(const std::string& name, const std::map<std::string, std::string>& choices) const {
    return options_.config_texts.empty() && !launch_directory_read_
               ? embedded_verl_base(result_.verl_version, name, choices)
               : load_verl_base(*texts_, name, choices, config_tree_name(),
                                options_.config_texts_from_verl || launch_directory_read_ ? GeneratedBase::fallback
                                                                                          : GeneratedBase::first);
  }

  Result<ConfigNode> load_base(const std::string& name) {
    result_.config_name = name;
    read_launch_config_directory();
    auto base = compose(name, group_choices_);
    if (launch_directory_read_) return base;
    const bool launch_directory = !options_.config_texts.empty() && !options_.config_texts_from_verl;
    if (!base.ok() && launch_directory) {
      // A launch's own --config-path directory whose configs name verl's in their defaults
      // (spectra's chat_template.yaml: `- ppo_trainer` with hydra.searchpath verl/trainer/config):
      // Hydra finds those on its search path, here the chosen verl's tree under the directory's.
      with_verl_tree_ = embedded_config_texts(result_.verl_version);
      for (const auto& [config, text] : options_.config_texts) with_verl_tree_[config] = text;
      auto over_verl = load_verl_base(with_verl_tree_, name, group_choices_, config_tree_name(), GeneratedBase::fallback);
      if (over_verl.ok()) {
        texts_ = &with_verl_tree_;
        info(result_.location,
             "--verl-config's " + name + " names configs the directory does not hold: composed over verl " +
                 result_.verl_version.id + "'s config tree, as Hydra's search path would",
             "verl.config-tree");
        return over_verl;
      }
    }
    if (!base.ok() && !own_config_path() && !launch_directory) {
      return Error{"", 0, "--config-name",
                   "config '" + name + "' comes from --config-path " + config_path_ +
                       ", which meshplan cannot read from a script; pass --verl-config DIR (the directory holding " +
                       name + ".yaml) or --config-name ppo_trainer|ppo_megatron_trainer"};
    }
    return base;
  }

  // The config tree a launch's --config-name is looked up in, for messages.
  std::string config_tree_name() const {
    if (launch_directory_read_) return "--config-path " + config_path_ + " over verl's config tree";
    if (!options_.config_texts_from_verl) return "the --verl-config directory";
    const std::string where = options_.verl_found_at.empty() ? "--verl-path" : options_.verl_found_at;
    return "the config tree of the verl checkout (" + where +
           "; verl/trainer/config and the trainers' own config directories): Hydra stops before verl starts";
  }

  // A user's YAML layer: keys merge over the base; a key the base lacks is reported.
  void merge_yaml(ConfigNode& target, const ConfigNode& layer, const std::string& prefix) {
    for (const auto& [name, value] : layer.entries) {
      if (prefix.empty() && (name == "defaults" || name == "hydra")) continue;
      const std::string key = prefix.empty() ? name : prefix + "." + name;
      ConfigNode* existing = target.child(name);
      if (existing != nullptr && existing->is_map() && value.is_map()) {
        merge_yaml(*existing, value, key);
        continue;
      }
      if (existing == nullptr) {
        Finding finding;
        finding.severity = Severity::warning;
        finding.rule = "config.unknown-key";
        finding.keys = {key};
        finding.value = value.to_text();
        finding.message = "'" + key + "' is not in verl's " + result_.config_name +
                          " config; sections converted to verl dataclasses reject unknown fields at start-up";
        finding.location = value.origin;
        result_.findings.push_back(std::move(finding));
      }
      target.set_child(name, value);
      result_.set_at[key] = value.origin;
    }
  }

  // One override; returns how many of the words after it it takes (a flag's value).
  std::size_t apply(const ShellArgument& word, const ShellArgument* next) {
    const HydraFlagRead flag = read_hydra_flag(word.text);
    if (flag.kind == HydraFlagRead::Kind::hydra) {
      info(word.location, "'" + word.text + "' is Hydra's own " + flag.flag + " flag" +
                              (flag.takes_value && next != nullptr ? " (its value '" + next->text + "')" : "") +
                              ": not an override, not checked");
      return flag.takes_value && next != nullptr ? 1 : 0;
    }
    if (flag.kind != HydraFlagRead::Kind::not_a_flag) {
      Finding finding;
      finding.severity = Severity::error;
      finding.rule = "hydra.unknown-flag";
      finding.value = word.text;
      finding.keys = {word.text};
      finding.message = flag.message;
      const bool dashed_override = word.text.rfind("--", 0) == 0 && word.text.find('=') != std::string::npos;
      if (dashed_override) finding.fix = {word.text.substr(2)};
      finding.location = word.location;
      // The word after a refused flag is read as its value, not as an override of its own: argparse
      // stops at the flag (`--config recipe/x.yaml`).
      const bool value_next = !dashed_override && next != nullptr && next->text.find('=') == std::string::npos &&
                              next->text.rfind("-", 0) != 0;
      if (value_next) finding.message += " (with its value '" + next->text + "')";
      result_.findings.push_back(std::move(finding));
      return value_next ? 1 : 0;
    }
    if (word.text.rfind("hydra.", 0) == 0 || word.text.rfind("+hydra.", 0) == 0) return 0;  // Hydra's own settings
    const std::size_t eq = word.text.find('=');
    if (word.unknown && word.text.substr(0, eq).find('$') != std::string::npos) {
      info(word.location, "argument '" + word.text + "' is not known statically (" + *word.unknown + "); not checked");
      const std::string where = "'" + word.text + "' at line " + std::to_string(word.location.line);
      std::vector<std::string> keys;
      for (const std::string& alternative : word.alternatives) {
        std::string key = alternative.substr(0, alternative.find('='));
        while (!key.empty() && (key.front() == '+' || key.front() == '~')) key.erase(0, 1);
        if (key.empty() || key.find('$') != std::string::npos) {
          keys.clear();
          break;
        }
        keys.push_back(std::move(key));
      }
      if (!keys.empty()) {  // one of known overrides: only their keys are in doubt
        for (const std::string& key : keys) result_.maybe_set.emplace(key, where);
        return 0;
      }
      if (!result_.opaque_argument) {
        result_.opaque_argument = "'" + word.text + "' at line " + std::to_string(word.location.line);
      }
      return 0;
    }
    if (in_searchpath_package(word.text.substr(0, eq))) {
      info(word.location, "argument '" + word.text + "' is under a config from hydra.searchpath; not checked");
      return 0;
    }
    auto parsed = parse_override(word.text, word.location, word.unknown);
    if (!parsed.ok()) {  // the pieces of one value split at its blanks: one finding, naming the value
      if (!word.split_from.empty() && !split_reported_.insert(word.split_from).second) return 0;
      result_.findings.push_back(input_finding(parsed.error(), word.location));
      if (!word.split_from.empty()) result_.findings.back().message += split_piece_note(word.split_from);
      return 0;
    }
    // A value known in part ("$HOME/verl/models/Qwen3-32B" for "$MODEL_PATH") says more than its name.
    if (parsed->value.kind == NodeKind::unknown && word.partial.find('=') != std::string::npos) {
      parsed->value.written = word.partial.substr(word.partial.find('=') + 1);
    }
    const ConfigNode* before = find_path(result_.config, parsed->key);
    const bool existed = before != nullptr;
    if (before != nullptr) check_type(*before, parsed.value());
    if (auto finding = apply_override(result_.config, parsed.value())) {
      result_.findings.push_back(std::move(*finding));
      return 0;
    }
    result_.set_at[parsed->key] = word.location;
    if (!existed) check_dataclass_field(parsed.value());
    return 0;
  }

  // A number or boolean option given a value of another type: verl's dataclasses and its batch
  // arithmetic (validate_config) fail on it at start-up.
  void check_type(const ConfigNode& before, const Override& o) {
    const ConfigNode& value = o.value;
    if (!o.has_value || value.kind == NodeKind::unknown || value.kind == NodeKind::null || value.has_interpolation()) return;
    std::string expected;
    // YAML writes some float defaults as integers (top_p: 1), so any number suits a number. A
    // boolean is a Python int (False == 0): a plain section (no `_target_` dataclass) takes it and
    // verl's comparisons work (verl's own e2e tests set trainer.test_freq=False).
    const bool boolean_as_number = value.kind == NodeKind::boolean && dataclass_target(o.key) == nullptr;
    // A dataclass field annotated to take a string too (`rollout_is_threshold: str | float`) is
    // not a number only, whatever its YAML default. A section without `_target_` is a field of
    // its parent's dataclass, whose class is not read here: any verl dataclass field of that name
    // taking a string makes the error uncertain.
    const std::string field = o.key.substr(o.key.rfind('.') + 1);
    const ConfigNode* target = dataclass_target(o.key);
    bool takes_text = false;
    if (value.kind == NodeKind::string && target != nullptr) {
      takes_text = dataclass_has(target->text, field, "dataclass_field_str").value_or(false);
    } else if (value.kind == NodeKind::string) {
      const std::vector<std::string>& text_fields = verl_registry_names(result_.verl_version, "dataclass_field_str");
      takes_text = std::any_of(text_fields.begin(), text_fields.end(),
                               [&](const std::string& name) { return name.ends_with("." + field); });
    }
    if (before.is_number() && !value.is_number() && !boolean_as_number && !takes_text) expected = "a number";
    if (before.kind == NodeKind::boolean && value.kind != NodeKind::boolean) expected = "true or false";
    if (expected.empty()) return;
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "config.type";
    finding.keys = {o.key};
    finding.value = value.to_text();
    finding.message = "'" + o.key + "' takes " + expected + " (default " + before.to_text() + "), not '" +
                      value.to_text() + "': verl fails at start-up when it converts or uses the value";
    // A dataclass field is validated when OmegaConf builds the dataclass; a plain section's value
    // (no `_target_`: OmegaConf's untyped node) reaches the code as given, where Python's truth test
    // takes any value (a fork's `recurrent.enable: memory` is a section name it reads).
    if (expected == "true or false" && dataclass_target(o.key) == nullptr) {
      finding.severity = Severity::warning;
      finding.message = "'" + o.key + "' has a boolean default (" + before.to_text() + ") but is set to '" +
                        value.to_text() + "': its section is no dataclass, so OmegaConf keeps the value; it fails "
                        "only if the code converts it, and any non-empty value reads as true in a condition";
    }
    finding.location = o.location;
    result_.findings.push_back(std::move(finding));
  }

  // The `_target_` of the section holding `key`: the verl dataclass it becomes at start-up (null
  // for a plain section).
  const ConfigNode* dataclass_target(const std::string& key) const {
    const std::size_t dot = key.rfind('.');
    if (dot == std::string::npos) return nullptr;
    const ConfigNode* parent = find_path(result_.config, key.substr(0, dot));
    const ConfigNode* target = parent == nullptr ? nullptr : parent->child("_target_");
    return target != nullptr && target->kind == NodeKind::string ? target : nullptr;
  }

  // Whether the verl version's dataclass `target` (`verl.workers.config.RolloutConfig`) has `field`
  // among the names of `kind` (verl_versions.json dataclass_field / dataclass_field_str, read
  // from verl's Python sources), or the checkout's own sources give it there (a fork adds fields);
  // nullopt when neither knows the class.
  std::optional<bool> dataclass_has(const std::string& target, const std::string& field, std::string_view kind) const {
    const std::string name = target.substr(target.rfind('.') + 1) + ".";
    const auto own = options_.registry_names.find(std::string(kind));
    const std::vector<std::string>* sources[] = {&verl_registry_names(result_.verl_version, std::string(kind)),
                                                 own == options_.registry_names.end() ? nullptr : &own->second};
    const auto knows_class = [&](const std::string& class_kind) {
      const auto names = options_.registry_names.find(class_kind);
      for (const std::vector<std::string>* all : {&verl_registry_names(result_.verl_version, class_kind),
                                                  names == options_.registry_names.end() ? nullptr : &names->second}) {
        if (all == nullptr) continue;
        const auto first = std::lower_bound(all->begin(), all->end(), name);
        if (first != all->end() && first->rfind(name, 0) == 0) return true;
      }
      return false;
    };
    if (!knows_class("dataclass_field")) return std::nullopt;
    return std::any_of(std::begin(sources), std::end(sources), [&](const std::vector<std::string>* names) {
      return names != nullptr && std::binary_search(names->begin(), names->end(), name + field);
    });
  }

  // verl-rules.md R5: a section carrying `_target_` becomes that dataclass at start-up; a key
  // added with '+' that is not one of its fields fails there (TypeError / ConfigKeyError). The
  // dataclass may have fields its YAML does not list (AlgoConfig.gdpo_reward_keys).
  void check_dataclass_field(const Override& added) {
    // Sections whose `_target_` verl never instantiates: every verl from v0.4.0 to main@1dda039b
    // reads `algorithm` (AlgoConfig is only a type hint in core_algos.py) and `global_profiler` as
    // plain DictConfig, so a key added there is read with .get or not at all.
    for (const std::string_view plain : {"algorithm", "global_profiler"}) {
      if (added.key == plain || added.key.starts_with(std::string(plain) + ".")) return;
    }
    const ConfigNode* target = dataclass_target(added.key);
    if (target == nullptr) return;
    const std::size_t dot = added.key.rfind('.');
    if (dataclass_has(target->text, added.key.substr(dot + 1), "dataclass_field").value_or(false)) return;
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "config.not-a-dataclass-field";
    finding.keys = {added.key};
    finding.value = added.value.to_text();
    finding.message = "'" + added.key.substr(dot + 1) + "' is not a field of " + target->text +
                      ": Hydra accepts the '+', but verl's validate_config converts the section to that dataclass at "
                      "start-up and fails (unexpected keyword argument '" + added.key.substr(dot + 1) + "')";
    finding.fix = {"~" + added.key};
    finding.location = added.location;
    if (!result_.own_entry_point.empty()) {
      // A fork's trainer may take the key out first (verl_srt's SRTRayPPOTrainer moves its
      // +rollout.srt_* keys aside under open_dict before the workers build RolloutConfig).
      finding.severity = Severity::warning;
      finding.message += "; the launch runs " + result_.own_entry_point + ", whose code may remove the key first";
    }
    result_.findings.push_back(std::move(finding));
  }

  // The legacy workers never convert the ref section (only its fsdp_config): a field added to it
  // fails only where the launch builds engine workers (verl/schema/worker_impl.hpp).
  void drop_ref_fields_of_legacy_workers() {
    const ConfigNode* legacy = find_path(result_.config, "trainer.use_legacy_worker_impl");
    const std::string worker_impl = legacy != nullptr && legacy->kind == NodeKind::string ? legacy->text : "auto";
    const auto own = result_.registry_names.find("worker_module");
    if (builds_engine_workers(result_.verl_version, worker_impl, result_.trainer == VerlTrainer::fully_async,
                              own == result_.registry_names.end() ? nullptr : &own->second)) {
      return;
    }
    std::erase_if(result_.findings, [](const Finding& finding) {
      return finding.rule == "config.not-a-dataclass-field" && !finding.keys.empty() &&
             finding.keys.front().starts_with("actor_rollout_ref.ref.") &&
             finding.keys.front().find('.', std::string_view("actor_rollout_ref.ref.").size()) == std::string::npos;
    });
  }

  // verl's validate_config converts the critic section only when a critic runs (need_critic:
  // critic.enable, else adv_estimator == "gae"; verl/utils/config.py at v0.6.1 / v0.8.0) and builds
  // no critic otherwise: a key added there is never read (OpenOneRec's GRPO `++critic.enable=False`).
  void drop_critic_fields_without_critic() {
    const ConfigNode* enable = find_path(result_.config, "critic.enable");
    const ConfigNode* estimator = find_path(result_.config, "algorithm.adv_estimator");
    const bool enable_unset = enable == nullptr || enable->kind == NodeKind::null;
    const bool no_critic = enable != nullptr && enable->kind == NodeKind::boolean
                               ? !enable->boolean
                               : enable_unset && estimator != nullptr && estimator->kind == NodeKind::string &&
                                     !estimator->has_interpolation() && estimator->text != "gae";
    if (!no_critic) return;
    std::erase_if(result_.findings, [](const Finding& finding) {
      return finding.rule == "config.not-a-dataclass-field" && !finding.keys.empty() &&
             finding.keys.front().starts_with("critic.");
    });
  }

  const VerlReadOptions& options_;
  std::string config_path_;
  std::optional<EntryPointConfig> own_entry_;  ///< the repository's own entry point the launch runs
  bool recipe_entry_ = false;                  ///< the launch runs one of verl's recipes (recipe.dapo.main_dapo)
  std::map<std::string, std::string> group_choices_;  ///< Hydra group choices from the command line
  std::map<std::string, SourceLocation> choice_locations_;
  std::vector<std::string> searchpath_packages_;  ///< packages whose config comes from hydra.searchpath
  const ConfigTexts* texts_ = nullptr;                 ///< --verl-config's tree or the chosen version's
  ConfigTexts with_verl_tree_;  ///< the launch's config directory over the verl tree
  bool launch_directory_read_ = false;  ///< the launch's own --config-path directory was found and read
  std::set<std::string> split_reported_;  ///< values split at their blanks whose pieces were reported
  VerlLaunch result_;
};

}  // namespace

VerlTrainer trainer_of_config(std::string_view config_name) {
  if (config_name.starts_with("one_step_off_ppo")) return VerlTrainer::one_step_off;
  if (config_name.starts_with("fully_async_ppo")) return VerlTrainer::fully_async;
  return VerlTrainer::main_ppo;
}

Result<VerlLaunch> read_verl_launch(const std::vector<InputText>& inputs, const VerlReadOptions& options) {
  return Reader(options).run(inputs);
}

SourceLocation where_set(const VerlLaunch& launch, std::string_view key) {
  const auto it = launch.set_at.find(std::string(key));
  return it == launch.set_at.end() ? launch.location : it->second;
}

Result<VerlLaunch> read_verl_launch(std::string_view text, const std::string& file_name, const VerlReadOptions& options) {
  return read_verl_launch({InputText{file_name, std::string(text)}}, options);
}

}  // namespace meshplan
