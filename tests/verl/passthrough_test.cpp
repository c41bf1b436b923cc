// Pass-through dictionaries and engine arguments, Megatron-LM arguments and the memory fit
// (environment variables: env_rules_test.cpp).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "check_support.hpp"
#include "hardware/gpu_catalog.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "verl/embedded_json.hpp"
#include "verl/passthrough_rules.hpp"

namespace meshplan {
namespace {

ModelSpec preset(const std::string& name) {
  auto model = parse_model_config(*find_model_preset_config(name), name);
  REQUIRE(model.ok());
  return model.value();
}

GpuSpec gpu(const std::string& name) {
  auto catalog = parse_gpu_catalog(builtin_gpu_catalog_text(), "gpus.json");
  REQUIRE(catalog.ok());
  auto found = find_gpu(catalog.value(), name);
  REQUIRE(found.ok());
  return found.value();
}

}  // namespace

TEST_CASE("override_transformer_config keys are Megatron-core TransformerConfig fields") {
  const auto base = test::megatron_baseline();
  const CheckReport ok = test::check_lines(
      test::with(base, {"+actor_rollout_ref.actor.megatron.override_transformer_config.moe_permute_fusion=True",
                        "actor_rollout_ref.actor.megatron.override_transformer_config.recompute_num_layers=2"}),
      "ppo_megatron_trainer");
  CHECK(test::findings_of(ok, "passthrough.unknown-field").empty());
  CHECK(test::findings_of(ok, "passthrough.field-type").empty());
  // The seed article's invented layernorm_fusion.
  const CheckReport bad = test::check_lines(
      test::with(base, {"+actor_rollout_ref.actor.megatron.override_transformer_config.layernorm_fusion=True",
                        "+actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_cpu_offlaod=True",
                        "+actor_rollout_ref.actor.megatron.override_ddp_config.overlap_grad_reduce=yes"}),
      "ppo_megatron_trainer");
  const auto unknown = test::findings_of(bad, "passthrough.unknown-field");
  REQUIRE(unknown.size() == 2);
  CHECK(unknown[0].message.find("'layernorm_fusion' is not a field of Megatron-core's TransformerConfig") == 0);
  CHECK(unknown[1].message.find("did you mean 'optimizer_cpu_offload'?") != std::string::npos);
  CHECK(unknown[1].fix[0] == "+actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_cpu_offload=true");
  const auto type = test::findings_of(bad, "passthrough.field-type");
  REQUIRE(type.size() == 1);
  CHECK(type[0].message == "'overlap_grad_reduce' of DistributedDataParallelConfig is bool, not 'yes'");
}

TEST_CASE("rollout.engine_kwargs.vllm keys are vLLM EngineArgs fields") {
  const CheckReport ok = test::check_lines(test::with(
      test::fsdp_baseline(), {"+actor_rollout_ref.rollout.engine_kwargs.vllm.disable_mm_preprocessor_cache=True",
                              "+actor_rollout_ref.rollout.engine_kwargs.vllm.max_num_seqs=256"}));
  CHECK(test::findings_of(ok, "passthrough.engine-argument").empty());
  CHECK(test::findings_of(ok, "passthrough.field-type").empty());
  const CheckReport bad = test::check_lines(
      test::with(test::fsdp_baseline(), {"+actor_rollout_ref.rollout.engine_kwargs.vllm.max_num_seq=256",
                                         "+actor_rollout_ref.rollout.engine_kwargs.vllm.gpu_memory_utilization=high"}));
  const auto hits = test::findings_of(bad, "passthrough.engine-argument");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].severity == Severity::error);
  CHECK(hits[0].message ==
        "'max_num_seq' is not a field of vLLM's EngineArgs (vllm-project/vllm@99d7eb5d): the rollout server fails "
        "when it starts inside the rollout worker; did you mean 'max_num_seqs'?");
  REQUIRE(hits[0].fix.size() == 2);
  CHECK(hits[0].fix[0] == "+actor_rollout_ref.rollout.engine_kwargs.vllm.max_num_seqs=256");
  CHECK(hits[0].fix[1] == "~actor_rollout_ref.rollout.engine_kwargs.vllm.max_num_seq");
  const auto types = test::findings_of(bad, "passthrough.field-type");
  REQUIRE(types.size() == 1);
  CHECK(types[0].message == "'gpu_memory_utilization' of EngineArgs is float, not 'high'");
}

