#include "strategy/rollout_engine.hpp"

#include <doctest/doctest.h>

namespace meshplan {

TEST_CASE("rollout engines by verl's rollout.name, and back") {
  for (const RolloutEngine engine : {RolloutEngine::vllm, RolloutEngine::sglang, RolloutEngine::trtllm}) {
    CHECK(parse_rollout_engine(rollout_engine_name(engine)) == engine);
  }
  CHECK(rollout_engine_name(RolloutEngine::trtllm) == "trtllm");
  CHECK_FALSE(parse_rollout_engine("hf").has_value());  // verl < 0.6's HF rollout: not costed
  CHECK_FALSE(parse_rollout_engine("sglang_async").has_value());
}

}  // namespace meshplan
