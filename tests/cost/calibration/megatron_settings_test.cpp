// A measured run's Megatron-core settings onto the Strategy its table gives
// (cost/calibration/megatron_settings.hpp): each field as Megatron-core reads it, and a clear error
// for a name Megatron-core does not know.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cost/calibration/megatron_settings.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

TEST_CASE("Megatron settings: a Megatron-LM launch's fields onto the table's strategy") {
  // Megatron-MoE-ModelZoo's H100 Qwen3-235B-A22B row (sbatch_benchmarking.sh + the model yaml):
  // ETP 1 under TP 2, DeepEP with 24 SMs, the layout of 94 layers + embedding + loss over 8 x 4
  // stages, selective recomputation of layernorm and moe_act, partial CUDA graphs, the EP overlap.
  const nlohmann::json settings = {
      {"expert_tensor_parallel_size", 1},
      {"recompute_granularity", "selective"},
      {"recompute_modules", {"layernorm", "moe_act"}},
      {"pipeline_model_parallel_layout", "Et*2|(t*3|)*30t*2L"},
      {"overlap_moe_expert_parallel_comm", true},
      {"moe_token_dispatcher_type", "flex"},
      {"moe_deepep_num_sms", 24},
      {"cuda_graph_impl", "transformer_engine"},
      {"cuda_graph_scope", {"moe_router", "moe_preprocess"}},
  };
  Strategy strategy;
  strategy.tp = 2;
  strategy.etp = 2;  // what the table leaves unsaid: Megatron-core's default follows TP
  strategy.pp = 8;
  REQUIRE(apply_megatron_settings(settings, strategy).ok());
  CHECK(strategy.etp == 1);
  CHECK(strategy.recompute == Recompute::selective);
  CHECK(strategy.recompute_modules == (kRecomputeLayernorm | kRecomputeMoeAct));
  CHECK(strategy.vpp == 4);  // 32 stages over PP 8
  CHECK(strategy.pipeline_layout == "Et*2|(t*3|)*30t*2L");
  CHECK(strategy.moe_a2a_overlap);
  CHECK(strategy.moe_dispatcher == MoeDispatcher::flex);
  CHECK(strategy.moe_dispatcher_sms == 24);
  // The SM count is the running backend's: a recipe sets both (Megatron-Bridge 26.04.01's B200
  // DeepSeek-V3 runs DeepEP, whose count it leaves at Megatron-core's default, 0 here for DeepEP's
  // 20, beside moe_hybridep_num_sms 16); HybridEP unset takes its own default, 16.
  Strategy deepep;
  apply_megatron_dispatcher({{"moe_token_dispatcher_type", "flex"},
                             {"moe_flex_dispatcher_backend", "deepep"},
                             {"moe_hybridep_num_sms", 16}},
                            deepep);
  CHECK(deepep.moe_dispatcher_sms == 0);
  Strategy hybridep;
  apply_megatron_dispatcher({{"moe_token_dispatcher_type", "flex"}, {"moe_flex_dispatcher_backend", "hybridep"}}, hybridep);
  CHECK(hybridep.moe_dispatcher_sms == 16);
  apply_megatron_dispatcher({{"moe_token_dispatcher_type", "flex"},
                             {"moe_flex_dispatcher_backend", "hybridep"},
                             {"moe_hybridep_num_sms", 32},
                             {"moe_deepep_num_sms", 24}},
                            hybridep);
  CHECK(hybridep.moe_dispatcher_sms == 32);
  CHECK(strategy.cuda_graph_impl == CudaGraphImpl::transformer_engine);
  CHECK(strategy.cuda_graph_modules == (kGraphMoeRouter | kGraphMoePreprocess));
  CHECK_FALSE(strategy.te_op_fuser);
  // Megatron-Bridge 26.06's full-iteration MXFP8 recipes run the experts through Transformer
  // Engine's op fuser (use_transformer_engine_op_fuser = True).
  Strategy fused;
  REQUIRE(apply_megatron_settings({{"use_transformer_engine_op_fuser", true}}, fused).ok());
  CHECK(fused.te_op_fuser);
  // The FP8 recipe and FP8 attention count where the run trains in FP8 (Megatron-Bridge's MXFP8
  // recipes of 26.06 on), not where a BF16 recipe leaves their defaults.
  Strategy mxfp8;
  REQUIRE(apply_megatron_settings({{"fp8", "e4m3"}, {"fp8_recipe", "mxfp8"}, {"fp8_dot_product_attention", true}}, mxfp8)
              .ok());
  CHECK(mxfp8.fp8_recipe == Fp8Recipe::mxfp8);
  CHECK(mxfp8.fp8_attention);
  Strategy bf16;
  REQUIRE(apply_megatron_settings({{"fp8", nullptr}, {"fp8_recipe", "tensorwise"}, {"fp8_dot_product_attention", true}},
                                  bf16)
              .ok());
  CHECK(bf16.fp8_recipe == Fp8Recipe::delayed);
  CHECK_FALSE(bf16.fp8_attention);

  // Full recomputation without a method or count: Megatron-core's uniform, one layer a chunk;
  // Megatron-FSDP's optim_grads_params shards parameters too (ZeRO-3); experts split over ETP 2.
  Strategy full;
  REQUIRE(apply_megatron_settings({{"recompute_granularity", "full"},
                                   {"expert_tensor_parallel_size", 2},
                                   {"use_megatron_fsdp", true},
                                   {"data_parallel_sharding_strategy", "optim_grads_params"}},
                                  full)
              .ok());
  CHECK(full.recompute == Recompute::full);
  CHECK(full.recompute_method == RecomputeMethod::uniform);
  CHECK(full.recompute_num_layers == 1);
  CHECK(full.zero == ZeroStage::zero3);
  CHECK(full.distributed_optimizer);
  CHECK(full.etp == 2);
  // A deprecated scope "full_iteration" is the whole-iteration graph, with no modules.
  Strategy graphed;
  REQUIRE(apply_megatron_settings({{"cuda_graph_scope", {"full_iteration"}}}, graphed).ok());
  CHECK(graphed.cuda_graph_impl == CudaGraphImpl::full_iteration);
  CHECK(graphed.cuda_graph_modules == 0);
  // fp8_param_gather gathers fp8 under the per-tensor recipes (Megatron-Bridge's FP8-CS rows:
  // "tensorwise"; NeMo's bf16_with_fp8_mixed: "delayed"); MXFP8 gathers bf16 through the gradient
  // buffer (reuse_grad_buf_for_mxfp8_param_ag), as if it were off.
  for (const auto& [recipe, gathered_in_fp8] :
       {std::pair{"tensorwise", true}, std::pair{"delayed", true}, std::pair{"mxfp8", false}}) {
    Strategy fp8;
    apply_megatron_sharding_and_offload(
        {{"fp8_param_gather", true}, {"fp8_recipe", recipe}, {"grad_reduce_in_fp32", false}}, fp8);
    CHECK_MESSAGE(fp8.fp8_param_gather == gathered_in_fp8, recipe);
    CHECK_FALSE(fp8.grad_reduce_in_fp32);
  }
  // The output layer in MXFP8 where the recipe sets model.fp8_output_proj (Megatron-Bridge's DeepSeek-V3
  // and GPT-OSS MXFP8 recipes from v0.5.0), under FP8 only.
  Strategy head;
  apply_megatron_kernels({{"fp8", "e4m3"}, {"fp8_recipe", "mxfp8"}, {"fp8_output_proj", true}}, head);
  CHECK(head.fp8_output_proj);
  Strategy bf16_head;
  apply_megatron_kernels({{"fp8", nullptr}, {"fp8_output_proj", true}}, bf16_head);
  CHECK_FALSE(bf16_head.fp8_output_proj);
  // NVFP4 (MixedPrecisionConfig.fp4 "e2m1"): its weights gathered as NVFP4 where fp4_param_gather is
  // set (Megatron-Bridge bf16_with_nvfp4_mixed from v0.4.2), else in bf16.
  Strategy nvfp4;
  apply_megatron_kernels({{"fp4", "e2m1"}, {"fp4_param_gather", true}}, nvfp4);
  CHECK(nvfp4.fp4_param_gather);
  apply_megatron_kernels({{"fp4", "e2m1"}, {"fp4_param_gather", nullptr}}, nvfp4);
  CHECK_FALSE(nvfp4.fp4_param_gather);
}

