#include "cost/calibration/calibration_runs.hpp"

#include <nlohmann/json.hpp>

#include "cost/calibration/calibration_cluster.hpp"
#include "cost/calibration/megatron_settings.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "model/param_count.hpp"

#include <cstring>
#include <optional>

namespace meshplan {
namespace {

using nlohmann::json;

/// What each source's software did, from the source's own text (no per-row settings).
struct SourceConventions {
  const char* id_prefix;
  PublishedMetric metric;
  Dtype default_dtype;
  Recompute recompute;
  bool flash_attention;
  bool overlaps;  ///< TP-comm, grad-reduce and param-gather overlap
  bool distributed_optimizer;
  bool grad_reduce_in_fp32;  ///< Megatron main grads in fp32 (false: in 16 bits)
  bool zero3_bottleneck_gather = false;  ///< TimeOptions::zero3_bottleneck_gather (DeepSpeed 2021)
  /// The source's FP8 mixes set fp8_param_gather (Strategy::fp8_param_gather).
  bool fp8_param_gather = false;
  /// Transformer Engine's TP linears: their backward collectives run async (TimeOptions::tp_backward_async).
  bool tp_backward_async = true;
};

constexpr SourceConventions kSources[] = {
    // Narayanan et al. 2021 (SC21): fp16, activation recomputation (FLOPs by Eq. 3 include it),
    // unfused softmax, no DP/TP overlap, no distributed optimizer (it came in 2022), Megatron-LM's
    // own TP linears, whose collectives the backward waited on.
    {"narayanan2021", PublishedMetric::hardware_tflops_per_gpu, Dtype::fp16, Recompute::full, false, false, false,
     true, true, false, false},
    // Megatron-LM README H100 weak scaling (2024): bf16 (MFU = TFLOP/s / 989), model FLOPs,
    // --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap, TE fused attention.
    {"megatron_readme", PublishedMetric::model_tflops_per_gpu, Dtype::bf16, Recompute::none, true, true, true, true},
    // NeMo / Megatron-Bridge performance summary: tokens/s/GPU, TE, overlaps of the recipes; the
    // recipes keep main grads in 16 bits (scripts/performance/configs/*/*_llm_pretrain.py at v0.2.0-v0.5.x
    // and perf_recipes/_common.py at v0.6.0: ddp.grad_reduce_in_fp32 = False; every row of
    // tests/fixtures/nemo_recipe_settings.json).
    // Their FP8 mixes gather the weights in fp8: NeMo 2.0's and Megatron-Bridge's bf16_with_fp8_mixed
    // (fp8_params / fp8_param_gather = True; training/mixed_precision.py), the perf recipes' current-
    // scaling and MXFP8 mixes alike (fp8_param_gather true in every FP8 row of
    // tests/fixtures/nemo_recipe_settings.json).
    {"nemo_bridge", PublishedMetric::tokens_per_second_per_gpu, Dtype::bf16, Recompute::none, true, true, true, false,
     false, true},
    // Megatron-MoE-ModelZoo's benchmark tables and Megatron-LM's DeepSeek-V3 GB200 guide: Megatron-LM
    // launches (sbatch_benchmarking.sh: TE, --overlap-grad-reduce --overlap-param-gather, distributed
    // optimizer, --tp-comm-overlap for BF16); main grads in fp32 (megatron/training/arguments.py: bf16
    // with fp32 main_grads_dtype sets accumulate_allreduce_grads_in_fp32). tokens/s as the fixture
    // derives it from the step time or the published TFLOP/s (tools/megatron_flops.py).
    {"megatron_moe_modelzoo", PublishedMetric::tokens_per_second_per_gpu, Dtype::bf16, Recompute::none, true, true, true,
     true},
    // NeMo Automodel's performance summary (docs/performance-summary.md): PyTorch FSDP2 (prefetching,
    // NCCL collectives) over Transformer Engine's attention, linear and norm layers, DeepEP; no
    // recomputation unless the config sets activation_checkpointing; the MoE parallelizer reduces
    // gradients in fp32 (moe/parallelizer.py MixedPrecisionPolicy; a row's settings say otherwise).
    {"nemo_automodel", PublishedMetric::tokens_per_second_per_gpu, Dtype::bf16, Recompute::none, true, true, true, true},
};

bool contains(const std::string& text, const char* needle) { return text.find(needle) != std::string::npos; }

/// Rows that name a published model without giving its shape, and the preset with that shape.
constexpr std::pair<const char*, const char*> kNamedModels[] = {
    {"Qwen3_30B_a3B", "qwen3-30b-a3b"},
    {"Qwen3_235B_a22B", "qwen3-235b-a22b"},
    {"GPT OSS 120B", "gpt-oss-120b"},
    {"DeepSeekV3", "deepseek-v3"},
    {"Nemotron_3_Nano", "nvidia-nemotron-3-nano-30b-a3b-bf16"},
    {"Nemotron_3_Super", "nvidia-nemotron-3-super-120b-a12b-bf16"},
    // NeMo Automodel's names.
    {"Qwen3 MoE 30B", "qwen3-30b-a3b"},
    {"GPT-OSS 20B", "gpt-oss-20b"},
    {"GPT-OSS 120B", "gpt-oss-120b"},
    {"DeepSeek V3 671B", "deepseek-v3"},
    {"Llama3 70B", "llama-3.1-70b"},
    // Megatron-Bridge's model verification cards.
    {"Qwen3-8B", "qwen3-8b"},
    {"Moonlight-16B-A3B", "moonlight-16b-a3b-instruct"},
};

std::optional<ModelSpec> preset_model(const std::string& model_name) {
  for (const auto& [name, preset] : kNamedModels) {
    if (model_name != name) continue;
    const auto config = find_model_preset_config(preset);
    if (!config) return std::nullopt;
    auto model = parse_model_config(*config, preset);
    if (model) return std::move(model.value());
  }
  return std::nullopt;
}

/// One row, or the reason it cannot be built.
Result<CalibrationRun> build_run(const json& row, const EfficiencyConstants& constants) {
  CalibrationRun run;
  run.id = json_string(row, "id");
  const SourceConventions* source = source_of(run.id, kSources);
  if (source == nullptr) return Error{"", 0, run.id, "unknown source (no conventions recorded for it)"};
  const json& arch = row.contains("arch") ? row["arch"] : json::object();
  const auto layers = json_int(arch, "num_layers");
  const auto hidden = json_int(arch, "hidden_size");
  const auto heads = json_int(arch, "num_attention_heads");
  const auto vocab = json_int(arch, "vocab_size");
  const auto seq = json_int(arch, "seq_len");
  const std::string name = json_string(row, "model_name");
  if (auto preset = preset_model(name)) {
    // A published model without its shape in the row (NeMo's MoE rows): the preset has it.
    if (!seq) return Error{"", 0, run.id, "sequence length not published"};
    run.model = std::move(*preset);
  } else {
    if (!layers || !hidden || !heads || !vocab || !seq) return Error{"", 0, run.id, "model shape not published"};
    if (arch.contains("moe") && !arch["moe"].is_null()) return Error{"", 0, run.id, "MoE shape not recorded"};
    const std::int64_t ffn = json_int(arch, "ffn_hidden_size").value_or(4 * *hidden);
    if (contains(name, "LLAMA")) {
      run.model = llama_model_spec(*layers, *hidden, *heads, json_int(arch, "num_kv_heads").value_or(*heads), ffn, *vocab);
    } else {
      run.model = gpt_model_spec(*layers, *hidden, *heads, ffn, *vocab, *seq);
    }
  }

  // Selene / DGX A100, DGX H100 / B200 / B300: 8 GPUs and 8 NICs a node; GB200 / GB300 NVL72:
  // the rack's NVLink domain.
  auto gpu = calibration_gpu(json_string(row, "gpu_type"));
  if (!gpu) return Error{"", 0, run.id, gpu.error().message};
  const auto gpus = json_int(row, "num_gpus");
  if (!gpus) return Error{"", 0, run.id, "num_gpus not published"};
  auto nodes = calibration_nodes(*gpu, *gpus);
  if (!nodes) return Error{"", 0, run.id, nodes.error().message};
  run.cluster.groups.push_back(std::move(nodes.value()));

  Strategy& strategy = run.strategy;
  const std::string sharding = json_string(row, "optimizer_sharding");
  const auto dp = json_int(row, "dp");
  strategy.cp = static_cast<int>(json_int(row, "cp").value_or(1));
  if (sharding == "ZeRO-3") {
    strategy.backend = Backend::fsdp;  // DeepSpeed ZeRO-3 around Megatron's layers (Narayanan 2021 Table 2)
    strategy.zero = ZeroStage::zero3;
  } else if (sharding == "FSDP") {
    // Megatron-Bridge's FSDP column: Megatron-FSDP (ddp.use_megatron_fsdp) with its default
    // data_parallel_sharding_strategy optim_grads_params, on Megatron-core's model code; Automodel's
    // FSDP2 over Transformer Engine's layers costs the same (a gather per layer, prefetched).
    strategy.zero = ZeroStage::zero3;
  }
  if (auto tp = json_int(row, "tp"); tp && json_int(row, "pp")) {
    strategy.tp = static_cast<int>(*tp);
    strategy.pp = static_cast<int>(*json_int(row, "pp"));
  } else if (strategy.zero == ZeroStage::zero3) {
    strategy.tp = strategy.pp = 1;  // "ZeRO-3 without model parallelism" (Narayanan 2021 Table 2)
  } else if (dp) {
    // Narayanan 2021 Table 2 gives only M = t·p: t fills one 8-GPU node, p = M/8 (§5.4, 3.3).
    const std::int64_t model_parallel = *gpus / *dp;
    strategy.tp = static_cast<int>(std::min<std::int64_t>(8, model_parallel));
    strategy.pp = static_cast<int>(model_parallel / strategy.tp);
  } else {
    return Error{"", 0, run.id, "parallel layout not published"};
  }
  strategy.dp = static_cast<int>(*gpus / (strategy.tp * strategy.pp * strategy.cp));
  strategy.vpp = static_cast<int>(std::max<std::int64_t>(1, json_int(row, "vpp").value_or(1)));
  strategy.ep = static_cast<int>(json_int(row, "ep").value_or(1));
  strategy.micro_batch = static_cast<int>(json_int(row, "micro_batch").value_or(1));
  strategy.sequence_parallel = source->overlaps && strategy.tp > 1;
  strategy.recompute = source->recompute;
  strategy.distributed_optimizer = source->distributed_optimizer;
  strategy.grad_reduce_in_fp32 = source->grad_reduce_in_fp32;
  const std::string precision = json_string(row, "precision");
  strategy.compute_dtype = contains(precision, "FP8") ? Dtype::fp8 : source->default_dtype;
  if (precision == "NVFP4") strategy.compute_dtype = Dtype::fp4;
  // MXFP8 weights are gathered in bf16 through the gradient buffer (Megatron-core
  // reuse_grad_buf_for_mxfp8_param_ag), the per-tensor recipes' in fp8. NVFP4 ones in bf16 unless
  // the recipe sets fp4_param_gather (a field from Megatron-Bridge v0.6.0: megatron_settings.cpp).
  strategy.fp8_param_gather = source->fp8_param_gather && !contains(precision, "MXFP8");

  run.workload.kind = WorkloadKind::pretrain;
  run.workload.seq_len = *seq;
  const auto batch = json_int(row, "global_batch");
  if (!batch) return Error{"", 0, run.id, "global batch not published"};
  run.workload.global_batch = *batch;

  run.options.constants = constants;
  run.options.flash_attention = source->flash_attention;
  run.options.tp_comm_overlap = source->overlaps;
  run.options.tp_backward_async = source->tp_backward_async;
  run.options.overlap_grad_reduce = source->overlaps;
  run.options.overlap_param_gather = source->overlaps;
  // Megatron-Bridge's 25.11 H100 MoE recipes set moe_a2a_overlap=True
  // (scripts/performance/configs/qwen/qwen3_workload_base_configs.py at 9a0f0fe); no other
  // source runs MoE models. Megatron-core takes it only with EP and, when PP > 1, interleaving
  // (TransformerConfig.__post_init__: "If enabling EP A2A overlap, virtual_pipeline_model_parallel_size
  // must be specified when pipeline_model_parallel_size > 1"): GPT-OSS-120B's PP 4 rows run without.
  run.strategy.moe_a2a_overlap = source->overlaps && run.model.moe.has_value() && strategy.ep > 1 &&
                                 (strategy.pp == 1 || strategy.vpp > 1);
  // ZeRO-3 / "FSDP" rows ran Megatron's model code (DeepSpeed ZeRO-3 around Megatron layers in
  // Narayanan 2021; Megatron-FSDP in NeMo), not Hugging Face modeling.
  run.options.hf_modeling = false;
  run.options.zero3_bottleneck_gather = source->zero3_bottleneck_gather;
  // The tables' MoE rows are force-balanced benchmarks; a row measured dropless says so.
  run.options.moe_dropless_imbalance = !row.value("moe_router_force_load_balancing", true);
  run.forced_balance_twin = json_string(row, "forced_balance_twin");
  // A row that carries its launch's Megatron-core settings (Megatron-MoE-ModelZoo's rows) runs
  // with them; Megatron-Bridge's rows take their recipes' from nemo_recipe_settings.json, in the tests.
  if (row.contains("settings") && row["settings"].is_object()) {
    const Status applied = apply_megatron_settings(row["settings"], run.strategy);
    if (!applied.ok()) return Error{"", 0, run.id, "settings: " + applied.error().to_string()};
    if (const auto overlap = megatron_tp_comm_overlap(row["settings"], run.strategy)) {
      run.options.tp_comm_overlap = *overlap;
    }
  }

  const json& measured = row.contains("measured") ? row["measured"] : json::object();
  run.metric = source->metric;
  const char* key = run.metric == PublishedMetric::tokens_per_second_per_gpu ? "tokens_per_sec_per_gpu" : "tflops_per_gpu";
  const auto value = json_number(measured, key);
  if (!value) return Error{"", 0, run.id, std::string("measured.") + key + " not published"};
  run.published = *value;
  return run;
}

/// What the GPT and Llama shapes share: the name "<family>-<layers>x<hidden>" and every layer dense.
ModelSpec dense_model_base(const char* family, const char* model_type, std::int64_t layers,
                           std::int64_t hidden, std::int64_t vocab) {
  ModelSpec model;
  model.name = std::string(family) + "-" + std::to_string(layers) + "x" + std::to_string(hidden);
  model.model_type = model_type;
  model.hidden_size = hidden;
  model.num_layers = layers;
  model.num_dense_layers = layers;
  model.vocab_size = vocab;
  return model;
}

}  // namespace

ModelSpec gpt_model_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t ffn,
                         std::int64_t vocab, std::int64_t seq_len) {
  ModelSpec model = dense_model_base("gpt", "gpt2", layers, hidden, vocab);
  model.max_position_embeddings = seq_len;
  model.tie_word_embeddings = true;
  model.norm = NormKind::layer_norm;
  model.position = PositionKind::learned;
  model.attention.num_heads = model.attention.num_kv_heads = heads;
  model.attention.head_dim = hidden / heads;
  model.attention.qkv_bias = model.attention.o_bias = true;
  model.dense_mlp = MlpSpec{ffn, false, true};
  count_params(model);
  return model;
}

