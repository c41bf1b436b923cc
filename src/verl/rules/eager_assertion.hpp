#pragma once
// verl before 0.5.0 refuses CUDA graphs in a rollout that frees its engine's cache between steps:
// "disable CUDA graph (enforce_eager = False) if free cache engine" (an assert when the workers build
// the rollout). The rule rollout.cuda-graphs-free-cache reports it; check's eager-rollout finding
// keeps the cache when it offers graphs on those verls.
#include <string_view>

#include "verl/schema/verl_versions.hpp"

namespace meshplan {

/// Whether verl `version`'s rollout `rollout_name` in `rollout_mode` (sync, async) asserts
/// enforce_eager=True while free_cache_engine=True.
bool asserts_eager_with_free_cache(const VerlVersion& version, std::string_view rollout_name,
                                   std::string_view rollout_mode);

}  // namespace meshplan
