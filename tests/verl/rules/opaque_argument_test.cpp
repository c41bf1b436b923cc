// An argument whose key is not known statically (an array filled in a `case` arm) may set any
// key: a rule that reads a key the known arguments leave at its default is skipped, not decided.
#include <doctest/doctest.h>

#include "verl/check_support.hpp"

namespace meshplan {
namespace {

CheckReport check_script(const std::string& script) {
  auto report = check_launch({InputText{"run.sh", script}}, CheckOptions{});
  REQUIRE(report.ok());
  return report.value();
}

// train 128 < the default actor.ppo_mini_batch_size 256: validate_config's ValueError, unless
// some argument sets the mini batch.
const std::string kLaunch =
    "python3 -m verl.trainer.main_ppo data.train_batch_size=128 actor_rollout_ref.rollout.name=vllm "
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 "
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 "
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1";

}  // namespace

TEST_CASE("an argument not known statically leaves the defaults it may override undecided") {
  const CheckReport known = check_script(kLaunch + "\n");
  CHECK(test::findings_of(known, "batch.mini-le-train").size() == 1);
  CHECK(test::findings_of(known, "batch.mini-le-train")[0].severity == Severity::error);

  // ACTOR holds, for DEVICE=gpu, whatever $GPU_ARGS holds: not known statically.
  const CheckReport opaque = check_script("ACTOR=()\ncase \"$DEVICE\" in\n  gpu) ACTOR+=($GPU_ARGS) ;;\nesac\n" + kLaunch +
                                          " \"${ACTOR[@]}\"\n");
  CHECK(test::findings_of(opaque, "batch.mini-le-train").empty());
  // One info names the argument and every rule it leaves undecided.
  bool named = false;
  for (const Finding& f : test::findings_of(opaque, "launch.not-checked")) {
    named = named || (f.message.find("the argument '${ACTOR[@]}' at line 5 (not known statically)") != std::string::npos &&
                      f.message.find("batch.mini-le-train") != std::string::npos);
  }
  CHECK(named);
  CHECK(opaque.errors == 0);
  // A key the known arguments set is still checked: train 128 with rollout.n 0 is an error.
  const CheckReport set = check_script("ACTOR=()\ncase \"$DEVICE\" in\n  gpu) ACTOR+=($GPU_ARGS) ;;\nesac\n" + kLaunch +
                                       " actor_rollout_ref.actor.ppo_mini_batch_size=64 actor_rollout_ref.rollout.n=0"
                                       " \"${ACTOR[@]}\"\n");
  CHECK(test::findings_of(set, "batch.sizes-positive").size() == 1);
  CHECK(test::findings_of(set, "batch.sizes-positive")[0].severity == Severity::error);
}

TEST_CASE("an array set to known overrides in each branch of an if leaves only their keys in doubt") {
  // verl 1dda039b's uv-integrated examples: RAY=(...py_executable=null), another value in an if.
  const std::string branches =
      "RAY=(ray_kwargs.ray_init.runtime_env.py_executable=null)\nif [ \"$UV\" = 1 ]; then\n"
      "  RAY=(ray_kwargs.ray_init.runtime_env.py_executable=uv)\nfi\n";
  const CheckReport report = check_script(branches + kLaunch + " \"${RAY[@]}\"\n");
  CHECK(test::findings_of(report, "batch.mini-le-train").size() == 1);  // still decided: RAY cannot set it
  CHECK(test::findings_of(report, "batch.mini-le-train")[0].severity == Severity::error);
  // The same array that may also set the mini batch leaves that rule undecided.
  const std::string mini =
      "RAY=(ray_kwargs.ray_init.runtime_env.py_executable=null)\nif [ \"$UV\" = 1 ]; then\n"
      "  RAY=(actor_rollout_ref.actor.ppo_mini_batch_size=64)\nfi\n";
  const auto undecided = test::findings_of(check_script(mini + kLaunch + " \"${RAY[@]}\"\n"), "batch.mini-le-train");
  REQUIRE(undecided.size() == 1);
  CHECK(undecided[0].severity == Severity::info);
  CHECK(undecided[0].message.find("the argument '${RAY[@]}' at line 5, not known statically, may set it") !=
        std::string::npos);
}

}  // namespace meshplan