TEST_CASE("rollout.engine_kwargs.sglang keys are SGLang ServerArgs fields") {
  // attention_backend=triton is what verl's own SGLang examples pass.
  const CheckReport ok = test::check_lines(
      test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=sglang",
                                         "+actor_rollout_ref.rollout.engine_kwargs.sglang.mem_fraction_static=0.8",
                                         "+actor_rollout_ref.rollout.engine_kwargs.sglang.attention_backend=triton",
                                         "+actor_rollout_ref.rollout.engine_kwargs.sglang.max_running_requests=null"}));
  CHECK(test::findings_of(ok, "passthrough.engine-argument").empty());
  CHECK(test::findings_of(ok, "passthrough.field-type").empty());
  const CheckReport bad = test::check_lines(
      test::with(test::fsdp_baseline(), {"actor_rollout_ref.rollout.name=sglang",
                                         "+actor_rollout_ref.rollout.engine_kwargs.sglang.mem_fraction_statc=0.8",
                                         "+actor_rollout_ref.rollout.engine_kwargs.sglang.tp_size=two"}));
  const auto hits = test::findings_of(bad, "passthrough.engine-argument");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].severity == Severity::error);
  CHECK(hits[0].keys[0] == "actor_rollout_ref.rollout.engine_kwargs.sglang.mem_fraction_statc");
  CHECK(hits[0].message ==
        "'mem_fraction_statc' is not a field of SGLang's ServerArgs (sgl-project/sglang@001067ff): the rollout server "
        "fails when it starts inside the rollout worker; did you mean 'mem_fraction_static'?");
  CHECK(hits[0].fix[0] == "+actor_rollout_ref.rollout.engine_kwargs.sglang.mem_fraction_static=0.8");
  const auto types = test::findings_of(bad, "passthrough.field-type");
  REQUIRE(types.size() == 1);
  CHECK(types[0].message == "'tp_size' of ServerArgs is int, not 'two'");
}

TEST_CASE("engine_args.json: each engine names its dataclass, commit and field types") {
  const nlohmann::json& engines = embedded_json("verl/engine_args.json");
  const std::set<std::string> types = {"bool", "int", "float", "str", "list", "dict", "any"};
  // Public fields counted in the sources: vllm/engine/arg_utils.py EngineArgs at 99d7eb5d,
  // python/sglang/srt/server_args.py ServerArgs at 001067ff (fields starting with '_' left out).
  const std::map<std::string, std::size_t> expected = {{"vllm", 145}, {"sglang", 480}};
  REQUIRE(engines.size() == expected.size());
  for (const auto& [engine, count] : expected) {
    const nlohmann::json& table = engines[engine];
    CHECK(table["version"].get<std::string>().find('@') != std::string::npos);
    CHECK(!table["library"].get<std::string>().empty());
    CHECK(!table["dataclass"].get<std::string>().empty());
    CHECK(table["arguments"].size() == count);
    for (const auto& [name, type] : table["arguments"].items()) {
      std::string base = type.get<std::string>();
      if (base.back() == '?') base.pop_back();
      CHECK_MESSAGE(types.count(base) == 1, engine << "." << name);
    }
  }
}

TEST_CASE("an engine without a field table is not checked") {
  // verl's TensorRT-LLM recipes pass trtllm kwargs; meshplan has no table for them.
  const CheckReport report = test::check_lines(test::with(
      test::fsdp_baseline(), {"+actor_rollout_ref.rollout.engine_kwargs.trtllm.batch_wait_timeout_iters=32"}));
  CHECK(test::findings_of(report, "passthrough.engine-argument").empty());
  CHECK(test::findings_of(report, "passthrough.field-type").empty());
}

