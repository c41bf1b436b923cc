#include "verl_example_scripts.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

namespace meshplan::test {
namespace {

bool plain(const std::string& token) {
  for (char c : token) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_.=+~/:,@%-").find(c) != std::string_view::npos)) {
      return false;
    }
  }
  return !token.empty();
}

std::string quote(const std::string& token) {
  if (token == " ") return "\\ ";
  if (plain(token)) return token;
  if (token.find("$((") != std::string::npos && token.find('"') == std::string::npos) return token;
  if (token.find('$') != std::string::npos) {
    std::string out = "\"";
    for (char c : token) {
      if (c == '"' || c == '\\' || c == '`') out += '\\';
      out += c;
    }
    return out + "\"";
  }
  std::string out = "'";
  for (char c : token) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// shlex split "$((a", "+", "b))" back into one word.
std::vector<std::string> rejoin_arithmetic(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  int open = 0;
  for (const std::string& token : tokens) {
    int delta = 0;
    for (std::size_t i = 0; i + 1 < token.size(); ++i) {
      if (token.compare(i, 3, "$((") == 0) ++delta;
      if (token.compare(i, 2, "))") == 0) --delta;
    }
    if (open > 0) {
      out.back() += " " + token;
    } else {
      out.push_back(token);
    }
    open += delta;
  }
  return out;
}

}  // namespace

std::vector<ExampleLaunch> example_launches(const std::filesystem::path& jsonl) {
  std::vector<ExampleLaunch> launches;
  std::ifstream in(jsonl);
  std::string line;
  while (std::getline(in, line)) {
    // ordered_json: the record lists the variables in the order the script assigns them, and a
    // value may use an earlier one (nlohmann::json would sort them by name).
    const nlohmann::ordered_json record = nlohmann::ordered_json::parse(line);
    if (record["module"] != "verl.trainer.main_ppo") continue;
    ExampleLaunch launch;
    launch.source = record["source"].get<std::string>();
    launch.options.read.verl_version = "main@b178a3cd";  // the verl these examples come from
    if (record["num_launches"].get<int>() > 1) launch.source += "#" + std::to_string(record["launch_index"].get<int>());
    std::string script = "#!/bin/bash\n";
    for (const auto& [name, raw] : record["env_raw"].items()) {
      std::string value = raw.get<std::string>();
      if (record["arrays"].contains(name)) continue;  // written as an array below
      std::string escaped;
      for (char c : value) {
        if (c == '"' || c == '\\' || c == '`') escaped += '\\';
        escaped += c;
      }
      script += name + "=\"" + escaped + "\"\n";
    }
    for (const auto& [name, elements] : record["arrays"].items()) {
      script += name + "=(\n";
      std::vector<std::string> tokens;
      for (const auto& element : elements) tokens.push_back(element.get<std::string>());
      for (const std::string& token : rejoin_arithmetic(tokens)) script += "    " + quote(token) + "\n";
      script += ")\n";
    }
    for (const auto& name : record["exports"]) script += "export " + name.get<std::string>() + "\n";
    for (const auto& [name, value] : record["command_env"].items()) script += name + "=" + quote(value.get<std::string>()) + " ";
    for (const auto& word : record["launcher"]) {
      // The record keeps `ray job submit` as one token and drops its options and `--`.
      const std::string text = word.get<std::string>();
      script += text == "ray job submit" ? "ray job submit -- " : quote(text) + " ";
    }
    script += "-m verl.trainer.main_ppo";
    if (!record["config_path"].is_null()) script += " --config-path " + quote(record["config_path"].get<std::string>());
    if (!record["config_name"].is_null()) {
      const std::string name = record["config_name"].get<std::string>();
      script += " --config-name " + quote(name);
      // Configs from the example's own --config-path are not in ../shared: check them against
      // the base they extend (their defaults list names ppo_trainer / ppo_megatron_trainer).
      if (name.rfind("ppo_", 0) != 0) {
        launch.options.read.config_name = name.find("megatron") != std::string::npos ? "ppo_megatron_trainer" : "ppo_trainer";
      }
    }
    std::vector<std::string> tokens;
    for (const auto& token : record["overrides"]) tokens.push_back(token.get<std::string>());
    for (const std::string& token : rejoin_arithmetic(tokens)) {
      script += (token == " ") ? " \\ \n" : " \\\n    " + quote(token);
    }
    script += "\n";
    launch.script = std::move(script);
    launches.push_back(std::move(launch));
  }
  return launches;
}

