#pragma once
// Megatron-core's names for the MoE token dispatchers (transformer_config.py
// moe_token_dispatcher_type; Megatron-LM --moe-token-dispatcher-type).
#include <optional>
#include <string_view>

#include "strategy/strategy.hpp"

namespace meshplan {

std::string_view moe_dispatcher_name(MoeDispatcher dispatcher);
/// "alltoall", "flex" or "allgather"; any other name gives nullopt.
std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view name);

}  // namespace meshplan
