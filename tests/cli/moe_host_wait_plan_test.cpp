// plan's explanation names the MoE layers' host wait (time.breakdown.moe_host_wait) where it is what
// a runner-up loses on: smaller micro-batches and context parallelism split the tokens of a MoE
// layer, not the host's launches (Megatron-core moe/README.md "CPU Overhead Bottleneck": "increase
// micro-batch size").
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "approx.hpp"
#include "core/std_regex.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

// Qwen3-30B-A3B pretraining on two H100 nodes (Megatron-Bridge 26.04's layout: EP 16, 8 local
// experts a GPU).
const std::vector<std::string> kJob = {"--model", "qwen3-30b-a3b", "--cluster", "2x8xH100", "--workload", "pretrain",
                                       "--global-batch", "1024", "--seq-len", "4096"};

// plan searches that layout's family, PP 1 (with pipelining, PP 2 x VPP 4 over EP 8 without the
// CPU optimizer is 0.4 s a step faster), at CP 1: CP 2 at micro-batch 4 and CP 4 at micro-batch 8
// put the same 8192 tokens a layer on a GPU and tie with it to the last digit, which one ranks first
// is rounding.
const std::vector<std::string> kWithoutPipelining = {"--fix", "pp=1,cp=1"};

double host_wait_seconds(int micro_batch) {
  std::vector<std::string> args = {"estimate"};
  args.insert(args.end(), kJob.begin(), kJob.end());
  args.insert(args.end(), {"--ep", "16", "--micro-batch", std::to_string(micro_batch), "--offload", "optimizer",
                           "--moe-a2a-overlap", "--json"});
  const auto run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  return nlohmann::json::parse(run.out)["time"]["breakdown"]["moe_host_wait"].get<double>();
}

}  // namespace

TEST_CASE("plan: a runner-up that waits longer on the host's MoE launches is explained by it") {
  std::vector<std::string> args = {"plan"};
  args.insert(args.end(), kJob.begin(), kJob.end());
  args.insert(args.end(), kWithoutPipelining.begin(), kWithoutPipelining.end());
  args.push_back("--explain");
  const auto run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  // The winner: TP 1, PP 1, EP 16, DP 16, micro-batch 2, optimizer offloaded, all-to-all overlapped.
  REQUIRE(std::regex_search(run.out, std::regex(R"(\n1 +megatron +1 +1 +1 +1 +16 +16 +2 +none +optimizer )")));
  // Micro-batch 1 holds 4096 tokens a layer, whose GPU work (about 2.3 ms a MoE layer forward)
  // is shorter than the host's 3 ms + 0.2 ms x 8 local experts: twice the micro-batches, each
  // host-bound. The seconds are the two layouts' own moe_host_wait (27.52 s - 6.55 s).
  const double lost = host_wait_seconds(1) - host_wait_seconds(2);
  CHECK(lost == test::approx(20.97).epsilon(0.01));
  CHECK(run.out.find("mb=2 rather than mb=1: more, smaller micro-batches each wait on the host's MoE launches, +81% "
                     "step time (+" + fmt::format("{:.2f}", lost) + " s of moe_host_wait)") != std::string::npos);
  // At micro-batch 2, CP 2 is micro-batch 1's 4096 tokens a layer again.
  std::vector<std::string> at_mb2 = {"plan"};
  at_mb2.insert(at_mb2.end(), kJob.begin(), kJob.end());
  at_mb2.insert(at_mb2.end(), {"--fix", "pp=1,mb=2", "--explain"});
  const auto cp = test::run(at_mb2);
  REQUIRE_MESSAGE(cp.exit_code == 0, cp.err);
  CHECK(cp.out.find("CP=1 rather than CP=2: context parallelism splits each micro-batch's tokens, not the host's "
                    "MoE launches") != std::string::npos);
}

}  // namespace meshplan
