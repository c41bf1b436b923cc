#include "strategy/rollout_engine.hpp"

#include <array>
#include <utility>

namespace meshplan {
namespace {

// verl/workers/rollout/base.py _ROLLOUT_REGISTRY (trtllm from main@b178a3cd).
constexpr std::array<std::pair<RolloutEngine, std::string_view>, 3> kNames = {
    {{RolloutEngine::vllm, "vllm"}, {RolloutEngine::sglang, "sglang"}, {RolloutEngine::trtllm, "trtllm"}}};

}  // namespace

std::string_view rollout_engine_name(RolloutEngine engine) {
  for (const auto& [value, name] : kNames) {
    if (value == engine) return name;
  }
  return "vllm";
}

std::optional<RolloutEngine> parse_rollout_engine(std::string_view name) {
  for (const auto& [value, text] : kNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

}  // namespace meshplan