std::map<std::string, std::pair<std::string, std::string>> broken_example_launches() {
  return {
      {"examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh",
       {"shell.broken-continuation", "line 7: '\\ ' ends the command and passes a blank argument Hydra cannot parse"}},
      {"recipe/dapo/test_dapo_8b_megatron_fp8train.sh",
       {"shell.broken-continuation", "line 201: '\\ ' ends the command and passes a blank argument Hydra cannot parse"}},
      {"recipe/dapo/test_dapo_gptoss_20b_megatron.sh",
       {"shell.broken-continuation", "line 248: '\\ ' ends the command and passes a blank argument Hydra cannot parse"}},
      {"recipe/dapo/test_dapo_qwen3next_80b_megatron.sh",
       {"shell.broken-continuation", "line 232: '\\ ' ends the command and passes a blank argument Hydra cannot parse"}},
      {"examples/grpo_trainer/run_qwen3_4b_grpo_vllm_1k_npu.sh",
       {"hydra.parse", "trainer_experiment_name=qwen3_4b_grpo_8npu} has a stray '}' that Hydra's grammar rejects"}},
      {"examples/cispo_trainer/run_cispo_qwen2_5_0_5b_gsm8k.sh",
       {"hydra.unknown-key", "actor_rollout_ref.model.torch_dtype is not in verl's config and has no '+' (R1)"}},
      {"examples/grpo_trainer/run_gptoss_20b.sh",
       {"hydra.unknown-key", "engine_kwargs.sglang.attention_backend without '+' (R1); also +model_dtype on a non-null key"}},
      {"examples/rollout_correction/run_with_rollout_corr.sh",
       {"batch.fsdp-mini-divisible", "mini 32 * n 1 // dp 8 = 4 is not divisible by micro batch 8 (R50)"}},
      {"recipe/dapo/test_dapo_qwen3_moe_30b_megatron_fp16.sh",
       {"batch.megatron-mp-divides-gpus", "with its defaults (1 node x 8 GPUs) TP*PP*CP = 16 exceeds the 8 GPUs (R7/R44)"}},
      {"recipe/langgraph_agent/example/run_gpt_oss_20b_bf16.sh",
       {"fsdp.ulysses-divides-gpus", "with its defaults N = 2 GPUs is not divisible by Ulysses SP 4 (R51)"}},
      {"recipe/langgraph_agent/example/run_qwen2.5_3b.sh",
       {"fsdp.ulysses-divides-gpus", "with its defaults N = 2 GPUs is not divisible by Ulysses SP 4 (R51)"}},
      {"examples/rollout_correction/run_with_rollout_corr_multi_rs.sh",
       {"batch.fsdp-mini-divisible", "mini 32 * n 1 // dp 8 = 4 is not divisible by micro batch 8 (R50)"}},
      {"examples/grpo_trainer/run_deepseek671b_math_megatron_80gb.sh",
       {"megatron.ref-micro-set", "Megatron ref (use_kl_loss=True) with dynamic bsz and neither ref log_prob micro batch "
                                  "set: the ref worker's __init__ asserts one is set (R48)"}},
  };
}

std::map<std::string, std::string> unrebuildable_example_launches() {
  // The record keeps only the last assignment of each variable, so scripts that build a
  // variable from itself or fill arrays from later variables cannot be rebuilt from it.
  return {
      {"examples/gspo_trainer/run_qwen30b_gspo.sh", "ACTOR_CONFIG=\"$ACTOR_CONFIG ...\" appends to itself"},
  };
}

std::vector<std::pair<std::string, std::string>> bundled_scripts(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::pair<std::string, std::string>> scripts;
  std::string line;
  constexpr std::string_view kMark = "#### bundled: ";
  while (std::getline(in, line)) {
    if (line.rfind(kMark, 0) == 0) {
      scripts.emplace_back(line.substr(kMark.size()), "");
    } else if (!scripts.empty()) {
      scripts.back().second += line + "\n";
    }
  }
  return scripts;
}

}  // namespace meshplan::test