TEST_CASE("Megatron settings: the recipe's pipeline split counts the embedding and the loss as layers") {
  // Megatron-Bridge's Llama 3.1 405B GB200 recipe (nemo_recipe_settings.json, 26.04): 126 decoder
  // layers, PP 16 x VPP 8, account_for_embedding/loss_in_pipeline_split. Megatron-core splits 128
  // layers evenly, one a model chunk, and builds one decoder layer fewer on the first chunk of the
  // first rank and on the last chunk of the last (transformer_block.py get_num_layers_to_build):
  // 7, 8 and 7 decoder layers on the first, middle and last ranks.
  Strategy strategy;
  strategy.pp = 16;
  strategy.vpp = 8;
  REQUIRE(apply_megatron_settings({{"account_for_embedding_in_pipeline_split", true},
                                   {"account_for_loss_in_pipeline_split", true}},
                                  strategy)
              .ok());
  CHECK(strategy.pipeline_counts_embedding);
  CHECK(strategy.pipeline_counts_loss);
  const auto counts = stage_layer_counts(126, strategy);
  REQUIRE(counts.has_value());
  CHECK(counts->first == 7);
  CHECK(counts->middle == 8);
  CHECK(counts->last == 7);
  // Without them Megatron-core refuses 126 layers over 128 chunks; the recipes that leave them
  // unset read so.
  Strategy plain;
  plain.pp = 16;
  plain.vpp = 8;
  REQUIRE(apply_megatron_settings({{"account_for_loss_in_pipeline_split", nullptr}}, plain).ok());
  CHECK_FALSE(plain.pipeline_counts_loss);
  CHECK_FALSE(stage_layer_counts(126, plain).has_value());
}

