// The RL flags (one option group, "RL (verl: ...)" in --help) describe a verl step: in pre-training
// or SFT they would change nothing, so estimate and plan refuse them (exit 2, naming the flag and
// the workload) instead of silently planning without them; --seq-len, which an RL step takes from
// --prompt-len + --response-len, is refused with --workload rl.
#include <doctest/doctest.h>

#include "test_support.hpp"

namespace meshplan {
namespace {

TEST_CASE("RL flags without --workload rl, and --seq-len with it, exit 2 naming the flag") {
  const std::vector<std::string> estimate = {"estimate", "--model", "qwen2.5-0.5b", "--cluster", "1x8xH100"};
  const std::vector<std::string> plan = {"plan", "--model", "qwen2.5-0.5b", "--cluster", "1x8xH100", "--top", "1"};
  for (const auto& command : {estimate, plan}) {
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"--mean-response-len", "500"}, {"--rollout-n", "8"}, {"--rollout-tp", "2"},
          {"--gpu-memory-utilization", "0.7"}, {"--rollout-gpus", "8"}}) {
      std::vector<std::string> args = command;
      args.insert(args.end(), extra.begin(), extra.end());
      args.insert(args.end(), {"--workload", "sft"});
      const test::CliRun run = test::run(args);
      CHECK_MESSAGE(run.exit_code == 2, command.front(), " ", extra.front());
      CHECK(run.err.find(extra.front() + ": applies with --workload rl only (the workload is sft)") !=
            std::string::npos);
    }
    std::vector<std::string> rl = command;
    rl.insert(rl.end(), {"--workload", "rl", "--seq-len", "9000"});
    const test::CliRun seq_len = test::run(rl);
    CHECK(seq_len.exit_code == 2);
    CHECK(seq_len.err.find("--seq-len: does not apply with --workload rl") != std::string::npos);
    // The same flags with --workload rl are taken.
    std::vector<std::string> taken = command;
    taken.insert(taken.end(), {"--workload", "rl", "--rollout-n", "8", "--mean-response-len", "300"});
    const test::CliRun run = test::run(taken);
    CHECK_MESSAGE(run.exit_code != 2, run.err);
  }
  const test::CliRun help = test::run({"estimate", "--help"});
  CHECK(help.out.find("RL (verl: rollout, batches, lengths):") != std::string::npos);
}

}  // namespace
}  // namespace meshplan