TEST_CASE("Megatron-LM pretrain_gpt.py arguments get the Megatron subset") {
  const std::string script =
      "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n"
      "  --tensor-model-parallel-size 3 --num-attention-heads 32 --num-query-groups 8 \\\n"
      "  --pipeline-model-parallel-size 1 --num-layers-per-virtual-pipeline-stage 2 \\\n"
      "  --num-layers 30 --global-batch-size 64 --micro-batch-size 4\n";
  auto report = check_launch({InputText{"pretrain.sh", script}}, CheckOptions{});
  REQUIRE(report.ok());
  CHECK(test::findings_of(*report, "megatron.tp-heads").size() == 1);       // 32 % 3
  CHECK(test::findings_of(*report, "megatron.tp-query-groups").size() == 1);  // 8 % 3
  CHECK(test::findings_of(*report, "megatron.vpp-needs-pp").size() == 1);
  CHECK(test::findings_of(*report, "megatron.global-batch-micro").empty());  // 64 % 4 == 0
  CHECK(report->errors == 3);
}

TEST_CASE("model-shape rules come from strategy/validate, mapped to verl keys") {
  CheckOptions options;
  options.model = preset("qwen2.5-7b-instruct");  // 28 heads, 4 KV heads, 28 layers
  const CheckReport report = test::check_lines(
      test::with(test::megatron_baseline(), {"actor_rollout_ref.actor.megatron.tensor_model_parallel_size=8",
                                             "actor_rollout_ref.actor.megatron.expert_model_parallel_size=2"}),
      "ppo_megatron_trainer", options);
  CHECK(test::findings_of(report, "model.tp.divides-heads").size() == 1);  // 28 % 8
  CHECK(test::findings_of(report, "model.ep.requires-moe").size() == 1);   // dense model
  const auto heads = test::findings_of(report, "model.tp.divides-heads");
  CHECK(heads[0].keys[0] == "actor_rollout_ref.actor.megatron.tensor_model_parallel_size");
}

TEST_CASE("the model comes from actor_rollout_ref.model.path when it names a preset") {
  const CheckReport report = test::check_lines(test::with(
      test::fsdp_baseline(),
      {"actor_rollout_ref.model.path=/models/Qwen/Qwen2.5-7B-Instruct", "actor_rollout_ref.rollout.tensor_model_parallel_size=8"}));
  CHECK(test::findings_of(report, "model.rollout-tp-heads").size() == 1);
  CHECK(test::findings_of(report, "model.unknown").empty());
}

TEST_CASE("memory fit per RL phase: a 7B FSDP actor on one 40 GB GPU does not fit, a 0.5B one does") {
  // 7B x (2 bf16 weights + 2 grads + 12 fp32 Adam) = ~114 GB of states on one GPU: no room.
  CheckOptions big;
  big.model = preset("qwen2.5-7b-instruct");
  big.gpu = gpu("A100-40GB");
  const std::vector<std::string> one_gpu = {"trainer.n_gpus_per_node=1",
                                            "actor_rollout_ref.rollout.tensor_model_parallel_size=1"};
  const CheckReport oom = test::check_lines(test::with(test::fsdp_baseline(), one_gpu), "ppo_trainer", big);
  const auto phases = test::findings_of(oom, "memory.phase-oom");
  REQUIRE(!phases.empty());
  CHECK(phases[0].severity == Severity::error);
  CHECK(phases[0].message.find("would OOM in the") != std::string::npos);
  CHECK(!phases[0].fix.empty());
  // Every suggested knob is a real verl key.
  for (const Finding& finding : oom.findings) {
    if (finding.rule.rfind("memory", 0) != 0) continue;
    const CheckReport applied = test::check_lines(test::with(test::with(test::fsdp_baseline(), one_gpu), finding.fix));
    for (const Finding& f : applied.findings) CHECK_MESSAGE(f.rule.rfind("hydra.", 0) != 0, f.message);
  }

  CheckOptions small;
  small.model = preset("qwen2.5-0.5b");
  small.gpu = gpu("H100-80GB");
  const CheckReport fits = test::check_lines(test::fsdp_baseline(), "ppo_trainer", small);
  CHECK(test::findings_of(fits, "memory.phase-oom").empty());
  CHECK(test::findings_of(fits, "memory.low-headroom").empty());
}

TEST_CASE("--cluster must agree with trainer.nnodes x n_gpus_per_node") {
  CheckOptions options;
  options.model = preset("qwen2.5-0.5b");
  options.gpu = gpu("H100-80GB");
  options.cluster_gpus = 16;
  const CheckReport report = test::check_lines(test::fsdp_baseline(), "ppo_trainer", options);
  CHECK(test::findings_of(report, "memory.cluster-mismatch").size() == 1);
}

}  // namespace meshplan
