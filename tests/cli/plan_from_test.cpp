// `plan --from SCRIPT` (issue 17): a verl launch read through check's parser becomes the
// planner's inputs and its own layout the baseline. Over every verl example launch whose model is
// a preset and whose GPU is named in its path or text (../shared/verl/examples_overrides.jsonl,
// verl b178a3cd): candidates are found, the launch is inside the search space, and the best plan is
// predicted at least as fast as the launch.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "approx.hpp"
#include "cli/plan_from.hpp"
#include "core/units.hpp"
#include "hardware/gpu_catalog.hpp"
#include "search/baseline.hpp"
#include "search/real_cost_model.hpp"
#include "search/rule_binding.hpp"
#include "search/search.hpp"
#include "test_support.hpp"
#include "verl/check.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/verl_example_scripts.hpp"

namespace meshplan {
namespace {

struct Planned {
  SearchResult result;
  Baseline baseline;
  std::vector<std::string> outside;
  std::vector<PhaseBreakdown> baseline_memory;
};

// What `plan --from` does after reading the launch (cli/plan_command.cpp: run_search + baseline).
Planned plan_launch(const PlanLaunch& launch) {
  Result<SearchSpace> space = build_search_space(launch.model, launch.cluster, launch.workload, SpaceOptions{});
  REQUIRE(space.ok());
  include_in_space(*space, launch.strategy, launch.workload, launch.model.num_layers);
  space->moe_dispatcher = launch.strategy.moe_dispatcher;  // a setting of the job, kept (plan_command.cpp)
  space->moe_dispatcher_sms = launch.strategy.moe_dispatcher_sms;
  const CostModel cost = real_cost_model(launch.model, launch.cluster, MemoryOptions{}, TimeOptions{});
  const RuleCheck check = validate_rule_check(launch.model, launch.cluster);
  Planned planned;
  planned.result = search_plans(launch.model, *space, launch.workload, cost, check, SearchOptions{});
  planned.baseline = evaluate_baseline(launch.strategy, launch.workload, cost, check, planned.result.usable_bytes);
  planned.outside = outside_space(*space, launch.strategy, launch.workload, launch.model.num_layers);
  planned.baseline_memory = cost.breakdown(launch.strategy, launch.workload);
  return planned;
}

// The largest memory component of the baseline's peak phase: the term to look at when the
// launch (which its authors ran) is predicted not to fit.
std::string term_at_fault(const Planned& planned) {
  const PhaseBreakdown* peak = nullptr;
  for (const PhaseBreakdown& phase : planned.baseline_memory) {
    if (!peak || phase.peak_bytes > peak->peak_bytes) peak = &phase;
  }
  if (!peak) return "?";
  std::pair<std::string, double> largest{"?", 0};
  for (const auto& component : peak->components) {
    if (component.second > largest.second) largest = component;
  }
  return peak->name + "/" + largest.first;
}

// tests/fixtures/models/<repo name, lower case> for the launch's model path (SOURCES.md there).
std::string fixture_model(const std::vector<InputText>& inputs, const VerlReadOptions& read) {
  const Result<VerlLaunch> launch = read_verl_launch(inputs, read);
  if (!launch.ok()) return "";
  std::string name = verl_to_strategy(launch->config).model_path;
  name = name.substr(name.rfind('/') + 1);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::filesystem::path dir = test::fixture("models") / name;
  return !name.empty() && std::filesystem::exists(dir / "config.json") ? dir.string() : "";
}

}  // namespace

TEST_CASE("plan --from: the GPU named in the path wins over the text, several names are an error") {
  const std::vector<GpuSpec>& catalog = builtin_gpu_catalog();
  const auto from_path = gpu_named_in("examples/tuning/70b/qwen2-70b_grpo_32_h800_fsdp_vllm.sh", "# H100", catalog);
  REQUIRE(from_path.ok());
  REQUIRE(from_path->has_value());
  CHECK((*from_path)->gpu.id == "H800-80GB");
  CHECK((*from_path)->line == 0);
  const auto from_text = gpu_named_in("run_deepseek671b_math_megatron_80gb.sh", "# 256 H100(80GB)\nNODES=32", catalog);
  REQUIRE(from_text.ok());
  REQUIRE(from_text->has_value());
  CHECK((*from_text)->gpu.id == "H100-80GB");
  CHECK((*from_text)->line == 1);
  const auto none = gpu_named_in("run.sh", "NODES=4090", catalog);  // a bare number is not a GPU
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  CHECK_FALSE(gpu_named_in("a100_vs_h100.sh", "", catalog).ok());
}

TEST_CASE("plan --from: a bare name shared by several parts says which one it took and names the others") {
  // "h20" is the 96 GB H20 (the alias); the 141 GB H20-3e has 44.5 GiB more a GPU, which decides
  // memory verdicts, so the plan names it. "h800" heads one part only; "a100" heads three.
  const std::vector<GpuSpec>& catalog = builtin_gpu_catalog();
  const auto h20 = gpu_named_in("examples/tuning/32b/qwen2_32B_grpo_8_h20_megatron_vllm.sh", "", catalog);
  REQUIRE(h20.ok());
  REQUIRE(h20->has_value());
  CHECK((*h20)->gpu.id == "H20-96GB");
  CHECK((*h20)->same_name == std::vector<std::string>{"H20-141GB"});
  const auto h800 = gpu_named_in("qwen2-70b_grpo_32_h800_fsdp_vllm.sh", "", catalog);
  CHECK((*h800)->same_name.empty());
  const auto a100 = gpu_named_in("run_a100.sh", "", catalog);
  CHECK((*a100)->gpu.id == "A100-80GB");
  CHECK((*a100)->same_name == std::vector<std::string>{"A100-40GB", "A100-80GB-PCIE"});
  // A full id heads no other part.
  CHECK((*gpu_named_in("run_h20-141gb.sh", "", catalog))->same_name.empty());

  const std::filesystem::path script = std::filesystem::temp_directory_path() / "meshplan_qwen2_7b_lora_h20.sh";
  std::filesystem::copy_file(test::fixture("verl/tuned_7b_lora_h100.sh"), script,
                             std::filesystem::copy_options::overwrite_existing);
  const test::CliRun run = test::run({"plan", "--from", script.string(), "--top", "1"});
  std::filesystem::remove(script);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("cluster: GPU type H20-96GB, named in the script's path; H20-141GB shares the same name: "
                     "--gpu H20-141GB if the launch ran there") != std::string::npos);
}

