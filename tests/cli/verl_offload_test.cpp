// verl's offload, as verl runs it (verl/workers/engine/base.py BaseEngineCtx._context_switch at
// 1dda039b9): param / grad / optimizer offload page the actor's states to the host between phases
// and back before the phase that uses them, once per phase, so the update itself runs on the GPU;
// only Megatron-core's CPU optimizer (OptimizerConfig.optimizer_cpu_offload, which verl takes from
// actor.optim.override_optimizer_config) keeps optimizer states on the host while it runs. Before
// session 18 the RL time charged verl's optimizer_offload as a CPU Adam step in every mini-batch,
// and the memory model kept a CPU optimizer's states on the GPU: verl's own DeepSeek-V3 671B GRPO
// example (main@1dda039b, optimizer_cpu_offload with fraction 1.0 on 12 x 8 GPUs of 80 GB) was
// called out of memory at 157.4 GiB a GPU.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/time/step_time.hpp"
#include "hardware/cluster_spec.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/model_presets.hpp"
#include "model/config_reader.hpp"
#include "test_support.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"
#include "verl/verl_example_scripts.hpp"

namespace meshplan {
namespace {

double phase_seconds(const nlohmann::json& estimate, const std::string& name) {
  for (const auto& phase : estimate["time"]["phases"]) {
    if (phase["name"] == name) return phase["seconds"].get<double>();
  }
  FAIL("no phase " << name);
  return 0;
}

nlohmann::json rl_estimate(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xH100",
                                   "--workload", "rl", "--global-batch", "64", "--rollout-n", "4",
                                   "--prompt-len", "512", "--response-len", "1024", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const test::CliRun run = test::run(args);
  REQUIRE_MESSAGE(run.exit_code != 2, run.err);  // 0 or 1: fits or not, the times are estimated alike
  return nlohmann::json::parse(run.out);
}

}  // namespace

TEST_CASE("verl's offload pages the actor's states once per phase: the update runs on the GPU") {
  // Qwen2.5-7B-Instruct (7,615,616,512 parameters), Megatron TP 1 on 8 H100, DP 8: one GPU holds
  // the bf16 weights (2 B a parameter), the fp32 main gradients (4 B) and its eighth of the
  // distributed optimizer (12 B / 8 = 1.5 B). verl moves them to the host and back: all 8 GPUs at
  // once, at min(H100's 51 GB/s host link, 200 GB/s of host DRAM / 8 = 25 GB/s) each.
  //   log-prob pass: 2 x 2 B x 7,615,616,512 / 25e9 = 1.2185 s
  //   update:        2 x 7.5 B x 7,615,616,512 / 25e9 = 4.5694 s, whatever its mini-batches
  const double params = 7615616512.0;
  for (const std::string mini_batch : {"16", "64"}) {  // 4 optimizer steps, then 1
    CAPTURE(mini_batch);
    const nlohmann::json resident = rl_estimate({"--mini-batch", mini_batch});
    const nlohmann::json paged = rl_estimate({"--mini-batch", mini_batch, "--offload", "params,grads,optimizer"});
    CHECK(phase_seconds(paged, "timing_s/old_log_prob") - phase_seconds(resident, "timing_s/old_log_prob") ==
          test::approx(2 * 2.0 * params / 25e9).epsilon(1e-4));
    CHECK(phase_seconds(paged, "timing_s/update_actor") - phase_seconds(resident, "timing_s/update_actor") ==
          test::approx(2 * 7.5 * params / 25e9).epsilon(1e-4));
    CHECK(paged["time"]["breakdown"]["offload"].get<double>() == test::approx((2 * 2.0 + 2 * 7.5) * params / 25e9).epsilon(1e-4));
  }
}

TEST_CASE("verl's reference on the host: Megatron's param_offload pages it, FSDP's CPUOffload streams it") {
  // The same Qwen2.5-7B on 8 H100 (DP 8), 64 prompts x 4 = 256 sequences, 32 a GPU.
  // Megatron with ref.megatron.param_offload: its bf16 weights come back before the reference pass
  // and leave after it (megatron_workers.py compute_ref_log_prob), 2 x 2 B x params / 25e9 = 1.2185 s.
  const double params = 7615616512.0;
  const nlohmann::json megatron = rl_estimate({"--mini-batch", "16"});
  const nlohmann::json megatron_offloaded = rl_estimate({"--mini-batch", "16", "--ref-offload"});
  CHECK(phase_seconds(megatron_offloaded, "timing_s/ref") - phase_seconds(megatron, "timing_s/ref") ==
        test::approx(2 * 2.0 * params / 25e9).epsilon(1e-4));
  // FSDP: verl wraps the reference in CPUOffload (fsdp_workers.py _build_model_optimizer), and
  // FSDP copies each rank's shard of it (fp32 by ref.fsdp_config.model_dtype, verl >= 0.6: 4 B x
  // params / 8) to the GPU for every forward micro-batch: at one sequence a micro-batch, 32 of them,
  // 32 x 3.808 GB / 25e9 = 4.874 s, against a forward pass of about 0.34 s that it outlasts (the
  // pass takes the longer of the two). With micro-batches of 8 sequences, 4 x 3.808 GB: 0.609 s.
  const nlohmann::json fsdp = rl_estimate({"--mini-batch", "16", "--fsdp"});
  CHECK(phase_seconds(fsdp, "timing_s/ref") == test::approx(32 * 4.0 * params / 8 / 25e9).epsilon(1e-4));
  const nlohmann::json fsdp_mb8 = rl_estimate({"--mini-batch", "16", "--fsdp", "--log-prob-micro-batch", "8"});
  CHECK(phase_seconds(fsdp_mb8, "timing_s/ref") == test::approx(4 * 4.0 * params / 8 / 25e9).epsilon(1e-4));
  CHECK(phase_seconds(fsdp_mb8, "timing_s/ref") > phase_seconds(fsdp_mb8, "timing_s/old_log_prob"));
}

TEST_CASE("NeMo RL pages the policy's parameters and optimizer states around every colocated generation") {
  // nemo_rl/models/policy/workers/megatron_policy_worker.py (v0.3.1 to v0.6.0): the optimizer states
  // leave before the refit and the parameters after it; the parameters come back for the log-prob
  // pass, the optimizer states for training. The gradient buffer is freed, not copied (Megatron-core
  // ParamAndGradBuffer.offload_to_cpu). The same Qwen2.5-7B on 8 H100 as above, at 25 GB/s a GPU:
  //   log-prob pass: 2 x 2 B x 7,615,616,512 / 25e9 = 1.2185 s
  //   update:        1.5 B x 7,615,616,512 to the host at the pageable rate (move_optimizer's
  //                  blocking `v.to("cpu")`: 7.5 GB in 4.6556 s, pytorch/pytorch#120378) and back
  //                  at 25 GB/s: 7.0911 + 0.4569 = 7.5480 s (no gradients)
  // the reference pass swaps the reference's weights into the policy's model and back (three copies
  // of 2 B x params through pinned memory, use_reference_model): 3 x 2 x 7,615,616,512 / 25e9 = 1.8277 s;
  // and the refit at NeMo RL's measured 35.3 GB/s instead of verl's 10.53 GB/s:
  //   15.23 GB x (1 / 10.53e9 - 1 / 35.3e9) = 1.0151 s shorter.
  const double params = 7615616512.0;
  const nlohmann::json verl = rl_estimate({"--mini-batch", "16"});
  const nlohmann::json nemo = rl_estimate({"--mini-batch", "16", "--rl-framework", "nemo-rl"});
  CHECK(nemo["workload"]["rl"]["rl_framework"] == "nemo-rl");
  CHECK(phase_seconds(nemo, "timing_s/old_log_prob") - phase_seconds(verl, "timing_s/old_log_prob") ==
        test::approx(2 * 2.0 * params / 25e9).epsilon(1e-4));
  CHECK(phase_seconds(nemo, "timing_s/update_actor") - phase_seconds(verl, "timing_s/update_actor") ==
        test::approx(1.5 * params / (7.5e9 / 4.6556) + 1.5 * params / 25e9).epsilon(1e-4));
  CHECK(phase_seconds(nemo, "timing_s/ref") - phase_seconds(verl, "timing_s/ref") ==
        test::approx(3 * 2.0 * params / 25e9).epsilon(1e-4));
  CHECK(phase_seconds(verl, "timing_s/gen") - phase_seconds(nemo, "timing_s/gen") ==
        test::approx(2 * params * (1 / 10.53e9 - 1 / 35.3e9)).epsilon(1e-4));
  // The memory model agrees: while the engine generates, the policy's parameters, gradients and
  // optimizer states are off the GPU (on the host: parameters and optimizer; the gradient buffer is
  // freed), where verl without offload keeps them.
  const auto rollout_component = [](const nlohmann::json& estimate, const std::string& component) {
    for (const auto& phase : estimate["memory"]["phases"]) {
      if (phase["name"] == "rollout") return phase["components"].value(component, 0.0);
    }
    return -1.0;
  };
  for (const std::string component : {"weights", "gradients", "optimizer_states"}) {
    CAPTURE(component);
    CHECK(rollout_component(verl, component) > 0.0);
    CHECK(rollout_component(nemo, component) == 0.0);
  }
  // Engines on GPUs of their own: the trainer keeps its states, nothing is paged, and the weights go
  // by NeMo RL's pipelined broadcast unless --weight-broadcast says otherwise.
  const nlohmann::json apart = rl_estimate({"--mini-batch", "16", "--rl-framework", "nemo-rl", "--rollout-gpus", "4"});
  CHECK(apart["time"]["breakdown"]["offload"].get<double>() == 0.0);
  CHECK(apart["workload"]["rl"]["weight_broadcast"] == "pipelined");
  const nlohmann::json verl_engine =
      rl_estimate({"--mini-batch", "16", "--rl-framework", "nemo-rl", "--rollout-gpus", "4", "--weight-broadcast",
                   "checkpoint-engine"});
  CHECK(verl_engine["workload"]["rl"]["weight_broadcast"] == "checkpoint-engine");
}

TEST_CASE("Megatron's CPU optimizer from verl's override_optimizer_config: states on the host, CPU Adam in each step") {
  const auto job_of = [](const std::string& extra) {
    const std::string script =
        "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \\\n"
        "  data.train_batch_size=64 data.max_prompt_length=512 data.max_response_length=1024 \\\n"
        "  actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct actor_rollout_ref.rollout.n=4 \\\n"
        "  actor_rollout_ref.actor.ppo_mini_batch_size=16 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\\n"
        "  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \\\n"
        "  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \\\n"
        "  actor_rollout_ref.actor.megatron.optimizer_offload=True " + extra + " \\\n"
        "  trainer.nnodes=1 trainer.n_gpus_per_node=8\n";
    const Result<VerlLaunch> launch = read_verl_launch(script, "run.sh");
    REQUIRE(launch.ok());
    return verl_to_strategy(*launch);
  };
  const std::string cpu = "+actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_cpu_offload=True";
  const VerlJob paged_only = job_of("");
  CHECK_FALSE(paged_only.strategy.offload.optimizer_on_cpu);
  // OptimizerConfig.optimizer_offload_fraction defaults to 0.0: nothing moves without it.
  const VerlJob no_fraction = job_of(cpu);
  CHECK(no_fraction.strategy.offload.optimizer_on_cpu);
  CHECK(no_fraction.strategy.offload.optimizer_fraction == 0.0);
  const VerlJob all = job_of(cpu + " +actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_offload_fraction=1.0");
  CHECK(all.strategy.offload.optimizer_fraction == 1.0);
  const VerlJob half = job_of(cpu + " +actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_offload_fraction=0.5");

  const Result<ModelSpec> parsed = parse_model_config(*find_model_preset_config("qwen2.5-7b-instruct"), "qwen2.5-7b-instruct");
  REQUIRE(parsed.ok());
  const ModelSpec& model = *parsed;
  const Result<Cluster> parsed_cluster = parse_cluster_spec("1x8xH100", builtin_gpu_catalog());
  REQUIRE(parsed_cluster.ok());
  const Cluster& cluster = *parsed_cluster;
  const auto update_optimizer = [&](const VerlJob& job) {
    const MemoryEstimate memory = estimate_memory(model, cluster, job.strategy, job.workload, MemoryOptions{}, nullptr);
    for (int i = 0; i < memory.phase_count; ++i) {
      const PhaseMemory& phase = memory.phases[static_cast<std::size_t>(i)];
      if (phase.kind == MemoryPhaseKind::update_actor) return phase[MemoryComponent::optimizer_states];
    }
    FAIL("no update phase");
    return 0.0;
  };
  // verl pages the distributed optimizer's eighth back for the update: 12 B / 8 x 7,615,616,512.
  CHECK(update_optimizer(paged_only) == test::approx(1.5 * 7615616512.0));
  CHECK(update_optimizer(no_fraction) == test::approx(1.5 * 7615616512.0));
  CHECK(update_optimizer(half) == test::approx(0.75 * 7615616512.0));
  CHECK(update_optimizer(all) == 0.0);

  // The CPU Adam runs in every optimizer step (4 here: 64 prompts in mini-batches of 16): the update
  // takes longer than verl's paging alone, and more so with the whole optimizer on the CPU.
  const auto update_seconds = [&](const VerlJob& job) {
    const TimeEstimate time = estimate_time(model, cluster, job.strategy, job.workload, TimeOptions{}, nullptr);
    for (int i = 0; i < time.num_phases; ++i) {
      if (std::string(time.phases[static_cast<std::size_t>(i)].name) == "timing_s/update_actor") {
        return time.phases[static_cast<std::size_t>(i)].seconds;
      }
    }
    FAIL("no update phase");
    return 0.0;
  };
  CHECK(update_seconds(half) > update_seconds(no_fraction));
  CHECK(update_seconds(all) > update_seconds(half));
}

TEST_CASE("verl's DeepSeek-V3 671B GRPO example with the CPU optimizer fits 12 x 8 H100 and plans with it") {
  std::filesystem::path script;
  for (const auto& [source, text] : test::bundled_scripts(test::fixture("verl/examples/verl_1dda039b.bundle"))) {
    if (source != "examples/grpo_trainer/run_deepseek_v3_671b_megatron.sh") continue;
    script = std::filesystem::temp_directory_path() / ("meshplan_dsv3_" + std::to_string(::getpid()) + ".sh");
    std::ofstream(script) << text;
  }
  REQUIRE(!script.empty());
  const test::CliRun check = test::run({"check", script.string(), "--gpu", "H100", "--json"});
  const nlohmann::json report = nlohmann::json::parse(check.out);  // kept: the loop reads into it
  for (const nlohmann::json& finding : report["findings"]) {
    CHECK_MESSAGE(finding["severity"] != "error", finding["message"]);
  }
  const test::CliRun plan = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--top", "1"});
  REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  CHECK(plan.out.find("offload=all cpu_optimizer=1 mb=1") != std::string::npos);  // the launch and the winner
  CHECK(plan.out.find("nothing fits") == std::string::npos);
  const test::CliRun with_json = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--top", "1", "--json"});
  REQUIRE(with_json.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(with_json.out);
  CHECK(out["baseline"]["strategy"]["cpu_optimizer_fraction"] == 1.0);
  CHECK(out["candidates"][0]["strategy"]["cpu_optimizer_fraction"] == 1.0);
  const test::CliRun diff = test::run({"plan", "--from", script.string(), "--gpu", "H100", "--emit", "verl"});
  REQUIRE(diff.exit_code == 0);
  CHECK(diff.out.find("optimizer_cpu_offload") == std::string::npos);  // kept as the script sets it
  std::filesystem::remove(script);
}

}  // namespace meshplan
