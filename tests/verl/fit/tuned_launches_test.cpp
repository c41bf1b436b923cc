// verl's tuned launches (examples/tuning/ at b178a3cd, each named after the GPUs it ran on) as a
// user checks them: `check SCRIPT --model <its model> --gpu <its GPU>` must give no memory error.
// The scripts are rebuilt from ../shared/verl/examples_overrides.jsonl (their variables, then
// the launch with its overrides) and go through check's own shell parser, Hydra composition and
// launch -> Strategy mapping. The model is the preset of actor_rollout_ref.model.path's repo, or
// the config.json fixture of the same Hugging Face repo (tests/fixtures/models/SOURCES.md); the
// GPU is the one in the file name.
//
// The LoRA scripts record the batch sizes their authors tried (nproc_per_gpu=16 #
// 64√ → 128× → 96√ ...): a √ must not be a memory error; a × must be predicted to fail, as an
// error or as the warning that it OOMs when responses reach their maximum length.
#include <doctest/doctest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include "core/std_regex.hpp"
#include <string>

#include "verl/check_support.hpp"
#include "cli/model_input.hpp"
#include "hardware/gpu_catalog.hpp"
#include "test_support.hpp"
#include "verl/check.hpp"

namespace meshplan {
namespace {

struct Record {
  std::string source;
  std::string config_name;
  std::vector<std::pair<std::string, std::string>> variables;  // in script order
  std::vector<std::string> overrides;                          // as written, with $VARS
};

std::vector<Record> tuning_records(const std::filesystem::path& path) {
  std::vector<Record> records;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);  // variables in script order
    const std::string source = j.at("source");
    if (source.rfind("examples/tuning/", 0) != 0) continue;
    Record r;
    r.source = source;
    if (j.at("config_name").is_string()) r.config_name = j.at("config_name");
    for (const auto& [k, v] : j.at("env_raw").items()) r.variables.emplace_back(k, v.get<std::string>());
    for (const std::string token : j.at("overrides")) {
      if (token != "$@") r.overrides.push_back(token);
    }
    records.push_back(r);
  }
  return records;
}

