// A GB200/GB300 NVL72 cluster given by its compute trays (16x4xGB200-NVL72, as Slurm, Ray and
// verl's trainer.n_gpus_per_node=4 count them) is one NVLink domain per rack: estimate, plan and
// the emitted launches read it so (hardware/cluster_spec.hpp make_node_group).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

const std::vector<std::string> kPretrain = {"estimate", "--model", "qwen3-30b-a3b", "--workload", "pretrain",
                                            "--ep", "16", "--global-batch", "512", "--seq-len", "4096", "--json"};

nlohmann::json estimate_json(const std::string& cluster, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = kPretrain;
  args.insert(args.end(), {"--cluster", cluster});
  args.insert(args.end(), extra.begin(), extra.end());
  const auto run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  return nlohmann::json::parse(run.out);
}

}  // namespace

TEST_CASE("estimate: 16 trays of 4 GB200 are the 64-GPU NVLink domain they share, and it says so") {
  const auto trays = estimate_json("16x4xGB200-NVL72");
  const auto domain = estimate_json("1x64xGB200-NVL72");
  // EP 16 stays on NVLink either way: the same step.
  CHECK(trays["time"]["step_seconds"].get<double>() == test::approx(domain["time"]["step_seconds"].get<double>()));
  bool noted = false;
  for (const auto& note : trays["defaults_chosen"]) {
    noted = noted || note.get<std::string>().find("16 hosts of 4 GB200-NVL72 GPUs read as 1x64xGB200-NVL72") !=
                         std::string::npos;
  }
  CHECK(noted);
}

TEST_CASE("estimate: engines on trays of the trainer's rack take the weights over NVLink") {
  // Qwen3-30B-A3B, 12 trays train and 4 trays generate, one step off, pipelined broadcast: the
  // 61.06 GB of bf16 weights at NVLink's 900 GB/s x 0.8 = 720 GB/s is 0.0848 s; over the 400 Gb/s
  // NICs (x 0.933) it would be 1.31 s.
  const auto run = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "16x4xGB200-NVL72", "--workload",
                              "rl", "--rollout-gpus", "16", "--off-policy-steps", "1", "--weight-broadcast",
                              "pipelined", "--ep", "8", "--rollout-tp", "4", "--global-batch", "64", "--mini-batch",
                              "16", "--rollout-n", "8", "--prompt-len", "512", "--response-len", "2048", "--json",
                              "--explain"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto json = nlohmann::json::parse(run.out);
  double sync = 0;
  for (const auto& term : json["explain"]) {
    if (term["name"] == "time/gen/weight_sync") sync = term["value"].get<double>();
  }
  CHECK(sync == test::approx(61.06e9 / 720e9).epsilon(0.01));
  // Engines come in whole hosts on a rack (the same GPUs of every host only where hosts are the
  // model's nodes): 6 GPUs of 4-GPU trays is refused, naming the host size.
  const auto odd = test::run({"estimate", "--model", "qwen3-30b-a3b", "--cluster", "16x4xGB200-NVL72", "--workload",
                              "rl", "--rollout-gpus", "6", "--ep", "8", "--global-batch", "64"});
  CHECK(odd.exit_code == 2);
  CHECK(odd.err.find("6 is neither whole hosts nor the same GPUs of every host") != std::string::npos);
  CHECK(odd.err.find("4 per host") != std::string::npos);
}

TEST_CASE("plan: a rack given by its trays is searched as one domain and emitted as its trays") {
  const auto run = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "16x4xGB200-NVL72", "--workload",
                              "rl", "--global-batch", "64", "--mini-batch", "16", "--rollout-n", "8", "--prompt-len",
                              "512", "--response-len", "2048", "--emit", "verl"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(run.err.find("meshplan: cluster: 16 hosts of 4 GB200-NVL72 GPUs read as 1x64xGB200-NVL72") !=
        std::string::npos);
  // Ray's nodes are the trays: verl gets 16 nodes of 4 GPUs, not one of 64.
  CHECK(run.out.find("trainer.nnodes=16") != std::string::npos);
  CHECK(run.out.find("trainer.n_gpus_per_node=4") != std::string::npos);
  // The same when the rack is written as its domain.
  const auto domain = test::run({"plan", "--model", "qwen3-30b-a3b", "--cluster", "1x64xGB200-NVL72", "--workload",
                                 "rl", "--global-batch", "64", "--mini-batch", "16", "--rollout-n", "8", "--prompt-len",
                                 "512", "--response-len", "2048", "--emit", "verl"});
  REQUIRE_MESSAGE(domain.exit_code == 0, domain.err);
  CHECK(domain.out.find("trainer.nnodes=16") != std::string::npos);
  CHECK(domain.err.find("cluster: ") == std::string::npos);
}

}  // namespace meshplan