TEST_CASE("plan --from over verl's example launches: never worse than what verl's authors ship") {
  const auto path = test::shared_file("verl/examples_overrides.jsonl");
  if (!path) return;
  const std::map<std::string, std::string> unrebuildable = test::unrebuildable_example_launches();
  int planned_count = 0, fitting = 0;
  std::string not_fitting;
  for (const test::ExampleLaunch& example : test::example_launches(*path)) {
    if (unrebuildable.count(example.source)) continue;
    const std::vector<InputText> inputs = {InputText{example.source, example.script}};
    Result<PlanLaunch> launch = read_plan_launch(inputs, example.options.read, PlanLaunchArguments{}, builtin_gpu_catalog());
    if (!launch.ok() && launch.error().key == "actor_rollout_ref.model.path") {
      // Not a preset: the config.json of the same Hugging Face repo among the test fixtures, if any.
      const std::string fixture = fixture_model(inputs, example.options.read);
      if (!fixture.empty()) {
        launch = read_plan_launch(inputs, example.options.read, PlanLaunchArguments{fixture, "", ""}, builtin_gpu_catalog());
      }
    }
    if (!launch.ok()) continue;  // no preset or fixture model, or no GPU named: outside this corpus
    if (launch->strategy.world_size() != launch->cluster.total_gpus()) continue;  // check reports these
    ++planned_count;
    const Planned planned = plan_launch(*launch);
    INFO(example.source);
    CHECK_MESSAGE(planned.outside.empty(), "outside the space: " << (planned.outside.empty() ? "" : planned.outside.front()));
    CHECK(planned.baseline.broken_rule.empty());
    if (planned.result.top.empty()) {
      CHECK_MESSAGE(false, "no candidate fits");
      continue;
    }
    const PlanCandidate& best = planned.result.top.front();
    if (planned.baseline.fits) {
      ++fitting;
      CHECK(best.step_seconds <= planned.baseline.candidate.step_seconds * (1 + 1e-9));
    } else {
      not_fitting += "\n  " + example.source + ": " + term_at_fault(planned) + " " +
                     std::to_string(bytes_to_gib(planned.baseline.candidate.peak_bytes)) + " GiB";
    }
    MESSAGE(example.source << ": baseline " << planned.baseline.candidate.step_seconds << " s ("
                           << std::string(planned.baseline.fits ? "fits" : "does not fit") << "), best "
                           << best.step_seconds
                           << " s");
  }
  MESSAGE(planned_count << " launches planned, " << fitting << " predicted to fit; not fitting:" << not_fitting);
  CHECK(planned_count >= 10);
}

