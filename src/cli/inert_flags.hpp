#pragma once
// Flags that change nothing for the configuration they are given with: each with the condition
// under which it acts (the Megatron or FSDP backend, a recompute mode, a MoE or vision model, verl's
// dynamic batching). A flag given outside its condition is refused, naming the condition, never
// silently ignored.
#include <optional>
#include <vector>

#include "core/result.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace CLI {
class App;
}

namespace meshplan {

struct InertFlagRule {
  const char* flag;
  const char* applies;  ///< "with the FSDP backend (--fsdp)": completes "<flag> acts only ..."
  bool (*acts)(const Strategy&, const ModelSpec&, const Workload&);
};

const std::vector<InertFlagRule>& inert_flag_rules();

/// The Error for the first flag of inert_flag_rules() given on `command` that does nothing for
/// `strategy` and `workload` on `model`; nullopt when every given one acts.
std::optional<Error> inert_flag(const CLI::App& command, const Strategy& strategy, const ModelSpec& model,
                                const Workload& workload);

}  // namespace meshplan
