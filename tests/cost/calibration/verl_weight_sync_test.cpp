// The trainer-to-engine weight update, measured apart by the frameworks, against the rates the
// model takes from those measurements (src/cost/time/weight_sync_rates.hpp; docs/accuracy.md "The
// weight update, measured apart"). No constant here is fit on step times.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "approx.hpp"
#include "cost/time/weight_sync_rates.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "test_support.hpp"

namespace meshplan {
namespace {

double model_bytes(const char* preset) {
  const auto config = find_model_preset_config(preset);
  REQUIRE_MESSAGE(config.has_value(), preset);
  const auto model = parse_model_config(*config, preset);
  REQUIRE(model.ok());
  return static_cast<double>(model->total_params) * 2.0;  // bf16, every parameter once
}

struct MeasuredUpdate {
  const char* preset;
  double seconds;
};

double median_rate(const std::vector<MeasuredUpdate>& rows) {
  std::vector<double> rates;
  for (const MeasuredUpdate& row : rows) rates.push_back(model_bytes(row.preset) / row.seconds);
  std::sort(rates.begin(), rates.end());
  const std::size_t n = rates.size();
  return n % 2 == 1 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2.0;
}

TEST_CASE("verl's colocated weight-update rate is the median of verl's own measured updates") {
  // Colocated verl, vLLM engines, models with a preset (weight_sync_rates.hpp names each source):
  // ISEEKYAN/verl_megatron_practice at dfd811adc (timing_s/reshard, mid-2025), verl PR #7348
  // (timing_s/update_weights, 2026-08), verl PR #4280 / issue #5311 (2026-01/02).
  const std::vector<MeasuredUpdate> verl = {
      {"qwen2.5-7b-instruct", 1.0},   {"qwen2.5-7b-instruct", 1.4},   {"qwen2.5-7b-instruct", 3.2},
      {"qwen2.5-7b-instruct", 4.4},   {"qwen2.5-7b-instruct", 7.6},   {"qwen2.5-7b-instruct", 8.6},
      {"qwen2.5-32b", 2.614},         {"qwen2.5-32b", 6.225},         {"qwen3-30b-a3b", 13.0},
      {"qwen3-30b-a3b", 5.5},         {"qwen3-30b-a3b", 8.5},         {"qwen3-30b-a3b", 4.5},
      {"qwen3-30b-a3b", 12.0},        {"qwen3-30b-a3b", 7.8},         {"qwen3-235b-a22b", 25.0},
      {"deepseek-v3", 120.0},         {"deepseek-v3", 80.0},
  };
  // The ninth of 17 rates: Qwen2.5-32B at TP 8 PP 2, 65.53 GB / 6.225 s = 10.53 GB/s.
  CHECK(median_rate(verl) == test::approx(kVerlColocatedSyncBps).epsilon(0.002));
  CHECK(model_bytes("qwen2.5-32b") / 6.225 == test::approx(10.53e9).epsilon(0.001));
  // The spread the one rate hides: 1.77 GB/s (Qwen2.5-7B, Megatron TP 2) to 25.1 GB/s (Qwen2.5-32B, FSDP).
  CHECK(model_bytes("qwen2.5-7b-instruct") / 8.6 == test::approx(1.77e9).epsilon(0.005));
  CHECK(model_bytes("qwen2.5-32b") / 2.614 == test::approx(25.07e9).epsilon(0.005));
}

TEST_CASE("NeMo RL's colocated refit rate is the median of its measured refits") {
  // DeepSeek-V3: PR #638 ~35 s (55 s less ~20 s of offload), the refit blog 47.2 s, PR #1267's review
  // ~35 s; Qwen3-30B-A3B on 16 GB200: PR #3461 1.895 s.
  const std::vector<MeasuredUpdate> nemo_rl = {
      {"deepseek-v3", 35.0}, {"deepseek-v3", 47.2}, {"deepseek-v3", 35.0}, {"qwen3-30b-a3b", 1.895}};
  // Rates 28.4, 32.2, 38.3, 38.3 GB/s: the median (32.2 + 38.3) / 2 = 35.3 GB/s.
  CHECK(median_rate(nemo_rl) == test::approx(kNemoRlColocatedRefitBps).epsilon(0.002));
}

double predicted_weight_sync_seconds(const std::vector<std::string>& layout) {
  std::vector<std::string> args = {"estimate", "--model", "deepseek-v3", "--workload", "rl",
                                   "--first-stage-layers", "3", "--last-stage-layers", "2", "--rollout-tp", "16",
                                   "--global-batch", "128", "--mini-batch", "128", "--rollout-n", "8",
                                   "--prompt-len", "2048", "--response-len", "8192", "--json", "--explain"};
  args.insert(args.end(), layout.begin(), layout.end());
  const test::CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code != 2, run.err);
  const nlohmann::json json = nlohmann::json::parse(run.out);
  for (const auto& term : json["explain"]) {
    if (term["name"] == "time/gen/weight_sync") return term["value"].get<double>();
  }
  FAIL("no time/gen/weight_sync term");
  return 0;
}

TEST_CASE("verl's DeepSeek-V3 weight transfer (verl #5311) and NeMo RL's, through estimate") {
  // verl-project/verl issue #5311 (2026-02-13): DeepSeek-V3.1-Terminus, 120 s on 16 x 8 GPUs at
  // TP 8, PP 16, EP 8 and 80 s on 32 x 8 at PP 16, EP 16, "most time ... on the mbridge weights
  // all_gather". Both are among the rate's own measurements, so this checks the plumbing: the
  // colocated update is bound by the rate, 1342.05 GB / 10.53 GB/s = 127.4 s (H100 and rollout TP
  // 16 are taken; the shard's 84 GB over a 46.7 GB/s NIC path is 1.8 s).
  const double tp8 = predicted_weight_sync_seconds({"--cluster", "16x8xH100", "--tp", "8", "--pp", "16", "--ep", "8",
                                                    "--etp", "1"});
  const double ep16 = predicted_weight_sync_seconds({"--cluster", "32x8xH100", "--pp", "16", "--ep", "16"});
  CHECK(tp8 == test::approx(127.4).epsilon(0.002));
  CHECK(ep16 == test::approx(127.4).epsilon(0.002));
  // The rate cannot see the layout: +6% against the TP 8 run, +59% against the EP 16 one.
  CHECK(tp8 / 120.0 - 1.0 == test::approx(0.062).epsilon(0.02));
  CHECK(ep16 / 80.0 - 1.0 == test::approx(0.593).epsilon(0.01));
  // NeMo RL's refit of the same model at its own rate: 1342.05 GB / 35.3 GB/s = 38.0 s.
  const double nemo = predicted_weight_sync_seconds({"--cluster", "32x8xH100", "--pp", "16", "--ep", "16",
                                                     "--rl-framework", "nemo-rl"});
  CHECK(nemo == test::approx(38.0).epsilon(0.003));
}

// Updates measured apart that are none of the rates' own rows: models with many small experts,
// whose engines load each expert tensor on its own.
//   NVIDIA-NeMo/RL PR #449 (2025-05): a 30B MoE (Qwen3-30B-A3B by the PR's context), DTensor -> vLLM
//     on 128 GPUs, 50 s after the fix (430 s before).
//   verl-project/verl PR #2418 (2025-07): Moonlight-16B-A3B, Megatron -> SGLang on 8 H20, 18 s with
//     512 MB buckets (175 s per tensor before).
//   THUDM/slime issue #132 (2025-08): Qwen3-30B-A3B, Megatron -> SGLang EP-MoE on 8 H200 in buckets
//     (verl's path of the time), 98 s; about 8 s with SGLang's expert-loading patch (sglang PR #8751).
TEST_CASE("colocated updates of small-expert MoE models measured slower than their framework's rate") {
  const double nemo_30b = model_bytes("qwen3-30b-a3b") / kNemoRlColocatedRefitBps;  // 61.06 GB: 1.73 s
  const double verl_moonlight = model_bytes("moonlight-16b-a3b-instruct") / kVerlColocatedSyncBps;  // 3.03 s
  const double verl_30b = model_bytes("qwen3-30b-a3b") / kVerlColocatedSyncBps;                    // 5.80 s
  CHECK(nemo_30b == test::approx(1.73).epsilon(0.005));
  CHECK(verl_moonlight == test::approx(3.03).epsilon(0.005));
  CHECK(verl_30b == test::approx(5.80).epsilon(0.005));
  CHECK(50.0 / nemo_30b > 25.0);       // NeMo RL PR #449, an early release
  CHECK(18.0 / verl_moonlight > 5.0);  // verl PR #2418, SGLang
  CHECK(98.0 / verl_30b > 15.0);       // slime #132 before SGLang's patch
  CHECK(8.0 / verl_30b == test::approx(1.38).epsilon(0.01));  // and after it
}

}  // namespace
}  // namespace meshplan
