#pragma once
// The rollout engines verl runs (actor_rollout_ref.rollout.name) and their names.
#include <optional>
#include <string_view>

#include "strategy/strategy.hpp"

namespace meshplan {

/// verl's rollout.name for `engine`: "vllm", "sglang", "trtllm".
std::string_view rollout_engine_name(RolloutEngine engine);

/// The engine verl's rollout.name names; nullopt for a name meshplan does not cost.
std::optional<RolloutEngine> parse_rollout_engine(std::string_view name);

}  // namespace meshplan
