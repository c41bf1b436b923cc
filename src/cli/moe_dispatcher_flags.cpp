#include "cli/moe_dispatcher_flags.hpp"

#include <CLI/CLI.hpp>

#include "cli/number_checks.hpp"
#include "strategy/moe_dispatcher.hpp"

namespace meshplan {

void add_moe_dispatcher_flags(CLI::App& command, MoeDispatcherFlags& flags) {
  command
      .add_option("--moe-token-dispatcher-type", flags.type,
                  "how MoE tokens reach their experts: alltoall (one row per token and expert, the default), flex "
                  "(DeepEP / HybridEP: once per GPU, across nodes once per node) or allgather (every token to every "
                  "rank of the TP x EP group) (Megatron --moe-token-dispatcher-type; verl "
                  "override_transformer_config.moe_token_dispatcher_type)")
      ->check(CLI::IsMember({"alltoall", "flex", "allgather"}));
  command
      .add_option("--moe-flex-dispatcher-num-sms", flags.sms,
                  "SMs the flex dispatcher copies with (Megatron --moe-flex-dispatcher-num-sms; default DeepEP's 20)")
      ->check(number_between(1, 1024));
  command.add_flag("--moe-dropless-imbalance", flags.dropless_imbalance,
                   "cost dropless routing's load imbalance as a trained Qwen3 router showed it: each MoE layer "
                   "waits for its most loaded EP rank (docs/accuracy-held-out-training.md); without it every "
                   "rank gets the mean, as force-balanced benchmarks (Megatron --moe-router-force-load-balancing) "
                   "run");
}

void apply_moe_dispatcher_flags(const MoeDispatcherFlags& flags, Strategy& strategy) {
  if (const auto type = parse_moe_dispatcher(flags.type)) strategy.moe_dispatcher = *type;
  if (flags.sms > 0) strategy.moe_dispatcher_sms = flags.sms;
}

void apply_moe_routing_flags(const MoeDispatcherFlags& flags, TimeOptions& options) {
  options.moe_dropless_imbalance = flags.dropless_imbalance;
}

}  // namespace meshplan