TEST_CASE("plan --from: DeepSeek-V3 GRPO on 32x8 H800 with run_deepseek671b_math_megatron_80gb.sh") {
  const auto path = test::shared_file("verl/examples_overrides.jsonl");
  if (!path) return;
  for (const test::ExampleLaunch& example : test::example_launches(*path)) {
    if (example.source != "examples/grpo_trainer/run_deepseek671b_math_megatron_80gb.sh") continue;
    // What the script computes in shell and the record keeps unexpanded: its token budgets,
    // (2048 + 4096) x 1 and x 3, and its offloads (ACTOR_*_OFFLOAD default to ALL_OFFLOAD=True).
    VerlReadOptions read = example.options.read;
    read.set_overrides = {"actor_rollout_ref.actor.megatron.param_offload=True",
                          "actor_rollout_ref.actor.megatron.grad_offload=True",
                          "actor_rollout_ref.actor.megatron.optimizer_offload=True",
                          "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=6144",
                          "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=18432",
                          "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=18432"};
    const Result<PlanLaunch> launch =
        read_plan_launch({InputText{example.source, example.script}}, read,
                         PlanLaunchArguments{"deepseek-v3", "H800-80GB", ""}, builtin_gpu_catalog());
    REQUIRE_MESSAGE(launch.ok(), launch.error().to_string());
    // The script's layout: TP1 PP16 with a 4/1-layer first/last stage, EP16, ETP1, every offload,
    // full uniform recompute, rollout TP32, gmu 0.8, dynamic batch sizes of 1x / 3x the width.
    const Strategy& s = launch->strategy;
    CHECK(s.tp == 1);
    CHECK(s.pp == 16);
    CHECK(s.first_stage_layers == 4);
    CHECK(s.last_stage_layers == 1);
    CHECK(s.ep == 16);
    CHECK(s.etp == 1);
    CHECK(s.dp == 16);
    CHECK(offload_choice(s.offload, launch->workload.rl.ref_param_offload) == OffloadChoice::all);
    CHECK(launch->workload.rl.rollout_tp == 32);
    CHECK(launch->workload.rl.ppo_max_token_len_per_gpu == 6144);
    CHECK(launch->workload.rl.log_prob_max_token_len_per_gpu == 18432);
    CHECK(launch->cluster_text == "32x8xH800-80GB");
    const Planned planned = plan_launch(*launch);
    CHECK(planned.outside.empty());
    REQUIRE(!planned.result.top.empty());
    CHECK(planned.result.top.front().step_seconds <= planned.baseline.candidate.step_seconds * (1 + 1e-9));
    MESSAGE("baseline " << planned.baseline.candidate.step_seconds << " s, peak "
                        << bytes_to_gib(planned.baseline.candidate.peak_bytes) << " GiB ("
                        << (planned.baseline.fits ? "fits" : term_at_fault(planned)) << "); best "
                        << planned.result.top.front().step_seconds << " s");
    return;
  }
  FAIL("the DeepSeek-V3 example is not in the corpus");
}

}  // namespace meshplan

namespace meshplan {

TEST_CASE("plan --from on the command line: baseline in text and JSON, the diff applies cleanly, bad input exits 2") {
  const std::string script = test::fixture("verl/clean_grpo.sh").string();
  const test::CliRun text = test::run({"plan", "--from", script, "--gpu", "H100", "--top", "2"});
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("your launch (" + script + "): backend=fsdp") != std::string::npos);
  CHECK(text.out.find("vs yours") != std::string::npos);

