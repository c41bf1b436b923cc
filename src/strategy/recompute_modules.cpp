#include "strategy/recompute_modules.hpp"

#include <array>
#include <utility>

namespace meshplan {
namespace {

// Megatron-core's names (transformer_config.py recompute_modules docstring), in its order.
constexpr std::array<std::pair<std::string_view, RecomputeModule>, 7> kModules{{
    {"core_attn", kRecomputeCoreAttn},
    {"moe_act", kRecomputeMoeAct},
    {"layernorm", kRecomputeLayernorm},
    {"mla_up_proj", kRecomputeMlaUpProj},
    {"mlp", kRecomputeMlp},
    {"moe", kRecomputeMoe},
    {"shared_experts", kRecomputeSharedExperts},
}};

std::string join(std::uint16_t modules) {
  std::string out;
  for (const std::string& name : recompute_module_list(modules)) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

std::optional<RecomputeModule> recompute_module_of(std::string_view name) {
  for (const auto& [known, flag] : kModules) {
    if (known == name) return flag;
  }
  return std::nullopt;
}

std::vector<std::string> recompute_module_list(std::uint16_t modules) {
  std::vector<std::string> names;
  for (const auto& [name, flag] : kModules) {
    if ((modules & flag) != 0) names.emplace_back(name);
  }
  return names;
}

std::string recompute_module_names(std::uint16_t modules) { return join(modules); }

std::string known_recompute_module_names() { return join(0xFFFF); }

}  // namespace meshplan
