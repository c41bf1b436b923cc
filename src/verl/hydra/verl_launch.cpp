#include "verl/hydra/verl_launch.hpp"

#include <algorithm>

#include "verl/hydra/config_loader.hpp"
#include "verl/hydra/hydra_compose.hpp"
#include "verl/hydra/hydra_override.hpp"
#include "verl/hydra/interpolation.hpp"
#include "verl/shell/shell_script.hpp"

namespace meshplan {
namespace {

bool is_yaml_name(const std::string& name) {
  return name.size() > 5 && (name.ends_with(".yaml") || name.ends_with(".yml"));
}

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
    for (const InputText& input : inputs) {
      if (is_yaml_name(input.file_name)) {
        auto layer = config_from_yaml(input.text, input.file_name);
        if (!layer.ok()) return layer.error();
        yaml_layers.push_back(std::move(layer.value()));
        continue;
      }
      ShellScript script = evaluate_shell_script(input.text, input.file_name, options_.environment);
      append(result_.findings, script.findings);
      std::vector<Launch> launches = find_launches(script);
      bool found = false;
      for (Launch& launch : launches) {
        if (launch.kind == LaunchKind::megatron) {
          result_.megatron.push_back(launch);
          found = true;
        } else if (launch.kind == LaunchKind::verl_ppo) {
          found = true;
          if (result_.verl_launch_count++ != options_.launch_index) continue;
          result_.has_verl_launch = true;
          if (launch.config_name) script_config_name = strip_yaml_suffix(*launch.config_name);
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
      if (!found) {
        // A command whose own name is not known statically may be the launch.
        for (const ShellInvocation& call : script.invocations) {
          if (call.args.empty() || !call.args.front().unknown) continue;
          return Error{input.file_name, call.location.line, "",
                       "no trainer launch found: the command at this line may be one, but its name is not known "
                       "statically (" + *call.args.front().unknown + "); give the launch line itself to check"};
        }
        return Error{input.file_name, 0, "",
                     "no trainer launch found (expected python3 -m verl.trainer.main_ppo, torchrun, ray job submit, "
                     "or a Megatron-LM pretrain_*.py)"};
      }
    }
    for (const std::string& line : options_.set_overrides) {
      overrides.push_back(ShellArgument{line, std::nullopt, SourceLocation{"--set", 0}});
    }
    if (!result_.has_verl_launch && yaml_layers.empty()) return std::move(result_);
    result_.has_verl_launch = true;
    take_group_choices(overrides);
    auto base = load_base(options_.config_name ? *options_.config_name : script_config_name.value_or("ppo_trainer"));
    if (!base.ok()) return base.error();
    result_.config = std::move(base.value());
    for (const ConfigNode& layer : yaml_layers) merge_yaml(result_.config, layer, "");
    for (const ShellArgument& word : overrides) apply(word);
    append(result_.findings, resolve_interpolations(result_.config));
    note_version_drift();
    return std::move(result_);
  }

 private:
  static void append(std::vector<Finding>& to, const std::vector<Finding>& from) {
    to.insert(to.end(), from.begin(), from.end());
  }

  // Keys the embedded schema lacks are often keys of another verl version: say which version the
  // schema is, and how to check against the user's own.
  void note_version_drift() {
    if (!options_.config_texts.empty()) return;
    const auto unknown = std::count_if(result_.findings.begin(), result_.findings.end(),
                                       [](const Finding& f) { return f.rule == "hydra.unknown-key"; });
    if (unknown == 0) return;
    Finding finding;
    finding.severity = Severity::info;
    finding.rule = "hydra.schema-version";
    const std::string source = embedded_verl_source();
    finding.message = std::to_string(unknown) + " key(s) are not in the embedded verl config (" +
                      source.substr(0, source.find(", ")) +
                      "); if the launch targets another verl version, check it against that version's config: "
                      "--verl-config <verl checkout>/verl/trainer/config";
    finding.location = result_.location;
    result_.findings.push_back(std::move(finding));
  }

  void info(const SourceLocation& where, const std::string& message) {
    Finding finding;
    finding.severity = Severity::info;
    finding.rule = "launch.not-checked";
    finding.message = message;
    finding.location = where;
    result_.findings.push_back(std::move(finding));
  }

  // `group=option` overrides of a config group of the user's directory (Hydra group choices such
  // as `model_engine=megatron`): they select configs, they are not keys.
  void take_group_choices(std::vector<ShellArgument>& overrides) {
    if (options_.config_texts.empty()) return;
    std::vector<ShellArgument> keys;
    for (ShellArgument& word : overrides) {
      const std::size_t eq = word.text.find('=');
      const std::string name = eq == std::string::npos ? "" : word.text.substr(0, eq);
      if (!name.empty() && !word.unknown && is_config_group(options_.config_texts, name)) {
        group_choices_[name] = word.text.substr(eq + 1);
      } else {
        keys.push_back(std::move(word));
      }
    }
    overrides = std::move(keys);
  }

  // A user's config directory: verl's fully composed `_generated_<name>.yaml` when no group is
  // chosen on the command line, else `<name>.yaml` composed through its defaults lists.
  Result<ConfigNode> load_user_base(const std::string& name) {
    const auto& texts = options_.config_texts;
    const auto generated = texts.find("_generated_" + name);
    if (group_choices_.empty() && generated != texts.end()) return config_from_yaml(generated->second, generated->first + ".yaml");
    const auto own = texts.find(name);
    if (own == texts.end()) {
      if (generated != texts.end()) return config_from_yaml(generated->second, generated->first + ".yaml");
      return Error{"", 0, "--config-name", "config '" + name + "' is not in the --verl-config directory"};
    }
    if (!has_defaults_list(own->second)) return config_from_yaml(own->second, name + ".yaml");
    return compose_hydra_config(texts, name, group_choices_);
  }

  Result<ConfigNode> load_base(const std::string& name) {
    result_.config_name = name;
    if (!options_.config_texts.empty()) return load_user_base(name);
    auto base = embedded_verl_base(name);
    if (!base.ok() && !config_path_.empty()) {
      return Error{"", 0, "--config-name",
                   "config '" + name + "' comes from --config-path " + config_path_ +
                       ", which meshplan cannot read from a script; pass --verl-config DIR (the directory holding " +
                       name + ".yaml) or --config-name ppo_trainer|ppo_megatron_trainer"};
    }
    return base;
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

  void apply(const ShellArgument& word) {
    if (word.text.rfind("--", 0) == 0 || (word.text.rfind("-", 0) == 0 && word.text.find('=') == std::string::npos)) {
      Finding finding;
      finding.severity = Severity::error;
      finding.rule = "hydra.unknown-flag";
      finding.value = word.text;
      finding.keys = {word.text};
      const bool dashed_override = word.text.rfind("--", 0) == 0 && word.text.find('=') != std::string::npos;
      finding.message = "'" + word.text + "' is not a flag Hydra knows: main_ppo stops with \"unrecognized arguments\"" +
                        std::string(dashed_override ? "; Hydra overrides are written without leading dashes" : "");
      if (dashed_override) finding.fix = {word.text.substr(2)};
      finding.location = word.location;
      result_.findings.push_back(std::move(finding));
      return;
    }
    if (word.text.rfind("hydra.", 0) == 0 || word.text.rfind("+hydra.", 0) == 0) return;  // Hydra's own settings
    const std::size_t eq = word.text.find('=');
    if (word.unknown && word.text.substr(0, eq).find('$') != std::string::npos) {
      info(word.location, "argument '" + word.text + "' is not known statically (" + *word.unknown + "); not checked");
      return;
    }
    auto parsed = parse_override(word.text, word.location, word.unknown);
    if (!parsed.ok()) {
      result_.findings.push_back(input_finding(parsed.error(), word.location));
      return;
    }
    const ConfigNode* before = find_path(result_.config, parsed->key);
    const bool existed = before != nullptr;
    if (before != nullptr) check_type(*before, parsed.value());
    if (auto finding = apply_override(result_.config, parsed.value())) {
      result_.findings.push_back(std::move(*finding));
      return;
    }
    result_.set_at[parsed->key] = word.location;
    if (!existed) check_dataclass_field(parsed.value());
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
    if (before.is_number() && !value.is_number() && !boolean_as_number) expected = "a number";
    if (before.kind == NodeKind::boolean && value.kind != NodeKind::boolean) expected = "true or false";
    if (expected.empty()) return;
    Finding finding;
    finding.severity = Severity::error;
    finding.rule = "config.type";
    finding.keys = {o.key};
    finding.value = value.to_text();
    finding.message = "'" + o.key + "' takes " + expected + " (default " + before.to_text() + "), not '" +
                      value.to_text() + "': verl fails at start-up when it converts or uses the value";
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

  // verl-rules.md R5: a section carrying `_target_` becomes that dataclass at start-up; a key
  // added with '+' that is not one of its fields fails there (TypeError / ConfigKeyError).
  void check_dataclass_field(const Override& added) {
    const ConfigNode* target = dataclass_target(added.key);
    if (target == nullptr) return;
    const std::size_t dot = added.key.rfind('.');
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
    result_.findings.push_back(std::move(finding));
  }

  const VerlReadOptions& options_;
  std::string config_path_;
  std::map<std::string, std::string> group_choices_;  ///< Hydra group choices from the command line
  VerlLaunch result_;
};

}  // namespace

Result<VerlLaunch> read_verl_launch(const std::vector<InputText>& inputs, const VerlReadOptions& options) {
  return Reader(options).run(inputs);
}

Result<VerlLaunch> read_verl_launch(std::string_view text, const std::string& file_name, const VerlReadOptions& options) {
  return read_verl_launch({InputText{file_name, std::string(text)}}, options);
}

}  // namespace meshplan