// The launch as a script: its variables (one may be replaced), then the trainer command.
std::string script_of(const Record& r, const std::map<std::string, std::string>& replace = {}) {
  std::string text;
  for (const auto& [name, value] : r.variables) {
    const auto it = replace.find(name);
    text += name + "=\"" + (it != replace.end() ? it->second : value) + "\"\n";
  }
  text += "python3 -m verl.trainer.main_ppo";
  if (!r.config_name.empty()) text += " --config-name=" + r.config_name.substr(0, r.config_name.find(".yaml"));
  for (const std::string& o : r.overrides) text += " \\\n    \"" + o + "\"";
  return text + "\n";
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The model of actor_rollout_ref.model.path: the preset of its repo, else the fixture config.
ModelSpec model_of(const Record& r) {
  std::string path;
  for (const std::string& o : r.overrides) {
    if (o.rfind("actor_rollout_ref.model.path=", 0) == 0) path = o.substr(o.find('=') + 1);
  }
  // $MODEL_PATH, ${model_path}, or (the 70B H20 script) the bare variable name.
  std::erase_if(path, [](char c) { return c == '$' || c == '{' || c == '}'; });
  for (const auto& [name, value] : r.variables) {
    if (name == path) path = value;
  }
  const std::string repo = lower(path.substr(path.find('/') + 1));
  Result<ModelSpec> model = load_model_argument(repo);
  if (!model.ok()) model = load_model_argument((test::fixture("models") / repo).string());
  REQUIRE_MESSAGE(model.ok(), r.source << ": " << repo);
  return *model;
}

GpuSpec gpu_of(const Record& r) {
  for (const char* name : {"h100", "h800", "h20"}) {
    if (r.source.find(std::string("_") + name + "_") == std::string::npos) continue;
    const Result<GpuSpec> gpu = find_gpu(builtin_gpu_catalog(), name);
    REQUIRE(gpu.ok());
    return *gpu;
  }
  FAIL("no GPU in " << r.source);
  return {};
}

CheckReport check_record(const Record& r, const std::map<std::string, std::string>& replace = {}) {
  CheckOptions options;
  options.model = model_of(r);
  options.gpu = gpu_of(r);
  const auto report = check_launch({InputText{r.source, script_of(r, replace)}}, options);
  REQUIRE_MESSAGE(report.ok(), r.source << ": " << (report.ok() ? "" : report.error().to_string()));
  return *report;
}

std::vector<Finding> memory_findings(const CheckReport& report) {
  std::vector<Finding> out;
  for (const Finding& f : report.findings) {
    if (f.rule.rfind("memory.", 0) == 0) out.push_back(f);
  }
  return out;
}

bool memory_error(const CheckReport& report) {
  for (const Finding& f : memory_findings(report)) {
    if (f.severity == Severity::error) return true;
  }
  return false;
}

TEST_CASE("verl's tuned launches (examples/tuning/): check --model --gpu gives no memory error") {
  const auto path = test::shared_file("verl/examples_overrides.jsonl");
  if (!path) return;
  const std::vector<Record> records = tuning_records(*path);
  CHECK(records.size() == 12);
  for (const Record& r : records) {
    const CheckReport report = check_record(r);
    for (const Finding& f : memory_findings(report)) MESSAGE(r.source << ": " << f.rule << ": " << f.message);
    CHECK_MESSAGE(!memory_error(report), r.source);
  }
}

// "nproc_per_gpu=16 # 64√ → 128× → ..." -> {64: true, 128: false, ...}
std::map<int, bool> tried_sizes(const std::string& comment) {
  std::map<int, bool> out;
  const std::regex tried("(\\d+)\\s*(√|×)");
  for (auto it = std::sregex_iterator(comment.begin(), comment.end(), tried); it != std::sregex_iterator(); ++it) {
    out[std::stoi((*it)[1])] = (*it)[2] == "√";
  }
  return out;
}

TEST_CASE("the batch sizes the LoRA scripts record as working fit, the ones recorded as failing do not") {
  const auto path = test::shared_file("verl/examples_overrides.jsonl");
  if (!path) return;
  // The comments of examples/tuning/*/qwen2-*_grpo-lora_*.sh at b178a3cd (the records keep the
  // variables, not the comments).
  const std::map<std::string, std::string> comments = {
      {"qwen2-7b_grpo-lora_1_h100", "64√ → 128× → 96√ → 112× → 104× → 100√ → 102× → 101×"},
      {"qwen2-14b_grpo-lora_2_h100", "32√ → 64× → 48√ → 56√ → 60× → 58√ → 59×"},
      {"qwen2-32b_grpo-lora_4_h100", "32√ → 64× → 48× → 40√ → 44√ → 46× → 45×"},
      {"qwen2-72b_grpo-lora_8_h100", "16√ → 32× → 24× → 20√ → 22√ → 23×"},
  };
  int checked = 0;
  for (const Record& r : tuning_records(*path)) {
    for (const auto& [name, comment] : comments) {
      if (r.source.find(name) == std::string::npos) continue;
      for (const auto& [size, worked] : tried_sizes(comment)) {
        const CheckReport report = check_record(r, {{"nproc_per_gpu", std::to_string(size)}});
        bool fails = memory_error(report);
        for (const Finding& f : memory_findings(report)) fails = fails || f.rule == "memory.oom-at-max-length";
        const std::string predicted = memory_error(report) ? "error" : fails ? "OOM at max length" : "fits";
        MESSAGE(name << " nproc_per_gpu=" << size << (worked ? " worked" : " failed") << ": predicted " << predicted);
        if (worked) {
          CHECK_MESSAGE(!memory_error(report), name << " " << size);
        } else {
          CHECK_MESSAGE(fails, name << " " << size);
        }
        ++checked;
      }
    }
  }
  CHECK(checked == 28);
}

}  // namespace
}  // namespace meshplan
