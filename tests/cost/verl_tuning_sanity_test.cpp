// Sanity against configurations people ran: every verl example under examples/tuning/ must not
// be predicted to OOM on the GPU its file name names (../shared/verl/examples_overrides.jsonl).
//
// The configuration is built from the script's overrides with verl's defaults (the generated
// trainer YAML at the pinned commit): GPUs = trainer.nnodes x trainer.n_gpus_per_node; the
// model from actor_rollout_ref.model.path (an embedded preset, or a config.json fixture of the
// same Hugging Face repo under tests/fixtures/models/, SOURCES.md there); the GPU from the file
// name (h100 / h800 / h20). Every record is checked; none is skipped.
//
// Sequence lengths: these scripts train on GSM8K with use_remove_padding=True (verl's default),
// so micro-batches hold the real tokens, not max_prompt_length + max_response_length. The tuned
// micro-batch sizes (e.g. 128 sequences of up to 1536 tokens per H100 for Qwen2.5-1.5B) were
// found with real GSM8K lengths; at the padded maximum their logits alone would exceed the GPU.
// We take GSM8K prompts of ~128 tokens (a ~60-token question, verl's gsm8k.py instruction and
// the Qwen chat template) and responses of ~256 tokens (an assumption: GSM8K reference
// solutions are a few sentences; instruct models' step-by-step answers run a few hundred
// tokens), each capped by the script's maxima. Sensitivity, measured: with 384-token responses
// the 1.5B LoRA (1 x H100, 128 sequences per micro-batch, entropy in the loss) and the 72B
// on 32 x H800 (24k-token micro-batches) would be predicted to OOM; at the padded maxima 8 of
// the 12 would (the test prints both numbers for every record).
#include <doctest/doctest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "cli/model_input.hpp"
#include "cost/memory_estimate.hpp"
#include "hardware/gpu_catalog.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

constexpr std::int64_t kGsm8kMeanPromptTokens = 128;
constexpr std::int64_t kGsm8kMeanResponseTokens = 256;

struct Record {
  std::string source;
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> overrides;
};

// Resolves $VAR / ${VAR} and $(( a * b * c )) against the script's variables.
std::string resolve(const std::string& value, const std::map<std::string, std::string>& env, int depth = 0) {
  if (depth > 8) return value;
  static const std::regex arithmetic(R"(^\$\(\(\s*(.*?)\s*\)\)$)");
  std::smatch m;
  if (std::regex_match(value, m, arithmetic)) {
    long long product = 1;
    std::string expr = m[1];
    std::size_t start = 0;
    while (start <= expr.size()) {
      const std::size_t star = expr.find('*', start);
      std::string name = expr.substr(start, star == std::string::npos ? std::string::npos : star - start);
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      const auto it = env.find(name);
      product *= std::stoll(resolve(it != env.end() ? it->second : name, env, depth + 1));
      if (star == std::string::npos) break;
      start = star + 1;
    }
    return std::to_string(product);
  }
  static const std::regex variable(R"(^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$)");
  if (std::regex_match(value, m, variable)) {
    const auto it = env.find(m[1]);
    return it == env.end() ? value : resolve(it->second, env, depth + 1);
  }
  return value;
}

std::vector<Record> tuning_records(const std::filesystem::path& path) {
  std::vector<Record> records;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const std::string source = j.at("source");
    if (source.rfind("examples/tuning/", 0) != 0) continue;
    Record r;
    r.source = source;
    for (const auto& [k, v] : j.at("env_defaults").items()) r.env[k] = v.get<std::string>();
    for (const std::string token : j.at("overrides_expanded")) {
      const std::size_t eq = token.find('=');
      if (eq == std::string::npos) continue;
      r.overrides[token.substr(0, eq)] = resolve(token.substr(eq + 1), r.env);
    }
    records.push_back(r);
  }
  return records;
}

