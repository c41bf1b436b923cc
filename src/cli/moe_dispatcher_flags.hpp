#pragma once
// `--moe-token-dispatcher-type`, `--moe-flex-dispatcher-num-sms` and `--moe-dropless-imbalance`
// (estimate and plan): how a MoE layer's tokens reach their experts (strategy.hpp MoeDispatcher),
// with Megatron-core's names, and how evenly.
#include <optional>
#include <string>

#include "cost/time/time_estimate.hpp"
#include "strategy/strategy.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace meshplan {

struct MoeDispatcherFlags {
  std::string type;  ///< "" = not given
  int sms = 0;       ///< 0 = not given
  bool dropless_imbalance = false;  ///< cost a trained router's load imbalance (TimeOptions)
};

void add_moe_dispatcher_flags(CLI::App& command, MoeDispatcherFlags& flags);

/// The flags into `strategy`; what they leave unsaid keeps the strategy's value.
void apply_moe_dispatcher_flags(const MoeDispatcherFlags& flags, Strategy& strategy);

/// The routing flag into the time model's options.
void apply_moe_routing_flags(const MoeDispatcherFlags& flags, TimeOptions& options);

}  // namespace meshplan