  const test::CliRun with_json = test::run({"plan", "--from", script, "--gpu", "H100", "--json", "--top", "2"});
  REQUIRE(with_json.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(with_json.out);
  const nlohmann::json& baseline = out["baseline"];
  CHECK(baseline["strategy"]["micro_batch"] == 4);  // the script's ppo_micro_batch_size_per_gpu
  CHECK(baseline["strategy"]["rl"]["gpu_memory_utilization"] == 0.5);
  CHECK(baseline["outside_space"].empty());
  CHECK(baseline["fits"].is_boolean());
  CHECK(baseline["estimate"]["memory"].contains("phases"));
  CHECK(out["cluster"] == "1x8xH100-80GB");
  for (const auto& candidate : out["candidates"]) {
    CHECK(candidate["speedup_over_baseline"].get<double>() ==
          test::approx(baseline["step_seconds"].get<double>() / candidate["step_seconds"].get<double>()));
  }
  if (baseline["fits"].get<bool>()) CHECK(out["candidates"][0]["speedup_over_baseline"].get<double>() >= 1.0);

  // The diff, applied to the script as overrides, composes without a Hydra error.
  const test::CliRun diff = test::run({"plan", "--from", script, "--gpu", "H100", "--emit", "verl"});
  REQUIRE(diff.exit_code == 0);
  CHECK(diff.out.rfind("# meshplan plan --from", 0) == 0);
  CheckOptions options;
  std::istringstream lines(diff.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#' || line[0] == '~') continue;
    options.read.set_overrides.push_back(line.substr(0, line.find("  #")));
  }
  CHECK(!options.read.set_overrides.empty());
  const Result<CheckReport> report = check_launch({InputText{script, test::file_text(script)}}, options);
  REQUIRE(report.ok());
  for (const Finding& finding : report->findings) CHECK_MESSAGE(finding.rule.rfind("hydra.", 0) != 0, finding.message);

  CHECK(test::run({"plan", "--from", script}).exit_code == 2);  // no GPU named
  CHECK(test::run({"plan", "--from", "no-such-script.sh", "--gpu", "H100"}).exit_code == 2);
  CHECK(test::run({"plan", "--cluster", "1x8xH100-80GB"}).exit_code == 2);  // no --model, no --from
  CHECK(test::run({"plan", "--model", "qwen2.5-0.5b", "--cluster", "1x8xH100-80GB", "--gpu", "H100"}).exit_code == 2);
}

// A launch gives maximum lengths, not expected ones: --mean-prompt-len / --mean-response-len apply
// to the --from launch (clean_grpo.sh: max_response_length 1024, so the default expected response
// is a quarter, 256 tokens, and a mean beyond the maximum is the maximum). A flag for a value the
// launch sets (--rollout-n: actor_rollout_ref.rollout.n=4) is refused, not silently ignored.
TEST_CASE("plan --from at the expected lengths given, and the flags the launch sets refused") {
  const std::string script = test::fixture("verl/clean_grpo.sh").string();
  auto baseline_step = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"plan", "--from", script, "--gpu", "H100", "--top", "1", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::CliRun run = test::run(args);
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    return nlohmann::json::parse(run.out)["baseline"]["step_seconds"].get<double>();
  };
  const double by_default = baseline_step({});
  CHECK(baseline_step({"--mean-response-len", "256"}) == test::approx(by_default));
  const double longer = baseline_step({"--mean-response-len", "900"});
  CHECK(longer > by_default * 1.05);
  CHECK(baseline_step({"--mean-response-len", "5000"}) == test::approx(baseline_step({"--mean-response-len", "1024"})));
  CHECK(baseline_step({"--mean-response-len", "900", "--mean-prompt-len", "400"}) > longer);

  const test::CliRun n = test::run({"plan", "--from", script, "--gpu", "H100", "--rollout-n", "8"});
  CHECK(n.exit_code == 2);
  CHECK(n.err.find("--rollout-n: does not apply with --from: the launch sets it (actor_rollout_ref.rollout.n)") !=
        std::string::npos);
  CHECK(test::run({"plan", "--from", script, "--gpu", "H100", "--response-len", "2048"}).exit_code == 2);
  CHECK(test::run({"plan", "--from", script, "--gpu", "H100", "--workload", "rl"}).exit_code == 2);
}

}  // namespace meshplan