struct Lookup {
  const Record& r;
  std::string str(const std::string& key, const std::string& fallback) const {
    const auto it = r.overrides.find(key);
    return it == r.overrides.end() ? fallback : it->second;
  }
  long long num(const std::string& key, long long fallback) const {
    const std::string v = str(key, "");
    return v.empty() || v == "null" ? fallback : std::stoll(v);
  }
  bool flag(const std::string& key, bool fallback) const {
    const std::string v = str(key, "");
    return v.empty() ? fallback : (v == "True" || v == "true");
  }
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The preset of the repo id, else the fixture config of the same repo.
Result<ModelSpec> model_of(std::string path, const Record& r) {
  if (path == "model_path") path = r.env.at("model_path");  // the H20 70B script writes the name without '$'
  const std::string repo = lower(path.substr(path.find('/') + 1));
  if (Result<ModelSpec> preset = load_model_argument(repo); preset.ok()) return preset;
  return load_model_argument((test::fixture("models") / repo).string());
}

struct Built {
  ModelSpec model;
  Cluster cluster;
  Strategy strategy;
  Workload workload;
};

Built build(const Record& r) {
  const Lookup o{r};
  const std::string A = "actor_rollout_ref.actor.", R = "actor_rollout_ref.rollout.",
                    M = "actor_rollout_ref.model.";
  Built b;
  const Result<ModelSpec> model = model_of(o.str(M + "path", ""), r);
  REQUIRE_MESSAGE(model.ok(), r.source << ": " << (model.ok() ? "" : model.error().to_string()));
  b.model = *model;
  const int nodes = int(o.num("trainer.nnodes", 1));
  const int per_node = int(o.num("trainer.n_gpus_per_node", 8));
  static const std::regex gpu_in_name(R"(_(h100|h800|h20|a100)_)");
  std::smatch m;
  REQUIRE(std::regex_search(r.source, m, gpu_in_name));
  const Result<GpuSpec> gpu = find_gpu(builtin_gpu_catalog(), m[1].str());
  REQUIRE(gpu.ok());
  NodeGroup group;
  group.nodes = nodes;
  group.gpus_per_node = per_node;
  group.gpu = *gpu;
  b.cluster.groups.push_back(group);
  const int world = nodes * per_node;

  Strategy& s = b.strategy;
  const bool megatron = r.source.find("megatron") != std::string::npos;
  s.backend = megatron ? Backend::megatron : Backend::fsdp;
  if (megatron) {
    s.tp = int(o.num(A + "megatron.tensor_model_parallel_size", 1));
    s.pp = int(o.num(A + "megatron.pipeline_model_parallel_size", 1));
    s.sequence_parallel = s.tp > 1;  // verl megatron default sequence_parallel: true
    s.dp = world / (s.tp * s.pp);
    s.offload.params = o.flag(A + "megatron.param_offload", false);
    s.offload.grads = o.flag(A + "megatron.grad_offload", false);
    s.offload.optimizer = o.flag(A + "megatron.optimizer_offload", false);
  } else {
    s.dp = world;
    s.zero = ZeroStage::zero3;
    s.ulysses_sp = int(o.num(A + "ulysses_sequence_parallel_size", 1));
    const long long fsdp_size = o.num(A + "fsdp_config.fsdp_size", -1);
    s.fsdp_shard_size = fsdp_size > 0 ? int(fsdp_size) : 0;
    s.offload.params = o.flag(A + "fsdp_config.param_offload", false);
    s.offload.optimizer = o.flag(A + "fsdp_config.optimizer_offload", false);
    if (o.flag(M + "enable_gradient_checkpointing", true)) s.recompute = Recompute::full;
  }
  s.lora.rank = int(o.num(M + "lora_rank", 0));
  s.lora.target_modules = {o.str(M + "target_modules", "all-linear")};

  Workload& w = b.workload;
  RlSettings& rl = w.rl;
  w.kind = WorkloadKind::rl;
  w.global_batch = o.num("data.train_batch_size", 1024);
  rl.prompt_len = o.num("data.max_prompt_length", 512);
  rl.response_len = o.num("data.max_response_length", 512);
  w.seq_len = rl.prompt_len + rl.response_len;
  rl.mean_prompt_len = kGsm8kMeanPromptTokens;
  rl.mean_response_len = kGsm8kMeanResponseTokens;
  rl.use_remove_padding = o.flag(M + "use_remove_padding", true);
  rl.n = int(o.num(R + "n", 1));
  rl.rollout_tp = int(o.num(R + "tensor_model_parallel_size", 2));
  rl.gpu_memory_utilization = std::stod(o.str(R + "gpu_memory_utilization", "0.5"));
  rl.engine = o.str(R + "name", "vllm") == "sglang" ? RolloutEngine::sglang : RolloutEngine::vllm;
  rl.max_num_seqs = int(o.num(R + "max_num_seqs", 256));
  rl.max_num_batched_tokens = o.num(R + "max_num_batched_tokens", 8192);
  rl.ppo_mini_batch = int(o.num(A + "ppo_mini_batch_size", 256));
  // verl-rules.md §0: a global micro-batch is divided by the actor's DP size.
  const int actor_dp = megatron ? s.dp : s.dp / s.ulysses_sp;
  const long long global_micro = o.num(A + "ppo_micro_batch_size", 0);
  rl.ppo_micro_batch_per_gpu = int(o.num(A + "ppo_micro_batch_size_per_gpu", global_micro / actor_dp));
  const long long global_log_prob = o.num(R + "log_prob_micro_batch_size", 0);
  rl.log_prob_micro_batch_per_gpu =
      int(o.num(R + "log_prob_micro_batch_size_per_gpu", global_log_prob / actor_dp));
  s.micro_batch = std::max(1, rl.ppo_micro_batch_per_gpu);
  rl.use_dynamic_bsz = o.flag(A + "use_dynamic_bsz", false);
  rl.ppo_max_token_len_per_gpu = o.num(A + "ppo_max_token_len_per_gpu", 16384);
  rl.log_prob_max_token_len_per_gpu =
      o.num(R + "log_prob_max_token_len_per_gpu", rl.ppo_max_token_len_per_gpu);
  rl.use_reference = o.flag(A + "use_kl_loss", false) || o.flag("algorithm.use_kl_in_reward", false);
  rl.ref_param_offload = o.flag("actor_rollout_ref.ref.fsdp_config.param_offload", false) ||
                         o.flag("actor_rollout_ref.ref.megatron.param_offload", false);
  rl.use_critic = o.str("algorithm.adv_estimator", "gae") == "gae";
  rl.entropy_chunking = o.flag(A + "entropy_from_logits_with_chunking", false);
  rl.entropy_in_update =
      std::stod(o.str(A + "entropy_coeff", "0")) != 0 || o.flag(A + "calculate_entropy", false);
  rl.free_cache_engine = o.flag(R + "free_cache_engine", true);
  rl.enforce_eager = o.flag(R + "enforce_eager", false);
  return b;
}

TEST_CASE("verl's tuned examples (examples/tuning/) are not predicted to OOM") {
  const auto path = test::shared_file("verl/examples_overrides.jsonl");
  if (!path) return;
  const std::vector<Record> records = tuning_records(*path);
  CHECK(records.size() == 12);
  for (const Record& r : records) {
    const Built b = build(r);
    const MemoryEstimate e =
        estimate_memory(b.model, b.cluster, b.strategy, b.workload, MemoryOptions{}, nullptr);
    Built worst = b;
    worst.workload.rl.mean_prompt_len = 0;
    worst.workload.rl.mean_response_len = 0;
    const MemoryEstimate padded =
        estimate_memory(worst.model, worst.cluster, worst.strategy, worst.workload, MemoryOptions{}, nullptr);
    MESSAGE(r.source << ": peak " << e.peak_bytes / 1073741824.0 << " GiB ("
                     << std::string(memory_phase_name(e.peak().kind)) << ") of "
                     << e.capacity_bytes / 1073741824.0 << " GiB; at padded max lengths "
                     << padded.peak_bytes / 1073741824.0 << " GiB ("
                     << std::string(memory_phase_name(padded.peak().kind)) << ")");
    if (!e.fits) {
      for (int i = 0; i < e.phase_count; ++i) {
        std::string line = std::string(memory_phase_name(e.phases[i].kind)) + ":";
        for (int c = 0; c < kMemoryComponentCount; ++c)
          if (e.phases[i].bytes[c] > 0)
            line += " " + std::string(memory_component_name(MemoryComponent(c))) + "=" +
                    std::to_string(e.phases[i].bytes[c] / 1073741824.0);
        MESSAGE(line);
      }
    }
    CHECK_MESSAGE(e.fits, r.source << " predicted OOM: peak " << e.peak_bytes / 1073741824.0 << " GiB in "
                                   << std::string(memory_phase_name(e.peak().kind)));
  }
}

}  // namespace
}  // namespace meshplan
