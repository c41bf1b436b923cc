#pragma once
// `--moe-token-dispatcher-type` and `--moe-flex-dispatcher-num-sms` (estimate and plan): how a MoE
// layer's tokens reach their experts (strategy.hpp MoeDispatcher), with Megatron-core's names.
#include <optional>
#include <string>

#include "strategy/strategy.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace meshplan {

struct MoeDispatcherFlags {
  std::string type;  ///< "" = not given
  int sms = 0;       ///< 0 = not given
};

void add_moe_dispatcher_flags(CLI::App& command, MoeDispatcherFlags& flags);

/// The flags into `strategy`; what they leave unsaid keeps the strategy's value.
void apply_moe_dispatcher_flags(const MoeDispatcherFlags& flags, Strategy& strategy);

}  // namespace meshplan
