// A verl launch mapped to the memory model's inputs where the mapping depends on the verl version:
// fsdp_workers.py _build_model_optimizer(role="ref") loads the reference in fsdp_config.model_dtype
// when the composed config sets it (engine/fsdp.yaml sets fp32 from verl 0.6) and in bf16 when the
// key is absent (verl 0.4 / 0.5 ref configs have no model_dtype).
#include <doctest/doctest.h>

#include "main_ppo_launch.hpp"
#include "verl/fit/to_strategy.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {
namespace {

double ref_param_bytes(const char* version, const std::string& extra = "") {
  const VerlLaunch launch = test::read_main_ppo_launch(
      "algorithm.adv_estimator=grpo actor_rollout_ref.actor.use_kl_loss=True "
      "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct" + extra,
      version);
  return verl_to_strategy(launch.config).workload.rl.ref_param_bytes;
}

TEST_CASE("the FSDP reference's dtype follows the verl version's ref.fsdp_config.model_dtype") {
  CHECK(ref_param_bytes("0.4.0") == 2);  // no model_dtype in ref.fsdp_config: bf16
  CHECK(ref_param_bytes("0.5.0") == 2);
  CHECK(ref_param_bytes("0.6.1") == 4);  // engine/fsdp.yaml model_dtype: fp32
  CHECK(ref_param_bytes("0.9.0") == 4);
  CHECK(ref_param_bytes("0.9.0", " actor_rollout_ref.ref.fsdp_config.model_dtype=bf16") == 2);
}

TEST_CASE("rollout data and expert parallel sizes reach the rollout model") {
  // verl examples/gspo_trainer/test_gspo_qwen30b_a3b_ep.sh: gen_tp=1 gen_dp=4 gen_ep=4.
  const std::string script =
      "python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=Qwen/Qwen3-30B-A3B-Base "
      "actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.data_parallel_size=4 "
      "actor_rollout_ref.rollout.expert_parallel_size=4 trainer.n_gpus_per_node=8 trainer.nnodes=2\n";
  const Result<VerlLaunch> launch = read_verl_launch({InputText{"run.sh", script}}, VerlReadOptions{});
  REQUIRE(launch.ok());
  const RlSettings rl = verl_to_strategy(launch->config).workload.rl;
  CHECK(rl.rollout_tp == 1);
  CHECK(rl.rollout_dp == 4);
  CHECK(rl.rollout_ep == 4);
}

TEST_CASE("rollout.name selects the engine the rollout model costs") {
  const auto engine = [](const std::string& name) {
    const std::string script = "python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=Qwen/Qwen3-8B "
                               "actor_rollout_ref.rollout.name=" + name + " trainer.n_gpus_per_node=8 trainer.nnodes=1\n";
    const Result<VerlLaunch> launch = read_verl_launch({InputText{"run.sh", script}}, VerlReadOptions{});
    REQUIRE(launch.ok());
    return verl_to_strategy(launch->config).workload.rl.engine;
  };
  CHECK(engine("vllm") == RolloutEngine::vllm);
  CHECK(engine("sglang") == RolloutEngine::sglang);
  CHECK(engine("trtllm") == RolloutEngine::trtllm);
}

TEST_CASE("rollout.quantization=fp8 reaches the rollout model, torchao and the default do not") {
  // verl docs/low_precision/fp8.md "FP8 Rollout Only": actor_rollout_ref.rollout.quantization=fp8.
  const auto fp8 = [](const std::string& extra) {
    const std::string script = "python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=Qwen/Qwen3-8B " + extra +
                               " trainer.n_gpus_per_node=8 trainer.nnodes=1\n";
    const Result<VerlLaunch> launch = read_verl_launch({InputText{"run.sh", script}}, VerlReadOptions{});
    REQUIRE(launch.ok());
    return verl_to_strategy(launch->config).workload.rl.rollout_fp8;
  };
  CHECK(fp8("actor_rollout_ref.rollout.quantization=fp8"));
  CHECK_FALSE(fp8("actor_rollout_ref.rollout.quantization=torchao"));
  CHECK_FALSE(fp8(""));
}

/// The strategy verl builds for `arguments` of verl.trainer.main_ppo on one node of 8 GPUs.
Strategy strategy_of(const std::string& arguments) {
  const std::string script =
      "python3 -m verl.trainer.main_ppo " + arguments + " trainer.n_gpus_per_node=8 trainer.nnodes=1\n";
  const Result<VerlLaunch> launch = read_verl_launch({InputText{"run.sh", script}}, VerlReadOptions{});
  REQUIRE(launch.ok());
  return verl_to_strategy(launch->config).strategy;
}

const std::string kMegatron7b =
    "--config-name=ppo_megatron_trainer actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct";

TEST_CASE("Megatron's main grads: fp32 as verl builds its DDP config, 16 bits when override_ddp_config says so") {
  const auto grads_in_fp32 = [](const std::string& extra) { return strategy_of(kMegatron7b + extra).grad_reduce_in_fp32; };
  // verl utils/megatron_utils.py: DistributedDataParallelConfig(grad_reduce_in_fp32=True, ...).
  CHECK(grads_in_fp32(""));
  CHECK_FALSE(grads_in_fp32(" +actor_rollout_ref.actor.megatron.override_ddp_config.grad_reduce_in_fp32=False"));
  // The precision-aware optimizer with bf16 main grads (workers/engine/megatron/transformer_impl.py).
  const std::string precision_aware =
      " actor_rollout_ref.actor.optim.use_precision_aware_optimizer=True"
      " actor_rollout_ref.actor.optim.main_grads_dtype=bf16";
  CHECK_FALSE(grads_in_fp32(precision_aware));
  CHECK(grads_in_fp32(" actor_rollout_ref.actor.optim.main_grads_dtype=bf16"));  // not precision-aware: ignored
  CHECK(grads_in_fp32(precision_aware +
                      " +actor_rollout_ref.actor.megatron.override_ddp_config.grad_reduce_in_fp32=True"));
}

TEST_CASE("the precision-aware optimizer's Adam moments in their dtypes (verl utils/megatron/optimizer.py)") {
  const auto moment_bytes = [](const std::string& extra) { return strategy_of(kMegatron7b + extra).adam_moment_bytes; };
  CHECK(moment_bytes("") == 8);
  CHECK(moment_bytes(" actor_rollout_ref.actor.optim.exp_avg_dtype=bf16") == 8);  // needs precision-aware
  CHECK(moment_bytes(" actor_rollout_ref.actor.optim.use_precision_aware_optimizer=True"
                     " actor_rollout_ref.actor.optim.exp_avg_dtype=bf16 actor_rollout_ref.actor.optim.exp_avg_sq_dtype=bf16") ==
        4);
}

TEST_CASE("Megatron-core recompute_modules reach the memory model from override_transformer_config") {
  const auto modules = [](const std::string& extra) {
    const Strategy strategy =
        strategy_of(kMegatron7b + " actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=selective" +
                    extra);
    CHECK(strategy.recompute == Recompute::selective);
    return strategy.recompute_modules;
  };
  CHECK(modules("") == kRecomputeCoreAttn);  // verl engine/megatron.yaml: ["core_attn"]
  CHECK(modules(" actor_rollout_ref.actor.megatron.override_transformer_config.recompute_modules=[moe_act,layernorm]") ==
        (kRecomputeMoeAct | kRecomputeLayernorm));
}

TEST_CASE("activation offloading: verl FSDP enable_activation_offload, Megatron-core cpu_offloading overrides") {
  const std::string fsdp = "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct";
  CHECK(strategy_of(fsdp).activation_offload_layers == 0);
  CHECK(strategy_of(fsdp + " actor_rollout_ref.model.enable_activation_offload=True").activation_offload_layers ==
        kOffloadAllButLastLayer);
  const std::string t = " +actor_rollout_ref.actor.megatron.override_transformer_config.";
  CHECK(strategy_of(kMegatron7b + t + "cpu_offloading=True" + t + "cpu_offloading_num_layers=20")
            .activation_offload_layers == 20);
  // cpu_offloading stays False: nothing is offloaded.
  CHECK(strategy_of(kMegatron7b + t + "cpu_offloading_num_layers=20").activation_offload_layers == 0);
}

TEST_CASE("activation_func_fp8_input_store passes through Megatron-core's override_transformer_config") {
  const std::string t = " +actor_rollout_ref.actor.megatron.override_transformer_config.";
  CHECK_FALSE(strategy_of(kMegatron7b).activation_func_fp8_input_store);
  CHECK(strategy_of(kMegatron7b + t + "activation_func_fp8_input_store=True").activation_func_fp8_input_store);
  CHECK_FALSE(strategy_of(kMegatron7b).te_op_fuser);
  CHECK(strategy_of(kMegatron7b + t + "use_transformer_engine_op_fuser=True").te_op_fuser);
}

TEST_CASE("FP8 and NVFP4 training pass through Megatron-core's override_transformer_config") {
  // verl-recipe recipe/dapo/test_dapo_8b_megatron_fp8train.sh (at 21892b92): fp8=e4m3,
  // fp8_recipe=blockwise; unset, the actor trains in bf16.
  const std::string t = " +actor_rollout_ref.actor.megatron.override_transformer_config.";
  CHECK(strategy_of(kMegatron7b).compute_dtype == Dtype::bf16);
  const Strategy fp8 = strategy_of(kMegatron7b + t + "fp8=e4m3" + t + "fp8_recipe=blockwise");
  CHECK(fp8.compute_dtype == Dtype::fp8);
  CHECK(fp8.fp8_recipe == Fp8Recipe::blockwise);
  CHECK_FALSE(fp8.fp8_param_gather);
  const Strategy delayed = strategy_of(kMegatron7b + t + "fp8=hybrid" + t + "fp8_param=True" + t +
                                       "fp8_dot_product_attention=True" + t + "fp8_output_proj=True");
  CHECK(delayed.fp8_recipe == Fp8Recipe::delayed);  // Megatron-core's default recipe
  CHECK(delayed.fp8_param_gather);
  CHECK(delayed.fp8_attention);
  CHECK(delayed.fp8_output_proj);
  CHECK(strategy_of(kMegatron7b + t + "fp8=null").compute_dtype == Dtype::bf16);
  const Strategy nvfp4 = strategy_of(kMegatron7b + t + "fp4=e2m1" + t + "fp4_param=True");
  CHECK(nvfp4.compute_dtype == Dtype::fp4);
  CHECK(nvfp4.fp4_param_gather);
}

TEST_CASE("MTP layers are trained when verl's model.mtp.enable and enable_train are both set") {
  const std::string mtp = " actor_rollout_ref.model.mtp.enable=True";
  CHECK_FALSE(strategy_of(kMegatron7b).train_mtp);
  CHECK_FALSE(strategy_of(kMegatron7b + mtp).train_mtp);  // loaded for speculative rollout only
  CHECK(strategy_of(kMegatron7b + mtp + " actor_rollout_ref.model.mtp.enable_train=True").train_mtp);
}

TEST_CASE("Megatron-FSDP from verl's megatron.use_megatron_fsdp, its sharding from override_ddp_config") {
  const auto zero = [](const std::string& extra) {
    const Strategy s = strategy_of(kMegatron7b + extra);
    CHECK(s.distributed_optimizer);
    return s.zero;
  };
  CHECK(zero("") == ZeroStage::none);
  // utils/megatron_utils.py: data_parallel_sharding_strategy optim_grads_params unless overridden.
  CHECK(zero(" actor_rollout_ref.actor.megatron.use_megatron_fsdp=True") == ZeroStage::zero3);
  CHECK(zero(" actor_rollout_ref.actor.megatron.use_megatron_fsdp=True"
             " +actor_rollout_ref.actor.megatron.override_ddp_config.data_parallel_sharding_strategy=optim_grads") ==
        ZeroStage::zero2);
}

}  // namespace
}  // namespace meshplan

