// Prefill / decode disaggregation of the rollout (verl 0.8.0 on, rollout.disaggregation.enabled):
// what RolloutConfig.__post_init__ and DisaggregationConfig.__post_init__ check at start-up
// (verl/workers/config/rollout.py, disaggregation.py), and what the PD replica checks when the
// rollout replicas are built (sglang_rollout/sglang_pd_replica.py; vllm_rollout/vllm_pd_replica.py
// from 0.9.0): one prefill server and the decode servers of a replica on one node, no engine DP.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "verl/rules/rule_support.hpp"

namespace meshplan {
namespace {

constexpr const char* kStart = "would fail at start-up (RolloutConfig.__post_init__)";
constexpr const char* kReplica = "would fail when the rollout replicas are built (the PD replica's __init__)";

bool disaggregated(const ConfigView& v) { return v.boolean(R("disaggregation.enabled")).value_or(false); }

int version_index(const char* id) { return find_verl_version(id)->index; }

std::optional<RuleHit> disaggregation_config(const ConfigView& v) {
  if (!disaggregated(v)) return std::nullopt;
  static const int vllm_from = version_index("0.9.0");
  const bool with_vllm = v.version().index >= vllm_from;
  const std::string name = v.text(R("name")).value_or("vllm");
  if (name != "sglang" && !(with_vllm && name == "vllm")) {
    return RuleHit{name,
                   with_vllm ? fmt::format("rollout.disaggregation.enabled=True requires rollout.name in ('sglang', "
                                           "'vllm'); got '{}'; {}",
                                           name, kStart)
                             : fmt::format("rollout.disaggregation.enabled=True is currently only supported with "
                                           "rollout.name='sglang'; got '{}'; {}",
                                           name, kStart),
                   {R("name") + "=sglang"}};
  }
  const std::string d = R("disaggregation.");
  if (auto hit = one_of(v, d + "transfer_backend",
                        std::array<std::string_view, 5>{"nixl", "mooncake", "ascend", "mori", "fake"},
                        "disaggregation.transfer_backend", kStart)) {
    return hit;
  }
  for (const char* key : {"prefill_replicas", "decode_replicas"}) {
    const auto replicas = v.integer(d + key);
    if (!replicas || *replicas >= 1) continue;
    return RuleHit{std::to_string(*replicas),
                   fmt::format("disaggregation requires >=1 prefill and >=1 decode replica (got {}={}); {}", key,
                               *replicas, kStart),
                   {d + key + "=1"}};
  }
  const auto port = v.integer(d + "bootstrap_port");
  if (port && (*port <= 0 || *port >= 65536)) {
    return RuleHit{std::to_string(*port), fmt::format("bootstrap_port out of range: {}; {}", *port, kStart), {}};
  }
  if (v.text(d + "transfer_backend").value_or("nixl") == "mooncake" && v.node(d + "mooncake_protocol") != nullptr) {
    return one_of(v, d + "mooncake_protocol", std::array<std::string_view, 4>{"nvlink", "local", "rdma", "tcp"},
                  "disaggregation.mooncake_protocol", kStart);
  }
  return std::nullopt;
}

std::optional<RuleHit> disaggregation_replica(const ConfigView& v) {
  if (!disaggregated(v)) return std::nullopt;
  static const int vllm_from = version_index("0.9.0");
  const std::string name = v.text(R("name")).value_or("vllm");
  // Only the engines with a PD replica: the start-up check refuses the others first.
  if (name != "sglang" && !(name == "vllm" && v.version().index >= vllm_from)) return std::nullopt;
  const std::string d = R("disaggregation.");
  if (name == "vllm") {
    const std::string backend = v.text(d + "transfer_backend").value_or("nixl");
    if (backend != "nixl" && backend != "mooncake") {
      return RuleHit{backend,
                     fmt::format("vLLMPDReplica supports transfer_backend in ('nixl', 'mooncake') in this revision; "
                                 "got '{}'; {}",
                                 backend, kReplica),
                     {d + "transfer_backend=nixl"}};
    }
  }
  const auto prefill = v.integer(d + "prefill_replicas");
  if (prefill && *prefill != 1) {
    return RuleHit{std::to_string(*prefill), fmt::format("prefill_replicas=1 only (got {}); {}", *prefill, kReplica),
                   {d + "prefill_replicas=1"}};
  }
  const auto tp = v.integer(R("tensor_model_parallel_size"));
  const auto decode = v.integer(d + "decode_replicas");
  const auto decode_tp = v.is_null(d + "decode_tensor_model_parallel_size")
                             ? tp
                             : v.integer(d + "decode_tensor_model_parallel_size");
  const long long per_node = v.rollout_gpus_per_node();
  if (tp && decode && decode_tp && per_node > 0 && *tp + *decode * *decode_tp > per_node) {
    return RuleHit{std::to_string(*tp + *decode * *decode_tp),
                   fmt::format("PD replica needs {} GPUs but gpus_per_node={} (prefill TP {} + {} decode replicas "
                               "x TP {}, on one node); {}",
                               *tp + *decode * *decode_tp, per_node, *tp, *decode, *decode_tp, kReplica),
                   {}};
  }
  for (const char* key : {"data_parallel_size", "pipeline_model_parallel_size"}) {
    if (std::string_view(key) == "pipeline_model_parallel_size" && name != "vllm") continue;
    const auto size = v.integer(R(key));
    if (!size || *size == 1) continue;
    return RuleHit{std::to_string(*size), fmt::format("{}=1 only (got {}); {}", key, *size, kReplica),
                   {R(key) + "=1"}};
  }
  return std::nullopt;
}

}  // namespace

const std::vector<VerlRule>& disaggregation_rules() {
  static const std::vector<VerlRule> rules = {
      {"rollout.disaggregation-config",
       Severity::error,
       {"actor_rollout_ref.rollout.disaggregation.enabled", "actor_rollout_ref.rollout.name",
        "actor_rollout_ref.rollout.disaggregation.transfer_backend"},
       disaggregation_config,
       false,
       "verl/workers/config/disaggregation.py:DisaggregationConfig.__post_init__"},
      {"rollout.disaggregation-replica",
       Severity::error,
       {"actor_rollout_ref.rollout.disaggregation.prefill_replicas",
        "actor_rollout_ref.rollout.disaggregation.decode_replicas",
        "actor_rollout_ref.rollout.tensor_model_parallel_size"},
       disaggregation_replica,
       false,
       "verl/workers/rollout/sglang_rollout/sglang_pd_replica.py:SGLangPDReplica.__init__"},
  };
  return rules;
}

}  // namespace meshplan
