// The trainer -> rollout weight sync's buckets (verl 0.7.1 on): the sender packs whole tensors into
// buckets of rollout.checkpoint_engine.update_weights_bucket_megabytes and asserts that a tensor
// fits an empty one ("Weight ... is too large to fit in the bucket"), at the first weight sync,
// before the first rollout. Which senders assert, by release (read in each):
//   0.7.1: vLLM's colocated sender (vllm_rollout/bucketed_weight_transfer.py BucketedWeightSender,
//          every tensor) and the nccl, nixl, hccl and mooncake checkpoint engines;
//   0.8.0: the hccl and mooncake engines (vLLM's sender sends a large tensor on its own unless it
//          falls back to shared memory, nccl / nixl split it into chunks: PR #6091);
//   0.9.0 on: the mooncake engine.
// The largest tensor is at least the embedding (vocab x hidden), in the dtype the trainer holds:
// the FSDP actor's fsdp_config.model_dtype (fp32 unless set: fsdp_workers.py _build_model_optimizer),
// Megatron's bf16 parameters (exported per tensor by the bridge).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

int version_index(const char* id) { return find_verl_version(id)->index; }

/// Whether this release's weight sync asserts on a tensor larger than the bucket, for the launch's
/// rollout engine and checkpoint-engine backend.
bool sender_asserts(const ConfigView& v) {
  static const int from = version_index("0.7.1");
  static const int engines_split_from = version_index("0.8.0");
  static const int hccl_until = version_index("0.8.0");
  const int at = v.version().index;
  if (at < from) return false;
  const std::string backend = v.text(R("checkpoint_engine.backend")).value_or("naive");
  if (at < engines_split_from) return v.text(R("name")).value_or("vllm") == "vllm" || backend != "naive";
  return backend == "mooncake" || (backend == "hccl" && at <= hccl_until);
}

/// Bytes of one parameter as the trainer sends it; 0 when the launch's dtype is not one we read.
double sent_bytes_per_parameter(const ConfigView& v) {
  if (v.megatron()) return 2;  // bf16 / fp16 parameters
  const std::string dtype = v.text(A("fsdp_config.model_dtype")).value_or("fp32");
  if (dtype == "fp32" || dtype == "float32") return 4;
  if (dtype == "bf16" || dtype == "bfloat16" || dtype == "fp16" || dtype == "float16") return 2;
  return 0;
}

std::optional<RuleHit> weight_bucket_fits(const ConfigView& v) {
  const ModelSpec* model = v.model();
  if (model == nullptr || model->vocab_size <= 0 || model->hidden_size <= 0 || !sender_asserts(v)) {
    return std::nullopt;
  }
  if (v.integer("actor_rollout_ref.model.lora.rank").value_or(0) > 0 ||
      v.integer("actor_rollout_ref.model.lora_rank").value_or(0) > 0) {
    return std::nullopt;  // LoRA: which tensors go first depends on the sync mode
  }
  const double bytes = sent_bytes_per_parameter(v);
  if (bytes == 0) return std::nullopt;
  const double mib = static_cast<double>(model->vocab_size) * static_cast<double>(model->hidden_size) * bytes /
                     (1024.0 * 1024.0);
  const auto bucket = v.integer(R("checkpoint_engine.update_weights_bucket_megabytes")).value_or(2048);
  if (mib <= static_cast<double>(bucket)) return std::nullopt;
  long long fit = 1;
  while (static_cast<double>(fit) < mib) fit *= 2;
  return RuleHit{
      std::to_string(bucket),
      fmt::format("{}'s embedding, [{}, {}] in {} as the {} holds it, is {:.0f} MiB and the weight sync's buckets "
                  "are update_weights_bucket_megabytes {} MiB, which must hold each tensor whole: \"Weight ... is too "
                  "large to fit in the bucket\" at the first weight sync, before the first rollout",
                  model->name, model->vocab_size, model->hidden_size, bytes == 4 ? "float32" : "bfloat16",
                  v.megatron() ? "Megatron trainer" : "FSDP actor", std::ceil(mib), bucket),
      {fmt::format("{}={}", R("checkpoint_engine.update_weights_bucket_megabytes"), fit)}};
}

}  // namespace

const std::vector<VerlRule>& weight_sync_rules() {
  static const std::vector<VerlRule> rules = {
      {"rollout.weight-bucket-fits",
       Severity::error,
       {"actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes",
        "actor_rollout_ref.rollout.checkpoint_engine.backend", "actor_rollout_ref.actor.fsdp_config.model_dtype"},
       weight_bucket_fits,
       true,
       "verl/checkpoint_engine/base.py:CheckpointEngineWorker.__init__",
       "0.7.1"},
  };
  return rules;
}

}  // namespace meshplan