namespace meshplan {
namespace {

RlSettings rl_of(const std::string& arguments) {
  const VerlLaunch launch =
      test::read_main_ppo_launch("actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct " + arguments, "0.9.0");
  return verl_to_strategy(launch.config, launch.trainer).workload.rl;
}

}  // namespace

TEST_CASE("verl's V1 async modes end a step's generation by partial rollout, with their warm-up batches") {
  // verl 0.9.0 trainer/ppo/v1: colocate_async and separate_async use FullyAsyncLLMServerClient
  // (abort, then resume after update_weights); sync waits for every response.
  const RlSettings sync = rl_of("trainer.use_v1=True");
  CHECK_FALSE(sync.partial_rollout);
  const RlSettings colocated = rl_of("trainer.use_v1=True trainer.v1.trainer_mode=colocate_async");
  CHECK(colocated.partial_rollout);
  CHECK(colocated.warmup_batches == 1);  // ppo_trainer.yaml trainer.v1.colocate_async.num_warmup_batches
  CHECK(colocated.rollout_gpus == 0);
  const RlSettings two = rl_of(
      "trainer.use_v1=True trainer.v1.trainer_mode=colocate_async trainer.v1.colocate_async.num_warmup_batches=2");
  CHECK(two.warmup_batches == 2);
  const RlSettings separate = rl_of(
      "trainer.use_v1=True trainer.v1.trainer_mode=separate_async actor_rollout_ref.rollout.nnodes=1 "
      "actor_rollout_ref.rollout.n_gpus_per_node=8 trainer.v1.separate_async.num_warmup_batches=3");
  CHECK(separate.partial_rollout);
  CHECK(separate.warmup_batches == 3);
  CHECK(separate.rollout_gpus == 8);
  CHECK(separate.off_policy_steps == 1);
  // The legacy trainer (use_v1=False) has no partial rollout.
  CHECK_FALSE(rl_of("trainer.use_v1=False trainer.v1.trainer_mode=colocate_async").partial_rollout);
}

}  // namespace meshplan