ModelSpec llama_model_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t kv_heads,
                           std::int64_t ffn, std::int64_t vocab) {
  ModelSpec model = dense_model_base("llama", "llama", layers, hidden, vocab);
  model.norm = NormKind::rms_norm;
  model.position = PositionKind::rope;
  model.attention.num_heads = heads;
  model.attention.num_kv_heads = kv_heads;
  model.attention.head_dim = hidden / heads;
  model.dense_mlp = MlpSpec{ffn, true, false};
  count_params(model);
  return model;
}

Result<CalibrationSet> read_calibration_runs(std::string_view json_text, const std::string& file_name,
                                             const EfficiencyConstants& constants) {
  return read_calibration_rows<CalibrationRun>(json_text, file_name, "published runs",
                                               [&](const json& row) { return build_run(row, constants); });
}

double predicted_metric(const CalibrationRun& run, const TimeEstimate& estimate) {
  switch (run.metric) {
    case PublishedMetric::hardware_tflops_per_gpu: return estimate.hardware_tflops_per_gpu;
    case PublishedMetric::model_tflops_per_gpu: return estimate.model_tflops_per_gpu;
    case PublishedMetric::tokens_per_second_per_gpu: return estimate.tokens_per_second_per_gpu;
  }
  return 0.0;
}

}  // namespace meshplan