TEST_CASE("Megatron settings: the TP overlap a run had, as Megatron-Bridge resolves it") {
  // Megatron-Bridge turns userbuffers off at setup without TP > 1 and sequence parallelism
  // (training/comm_overlap.py); the recipe settings' tp_comm_overlap_effective records what ran.
  Strategy strategy;
  strategy.tp = 2;
  strategy.sequence_parallel = true;
  CHECK(megatron_tp_comm_overlap({{"tp_comm_overlap", true}}, strategy) == true);
  CHECK(megatron_tp_comm_overlap({{"tp_comm_overlap", false}}, strategy) == false);
  CHECK(megatron_tp_comm_overlap({{"tp_comm_overlap", nullptr}}, strategy) == false);  // the recipe's None
  // Nemotron 3 Super's GB200 recipe at 26.04: TP 2 with SP, and the overlap never requested.
  CHECK(megatron_tp_comm_overlap({{"tp_comm_overlap", true}, {"tp_comm_overlap_effective", false}}, strategy) == false);
  strategy.sequence_parallel = false;
  CHECK(megatron_tp_comm_overlap({{"tp_comm_overlap", true}}, strategy) == false);
  strategy.sequence_parallel = true;
  strategy.tp = 1;
  CHECK(megatron_tp_comm_overlap({{"tp_comm_overlap", true}}, strategy) == false);
  // Settings that say nothing of it leave the run's own convention (Megatron-MoE-ModelZoo's rows).
  CHECK_FALSE(megatron_tp_comm_overlap({{"sequence_parallel", true}}, strategy).has_value());
}

TEST_CASE("Megatron settings: a module name Megatron-core does not know is an error naming it") {
  Strategy strategy;
  const Status recompute = apply_megatron_settings(
      {{"recompute_granularity", "selective"}, {"recompute_modules", {"core_attn", "attention"}}}, strategy);
  REQUIRE_FALSE(recompute.ok());
  CHECK(recompute.error().key == "recompute_modules");
  CHECK(recompute.error().message == "unknown module \"attention\"");
  const Status graphs = apply_megatron_settings({{"cuda_graph_scope", {"router"}}}, strategy);
  REQUIRE_FALSE(graphs.ok());
  CHECK(graphs.error().key == "cuda_graph_scope");
  const Status layout = apply_megatron_settings({{"pipeline_model_parallel_layout", "Et|(t|x"}}, strategy);
  REQUIRE_FALSE(layout.ok());
  CHECK(layout.error().key == "pipeline_model_parallel_layout");
}

}  // namespace
}  // namespace meshplan
