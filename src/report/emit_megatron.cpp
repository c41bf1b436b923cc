// Megatron-LM pretrain_gpt.py launch (megatron/training/arguments.py names) under torchrun: the
// model as the Hugging Face config builds it (megatron_model_args), the plan's layout, and the
// switches behind the time estimate's assumptions.
#include <fmt/format.h>

#include <algorithm>

#include "report/launch.hpp"
#include "report/megatron_model_args.hpp"
#include "strategy/fp8_recipe.hpp"
#include "strategy/moe_dispatcher.hpp"

namespace meshplan {
namespace {

std::string gpu_names(const Cluster& cluster) {
  std::string names;
  for (const NodeGroup& g : cluster.groups) names += (names.empty() ? "" : " + ") + g.gpu.id;
  return names;
}

void parallel_args(const LaunchSpec& launch, std::vector<std::string>& args) {
  const ModelSpec& m = launch.model;
  const Strategy& s = launch.strategy;
  auto arg = [&](const std::string& name, const std::string& value = "") {
    args.push_back(value.empty() ? name : name + " " + value);
  };
  arg("--seq-length", std::to_string(launch.workload.seq_len));
  arg("--tensor-model-parallel-size", std::to_string(s.tp));
  arg("--pipeline-model-parallel-size", std::to_string(s.pp));
  // arguments.py: at most one of --num-layers-per-virtual-pipeline-stage and
  // --pipeline-model-parallel-layout (which sets VPP itself).
  if (!s.pipeline_layout.empty()) {
    arg("--pipeline-model-parallel-layout", "\"" + s.pipeline_layout + "\"");
  } else if (s.vpp > 1) {
    // arguments.py counts the embedding and the loss layers it is told to before the division.
    const std::int64_t counted = m.num_layers + (s.pipeline_counts_embedding ? 1 : 0) + (s.pipeline_counts_loss ? 1 : 0);
    arg("--num-layers-per-virtual-pipeline-stage", std::to_string(counted / (s.pp * s.vpp)));
  }
  if (s.first_stage_layers > 0) arg("--decoder-first-pipeline-num-layers", std::to_string(s.first_stage_layers));
  if (s.last_stage_layers > 0) arg("--decoder-last-pipeline-num-layers", std::to_string(s.last_stage_layers));
  if (s.pipeline_counts_embedding) arg("--account-for-embedding-in-pipeline-split");
  if (s.pipeline_counts_loss) arg("--account-for-loss-in-pipeline-split");
  arg("--context-parallel-size", std::to_string(s.cp));
  if (s.ep > 1) {
    arg("--expert-model-parallel-size", std::to_string(s.ep));
    arg("--expert-tensor-parallel-size", std::to_string(s.etp));
  }
  // Megatron-core's default dispatcher is "allgather" (transformer_config.py; arguments.py builds
  // these flags from its fields): the launch says which one the plan was costed with (flex: DeepEP
  // by default, --moe-flex-dispatcher-backend).
  if (m.moe) arg("--moe-token-dispatcher-type", std::string(moe_dispatcher_name(s.moe_dispatcher)));
  if (m.moe && s.moe_dispatcher == MoeDispatcher::flex && s.moe_dispatcher_sms > 0) {
    arg("--moe-flex-dispatcher-num-sms", std::to_string(s.moe_dispatcher_sms));
  }
  if (s.sequence_parallel) arg("--sequence-parallel");
  if (s.distributed_optimizer) arg("--use-distributed-optimizer");
  if (s.zero == ZeroStage::zero3) {
    // Megatron-FSDP (arguments.py: it keeps the distributed optimizer, wants checkpoints in
    // fsdp_dtensor and CUDA_DEVICE_MAX_CONNECTIONS unset or > 1).
    arg("--use-megatron-fsdp");
    arg("--data-parallel-sharding-strategy", "optim_grads_params");
    arg("--ckpt-format", "fsdp_dtensor");
  }
  // The time estimate's overlaps (cost/time/parallel_comm.cpp): gradient reduce-scatter / all-reduce
  // in buckets during the backward, parameter all-gather during the next forward (the latter
  // needs the distributed optimizer: arguments.py validate_args), TP comm overlap (userbuffers).
  if (launch.time.overlap_grad_reduce) arg("--overlap-grad-reduce");
  if (launch.time.overlap_param_gather && s.distributed_optimizer) arg("--overlap-param-gather");
  if (launch.time.tp_comm_overlap && s.tp > 1 && s.sequence_parallel) arg("--tp-comm-overlap");
  arg("--micro-batch-size", std::to_string(s.micro_batch));
  arg("--global-batch-size", std::to_string(launch.workload.global_batch));
  if (s.recompute == Recompute::selective) {
    arg("--recompute-granularity", "selective");
    // arguments.py: --recompute-modules takes the module names space-separated (nargs='*').
    if (s.recompute_modules != kDefaultRecomputeModules) {
      std::string names = recompute_module_names(s.recompute_modules);
      std::replace(names.begin(), names.end(), ',', ' ');
      arg("--recompute-modules", names);
    }
  }
  if (s.recompute == Recompute::full) {
    arg("--recompute-granularity", "full");
    arg("--recompute-method", s.recompute_method == RecomputeMethod::block ? "block" : "uniform");
    arg("--recompute-num-layers", std::to_string(s.recompute_num_layers));
  }
  // The combined 1F1B schedule that hides the EP all-to-all (moe/README.md "EP A2A Overlap").
  if (s.moe_a2a_overlap) arg("--overlap-moe-expert-parallel-comm");
  // Megatron-core CUDA graphs (moe/README.md "CUDA Graph"); --cuda-graph-modules takes nargs='+'.
  // arguments.py: the whole-iteration graph needs --no-check-for-nan-in-loss-and-grad.
  if (s.cuda_graph_impl != CudaGraphImpl::none) {
    arg("--cuda-graph-impl", cuda_graph_impl_name(s.cuda_graph_impl));
    if (s.cuda_graph_impl == CudaGraphImpl::full_iteration) arg("--no-check-for-nan-in-loss-and-grad");
    std::string modules = cuda_graph_module_names(s.cuda_graph_modules);
    std::replace(modules.begin(), modules.end(), ',', ' ');
    if (!modules.empty()) arg("--cuda-graph-modules", modules);
  }
  // arguments.py: --cpu-offloading-num-layers > 0 turns cpu_offloading on.
  if (s.activation_offload_layers > 0) {
    arg("--cpu-offloading-num-layers",
        std::to_string(std::min<std::int64_t>(s.activation_offload_layers, m.num_layers - 1)));
  }
  if (s.offload.optimizer) {
    arg("--optimizer-cpu-offload");
    arg("--optimizer-offload-fraction", fmt::format("{:g}", s.offload.optimizer_fraction));
  }
  if (s.compute_dtype == Dtype::fp8) {
    // FP8 GEMMs with bf16 elsewhere: Megatron-LM examples/llama/train_llama3_8b_h100_fp8.sh (hybrid,
    // delayed); the block-scaled recipes in e4m3, as Megatron-Bridge's MXFP8 and blockwise configs
    // set them (training/mixed_precision.py).
    arg("--bf16");
    const bool block_scaled = s.fp8_recipe == Fp8Recipe::mxfp8 || s.fp8_recipe == Fp8Recipe::blockwise;
    arg("--fp8-format", block_scaled ? "e4m3" : "hybrid");
    arg("--fp8-recipe", std::string(fp8_recipe_name(s.fp8_recipe)));
    if (s.fp8_param_gather) arg("--fp8-param-gather");
    if (s.fp8_attention) arg("--fp8-dot-product-attention");
    if (s.fp8_output_proj) arg("--fp8-output-proj");
  } else if (s.compute_dtype == Dtype::fp4) {
    // NVFP4 GEMMs with bf16 elsewhere (Megatron-core TransformerConfig.fp4 / fp4_recipe / fp4_param;
    // Megatron-Bridge bf16_with_nvfp4_mixed).
    arg("--bf16");
    arg("--fp4-format", "e2m1");
    arg("--fp4-recipe", "nvfp4");
    if (s.fp4_param_gather) arg("--fp4-param-gather");
  } else {
    arg(s.compute_dtype == Dtype::fp16 ? "--fp16" : "--bf16");
  }
  if (s.bf16_layer_share(m.num_layers, static_cast<double>(m.num_layers)) > 0) {
    // Megatron-core first_last_layers_bf16: these layers outside the fp8 / NVFP4 autocast.
    arg("--first-last-layers-bf16");
    arg("--num-layers-at-start-in-bf16", std::to_string(s.bf16_first_layers));
    arg("--num-layers-at-end-in-bf16", std::to_string(s.bf16_last_layers));
  }
}

// Data, tokenizer, checkpoints and optimizer: variables with the defaults of Megatron-LM's
// examples/llama/train_llama3_8b_h100_fp8.sh (AdamW, cosine decay, warm-up in samples).
constexpr const char* kRunArgs[] = {
    "--tokenizer-type HuggingFaceTokenizer", "--tokenizer-model \"$TOKENIZER_MODEL\"",
    "--data-path \"$DATA_PATH\"", "--split 99,1,0",
    "--save \"$CHECKPOINT_DIR\"", "--load \"$CHECKPOINT_DIR\"", "--save-interval \"$SAVE_INTERVAL\"",
    "--train-samples \"$TRAIN_SAMPLES\"", "--lr-warmup-samples \"$LR_WARMUP_SAMPLES\"",
    "--lr-decay-samples \"$TRAIN_SAMPLES\"", "--lr \"$LR\"", "--min-lr \"$MIN_LR\"", "--lr-decay-style cosine",
    "--weight-decay 0.1", "--adam-beta1 0.9", "--adam-beta2 0.95", "--clip-grad 1.0",
    "--log-interval 1", "--eval-interval 100", "--eval-iters 32"};

}  // namespace

std::string emit_megatron(const LaunchSpec& launch) {
  const ModelSpec& m = launch.model;
  const NodeGroup& group = launch.cluster.groups.front();
  const MegatronModelArgs model =
      megatron_model_args(m, launch.strategy.tp, launch.workload.seq_len,
                          launch.strategy.train_mtp ? launch.strategy.mtp_depths_run(m.num_mtp_layers) : 0);
  std::vector<std::string> args = model.args;
  parallel_args(launch, args);
  args.insert(args.end(), std::begin(kRunArgs), std::end(kRunArgs));
  std::string text = fmt::format(
      "#!/usr/bin/env bash\n"
      "# Megatron-LM launch generated by `meshplan plan` for {} on {} GPUs ({}).\n"
      "# Run on every node with NODE_RANK and MASTER_ADDR set, from a Megatron-LM checkout.\n",
      m.name, launch.cluster.total_gpus(), gpu_names(launch.cluster));
  if (launch.cluster.heterogeneous()) {
    // Megatron-core orders ranks tp-cp-ep-dp-pp (parallel_state.initialize_model_parallel): the
    // pipeline stage is the outermost, so stage k holds the k-th block of nodes by NODE_RANK.
    text += "# Pipeline stage k runs on node group k; give the nodes these NODE_RANKs:\n";
    int node = 0;
    for (std::size_t k = 0; k < launch.cluster.groups.size(); ++k) {
      const NodeGroup& g = launch.cluster.groups[k];
      text += fmt::format("#   stage {}: NODE_RANK {}-{} on the {} nodes\n", k, node, node + g.nodes - 1, g.gpu.id);
      node += g.nodes;
    }
  }
  for (const std::string& note : model.notes) text += "# Not as in config.json: " + note + ".\n";
  if (launch.strategy.offload.params || launch.strategy.offload.grads) {
    text += "# pretrain_gpt.py has no parameter/gradient offload: that part of the plan applies to verl only.\n";
  }
  text += fmt::format(
      "set -euo pipefail\n\n"
      "DATA_PATH=${{DATA_PATH:-data/{0}_text_document}}  # preprocessed with tools/preprocess_data.py\n"
      "TOKENIZER_MODEL=${{TOKENIZER_MODEL:-{1}}}\n"
      "CHECKPOINT_DIR=${{CHECKPOINT_DIR:-checkpoints/{0}}}\n"
      "SAVE_INTERVAL=${{SAVE_INTERVAL:-1000}}\n"
      "TRAIN_SAMPLES=${{TRAIN_SAMPLES:-1949218748}}\n"
      "LR_WARMUP_SAMPLES=${{LR_WARMUP_SAMPLES:-3906252}}\n"
      "LR=${{LR:-0.00015}}\n"
      "MIN_LR=${{MIN_LR:-0.00001}}\n\n",
      m.name, launch.model_path);
  text += fmt::format("torchrun --nnodes {} --nproc-per-node {} --node-rank \"$NODE_RANK\" \\\n"
                      "    --master-addr \"$MASTER_ADDR\" --master-port 6000 \\\n    {}",
                      launch.cluster.total_gpus() / group.gpus_per_host(), group.gpus_per_host(),  // per host
                      builds_hybrid_model(m) ? "pretrain_hybrid.py" : "pretrain_gpt.py");
  for (const std::string& a : args) text += " \\\n    " + a;
  return text + "\n";
}

}  // namespace meshplan
