// verl's setup.py pins its rollout engines (VLLM_REQUIRES, SGLANG_REQUIRES); whether a pin admits a
// release newer than the newest meshplan read decides how sure an unknown engine argument is.
#include <doctest/doctest.h>

#include "verl/schema/engine_requirement.hpp"
#include "verl/schema/verl_versions.hpp"

namespace meshplan {

TEST_CASE("release numbers: v-prefixed, post releases, and main commits that are none") {
  CHECK(release_number("v0.12.0") == std::vector<int>{0, 12, 0});
  CHECK(release_number("0.4.6.post5") == std::vector<int>{0, 4, 6, 5});
  CHECK_FALSE(release_number("main@001067ff"));
  CHECK_FALSE(release_number(""));
}

TEST_CASE("a pin admits newer releases when it has no upper bound or a newer one") {
  const std::vector<int> sglang_read = {0, 5, 6};   // the SGLang table ends at v0.5.6 (+ a main after it)
  const std::vector<int> vllm_read = {0, 12, 0};    // the vLLM table ends at v0.12.0
  CHECK(admits_newer("==0.5.8", sglang_read));      // verl 0.8.0 .. main@1dda039b
  CHECK_FALSE(admits_newer("==0.5.6", sglang_read));  // verl 0.7.x
  CHECK_FALSE(admits_newer("==0.4.6.post5", sglang_read));
  CHECK(admits_newer(">=0.18.0", vllm_read));       // verl 0.9.0 on: no upper bound
  CHECK_FALSE(admits_newer(">=0.8.5,<=0.12.0", vllm_read));
  CHECK_FALSE(admits_newer(">=0.8.5,<=0.11.0", vllm_read));
  CHECK_FALSE(admits_newer("<=0.8.5", vllm_read));
  CHECK(admits_newer("<0.13.1", vllm_read));
}

TEST_CASE("the newest release a pin admits: what pip installs, against a feature's first release") {
  const std::vector<int> since = {0, 14, 0};  // vLLM's async scheduling by default
  CHECK(newest_admitted_at_least(">=0.18.0", since));            // verl 0.9.0 on
  CHECK_FALSE(newest_admitted_at_least(">=0.8.5,<=0.12.0", since));  // verl 0.7.0 .. 0.8.0
  CHECK(newest_admitted_at_least("<=0.14.0", since));
  CHECK_FALSE(newest_admitted_at_least("<0.14.0", since));
  CHECK(newest_admitted_at_least("<0.14.1", since));
  CHECK(newest_admitted_at_least("==0.17.1", since));
  CHECK_FALSE(newest_admitted_at_least("==0.13.0,<=0.20.0", since));  // the tighter bound holds
  CHECK(newest_admitted_at_least("", since));                     // no requirement: the newest
  CHECK(newest_admitted_at_least("<=latest", since));             // not understood: admitted
}

TEST_CASE("the oldest release a pin admits: after the last release that reads a removed variable") {
  const std::vector<int> until = {0, 15, 0};  // VLLM_ATTENTION_BACKEND: gone from vLLM's envs.py by 0.15
  CHECK(oldest_admitted_after(">=0.18.0", until));                 // verl 0.9.0 on
  CHECK_FALSE(oldest_admitted_after(">=0.8.5,<=0.12.0", until));   // verl 0.7.0 .. 0.8.0
  CHECK_FALSE(oldest_admitted_after(">=0.15.0", until));           // 0.15.0 itself may read it
  CHECK(oldest_admitted_after(">0.15.0", until));
  CHECK(oldest_admitted_after("==0.15.1", until));
  CHECK_FALSE(oldest_admitted_after("<=0.20.0", until));           // no lower bound
  CHECK_FALSE(oldest_admitted_after("", until));
  CHECK_FALSE(oldest_admitted_after(">=latest", until));           // not understood
}

TEST_CASE("the embedded verl versions carry their engine pins (setup.py)") {
  const auto newest = find_verl_version("main@1dda039b");
  REQUIRE(newest);
  CHECK(newest->engines.at("sglang") == "==0.5.8");
  CHECK(newest->engines.at("vllm") == ">=0.18.0");
  const auto old = find_verl_version("0.6.1");
  REQUIRE(old);
  CHECK(old->engines.at("vllm") == ">=0.8.5,<=0.11.0");
}

}  // namespace meshplan