namespace meshplan {

// verl's one-step-off trainer (tests/fixtures/verl/one_step_off_grpo.sh: trainer on 2 x 6 H100,
// engines on a rollout pool of 2 x 2): check reads it whole; plan --from, which rewrites
// colocated main_ppo launches, says how to plan it instead (exit 2, never a silent colocated plan).
TEST_CASE("a one-step-off launch: check fits it on 2 x 8 H100, plan --from points to --rollout-gpus") {
  const std::string script = test::fixture("verl/one_step_off_grpo.sh").string();
  const test::CliRun check = test::run({"check", script, "--gpu", "H100", "--cluster", "2x8xH100", "--json"});
  REQUIRE_MESSAGE(check.exit_code == 0, check.err);
  const nlohmann::json report = nlohmann::json::parse(check.out);
  CHECK(report["config_name"] == "one_step_off_ppo_trainer");
  CHECK(report["errors"] == 0);
  // 12 trainer GPUs alone are not the launch's 16.
  const test::CliRun trainer_only = test::run({"check", script, "--gpu", "H100", "--cluster", "2x6xH100"});
  CHECK(trainer_only.exit_code == 1);
  CHECK(trainer_only.out.find("and the rollout pool (its nnodes x n_gpus_per_node) for 4 more") != std::string::npos);

  const test::CliRun plan = test::run({"plan", "--from", script, "--gpu", "H100"});
  CHECK(plan.exit_code == 2);
  CHECK(plan.err.find("--rollout-gpus 4 --off-policy-steps 1") != std::string::npos);
}

// verl's fully-async trainer (tests/fixtures/verl/fully_async_grpo.sh: trainer on 1 x 8 H100, engines
// on 1 x 8 more, a step of ppo_mini_batch_size 32 x require_batches 2 prompts): check fits it on 16
// GPUs; plan --from names the trainer and the pool.
TEST_CASE("a fully-async launch: check fits it on 2 x 8 H100, plan --from points to --rollout-gpus") {
  const std::string script = test::fixture("verl/fully_async_grpo.sh").string();
  const test::CliRun check = test::run({"check", script, "--gpu", "H100", "--cluster", "2x8xH100", "--json"});
  REQUIRE_MESSAGE(check.exit_code == 0, check.err);
  const nlohmann::json report = nlohmann::json::parse(check.out);
  CHECK(report["config_name"] == "fully_async_ppo_trainer");
  CHECK(report["errors"] == 0);
  const test::CliRun plan = test::run({"plan", "--from", script, "--gpu", "H100"});
  CHECK(plan.exit_code == 2);
  CHECK(plan.err.find("runs verl's fully-async trainer (engines on a rollout pool of 8 GPUs") != std::string::npos);
}

// verl's V1 trainer in separate-async mode (tests/fixtures/verl/v1_separate_async_grpo.sh: trainer on
// 1 x 8 H100, engines on actor_rollout_ref.rollout's 1 x 8 more): check fits it on 16 GPUs, with
// the engine alone on the pool; plan --from names the trainer and the pool.
TEST_CASE("a V1 separate-async launch: check fits it on 2 x 8 H100, plan --from points to --rollout-gpus") {
  const std::string script = test::fixture("verl/v1_separate_async_grpo.sh").string();
  const test::CliRun check = test::run({"check", script, "--verl-version", "main@1dda039b", "--gpu", "H100",
                                        "--cluster", "2x8xH100", "--json"});
  REQUIRE_MESSAGE(check.exit_code == 0, check.err);
  CHECK(nlohmann::json::parse(check.out)["errors"] == 0);
  // The same pool but a cluster of the trainer's 8 GPUs alone.
  const test::CliRun short_cluster = test::run({"check", script, "--verl-version", "main@1dda039b", "--cluster", "1x8xH100"});
  CHECK(short_cluster.out.find("memory.cluster-mismatch") != std::string::npos);
  const test::CliRun plan = test::run({"plan", "--from", script, "--gpu", "H100"});
  CHECK(plan.exit_code == 2);
  CHECK(plan.err.find("runs verl's V1 trainer in separate-async mode (engines on a rollout pool of 8 GPUs") !=
        std::string::npos);
}

}  // namespace meshplan
