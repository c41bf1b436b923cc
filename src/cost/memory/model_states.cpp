#include "cost/memory/model_states.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cost/memory/lora_params.hpp"
#include "cost/memory/memory_trace.hpp"
#include "model/mtp_module.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

// PyTorch FSDP as verl runs it (workers/fsdp_workers.py _build_model_optimizer, engine/fsdp.yaml
// model_dtype: fp32): the sharded parameter is the fp32 master itself, gradients are reduced and
// kept in its dtype (MixedPrecision reduce_dtype fp32), AdamW's m and v follow it; the bf16
// copies exist only while a unit is gathered. 4 + 4 + 8 = the ZeRO paper's 16 B/param (§3.1),
// split as FSDP holds it, which matters in phases that leave the optimizer offloaded.
constexpr double kFsdpParamBytes = 4;
constexpr double kFsdpGradBytes = 4;
constexpr double kAdamMomentsBytes = 8;   // fp32 Adam m and v
constexpr double kMasterWeightBytes = 4;  // fp32 master copy (none when training in fp32)

double weight_bytes(const Strategy& s) { return s.compute_dtype == Dtype::fp32 ? 4.0 : 2.0; }
double master_bytes(const Strategy& s) { return s.compute_dtype == Dtype::fp32 ? 0.0 : kMasterWeightBytes; }

std::int64_t moe_layer_count(const ModelSpec& model) { return model.moe ? model.moe->num_moe_layers : 0; }

int shard_group(const Strategy& s) { return s.fsdp_shard_size > 0 ? s.fsdp_shard_size : s.dp; }

// Megatron distributed optimizer: dense states over the DP x CP group, expert states over the
// expert-data-parallel group world / (ETP x EP x PP) (formulas.md; Megatron-core parallel_state).
double dense_optimizer_group(const Strategy& s) {
  return s.distributed_optimizer ? double(s.dp) * s.cp : 1.0;
}
double expert_optimizer_group(const Strategy& s) {
  return s.distributed_optimizer ? double(s.world_size()) / (double(s.etp) * s.ep * s.pp) : 1.0;
}

// LoRA adapters on the decoder layers of one rank (Megatron: TP-sharded like their base layer).
double rank_lora_params(const ModelSpec& model, const Strategy& s, PipelineStage stage) {
  if (s.lora.rank <= 0) return 0;
  if (s.backend == Backend::fsdp) return lora_params_total(model, s.lora);
  const RankParams all = rank_params(model, s, stage);
  const double base_layers = all.total();
  const double model_layers = static_cast<double>(model.total_params);
  return model_layers > 0 ? lora_params_total(model, s.lora) * (base_layers / model_layers) : 0;
}

// Megatron's CPU optimizer: optimizer_fraction of the states (and their master weights) on the host.
void move_optimizer_fraction_to_host(const Strategy& s, ModelStateBytes& b) {
  const double moved = b.optimizer * std::clamp(s.offload.optimizer_fraction, 0.0, 1.0);
  b.optimizer -= moved;
  b.host_offloaded += moved;
}

void apply_training_offload(const Strategy& s, ModelStateBytes& b) {
  if (s.offload.optimizer) move_optimizer_fraction_to_host(s, b);
  if (s.backend != Backend::fsdp) return;  // Megatron trains with its weights and grads on the GPU
  if (s.offload.params) {
    b.host_offloaded += b.weights;
    b.weights = 0;
  }
  if (s.offload.grads) {
    b.host_offloaded += b.gradients;
    b.gradients = 0;
  }
}

// One decoder layer's parameters on a rank (the largest kind): attention and dense MLP split by TP,
// routed experts by EP x ETP.
double largest_rank_layer_params(const ModelSpec& model, const Strategy& s) {
  const double common = double(model.attention_params_per_layer) / s.tp + double(model.norm_params_per_layer);
  double largest = model.num_layers > moe_layer_count(model) ? common + double(model.dense_mlp_params_per_layer) / s.tp
                                                             : 0.0;
  if (model.moe) {
    const MoeSpec& m = *model.moe;
    largest = std::max(largest, common + double(m.shared_expert_params) / s.tp +
                                    double(m.router_params + m.latent_projection_params) +
                                    double(m.num_experts) * double(m.routed_expert_params) / (double(s.ep) * s.etp));
  }
  return largest;
}

ModelStateBytes megatron_states(const ModelSpec& model, const Strategy& s, PipelineStage stage) {
  const RankParams p = rank_params(model, s, stage);
  ModelStateBytes b;
  const double optimizer_per_param = master_bytes(s) + s.adam_moment_bytes;
  const double sharded = optimizer_params_per_rank(p, s);
  // Megatron-FSDP (DistributedDataParallelConfig.use_megatron_fsdp; data_parallel_sharding_strategy
  // optim_grads = ZeroStage::zero2, optim_grads_params = zero3): the main grads, and under zero3
  // the weights, sharded over the distributed optimizer's groups. A layer's weights are gathered
  // for its forward and its backward with the next layer prefetched, and its gradients are kept
  // whole until they are reduce-scattered (megatron/core/distributed/fsdp: double-buffered units).
  const bool shard_weights = s.zero == ZeroStage::zero3;
  const bool shard_grads = s.zero >= ZeroStage::zero2;
  b.weights = weight_bytes(s) * (shard_weights ? sharded : p.total());
  // Strategy::fp8_params: the layers' weight matrices at 1 byte (Transformer Engine fp8_model_init).
  if (s.fp8_params && s.compute_dtype == Dtype::fp8 && !shard_weights) {
    b.weights -= (weight_bytes(s) - 1.0) * p.layer_matrices;
  }
  // Strategy::fp4_param_gather (Megatron-core fp4_param): the layers' weight matrices built as NVFP4
  // tensors with no 16-bit copy, each holding a row-wise and a column-wise copy of 4-bit values and
  // E4M3 scales (megatron/core/fp4_utils.py quantize_nvfp4_param_shard at d98e8a64d casts the fp32
  // master shard to both; the grad buffer keeps the packed row-wise bytes, the tensor its scales and
  // column-wise copy): 2 x kNvfp4BytesPerElement = 1.125 bytes a weight.
  if (s.fp4_param_gather && s.compute_dtype == Dtype::fp4 && s.backend == Backend::megatron && !shard_weights) {
    b.weights -= (weight_bytes(s) - 2.0 * kNvfp4BytesPerElement) * p.layer_matrices;
  }
  if (shard_weights) {
    b.gathered = (2.0 * weight_bytes(s) + s.megatron_grad_bytes()) * largest_rank_layer_params(model, s);
  }
  if (s.lora.rank > 0) {
    const double adapters = rank_lora_params(model, s, stage);
    b.lora_adapters =
        adapters * (weight_bytes(s) + s.megatron_grad_bytes() + optimizer_per_param / dense_optimizer_group(s));
    return b;
  }
  b.gradients = s.megatron_grad_bytes() * (shard_grads ? sharded : p.total());
  b.optimizer = optimizer_per_param * sharded;
  return b;
}

ModelStateBytes zero_states(const ModelSpec& model, const Strategy& s) {
  const double params = static_cast<double>(model.total_params + (s.train_mtp ? model.params.mtp : 0));
  const double group = shard_group(s);
  const int stage = static_cast<int>(s.zero);
  ModelStateBytes b;
  b.weights = kFsdpParamBytes * params / (stage >= 3 ? group : 1.0);
  if (stage >= 3) {
    // The root unit (embedding, LM head) stays gathered; decoder layers are gathered one at a
    // time with the next one prefetched (FSDP forward/backward prefetch).
    const double root = static_cast<double>(model.params.embedding + model.params.lm_head);
    b.gathered = weight_bytes(s) * (root + 2.0 * largest_layer_params(model));
  }
  if (s.lora.rank > 0) {
    // The frozen base at 2 B/param although verl loads it in model_dtype (fp32) as well: with
    // 4 B the 7B tuned LoRA launch (examples/tuning) errs at the batch sizes its authors ran
    // (96, 100); docs/memory-model.md "LoRA base dtype" keeps the evidence.
    b.weights = weight_bytes(s) * params / (stage >= 3 ? group : 1.0);
    const double adapters = lora_params_total(model, s.lora);
    b.lora_adapters =
        adapters * (kFsdpParamBytes + kFsdpGradBytes + kAdamMomentsBytes) / (stage >= 1 ? group : 1.0);
    return b;
  }
  b.gradients = kFsdpGradBytes * params / (stage >= 2 ? group : 1.0);
  b.optimizer = kAdamMomentsBytes * params / (stage >= 1 ? group : 1.0);
  return b;
}

}  // namespace

std::int64_t megatron_padded_vocab(std::int64_t vocab, int tp) {
  const std::int64_t multiple = 128 * static_cast<std::int64_t>(std::max(tp, 1));
  return (vocab + multiple - 1) / multiple * multiple;
}

std::int64_t layers_per_stage(const ModelSpec& model, const Strategy& strategy) {
  return max_stage_layers(model.num_layers, strategy);
}

double optimizer_params_per_rank(const RankParams& params, const Strategy& s) {
  if (s.backend == Backend::fsdp) return params.total() / (s.zero != ZeroStage::none ? shard_group(s) : 1);
  return params.dense / dense_optimizer_group(s) + params.expert / expert_optimizer_group(s);
}

double largest_layer_params(const ModelSpec& model) {
  const double common = static_cast<double>(model.attention_params_per_layer + model.norm_params_per_layer);
  double largest =
      model.num_layers > moe_layer_count(model) ? common + model.dense_mlp_params_per_layer : 0.0;
  if (model.moe) {
    const MoeSpec& m = *model.moe;
    largest = std::max(largest, common + double(m.shared_expert_params + m.router_params + m.latent_projection_params) +
                                    double(m.num_experts) * double(m.routed_expert_params));
  }
  return largest;
}

int pipeline_stage_index(const Strategy& s, PipelineStage stage) {
  if (s.pp <= 1 || stage == PipelineStage::first) return 0;
  return stage == PipelineStage::middle ? std::min(1, s.pp - 1) : s.pp - 1;
}

StageLayers stage_layers(const ModelSpec& model, const Strategy& s, PipelineStage stage) {
  const std::int64_t dense_total = model.num_layers - moe_layer_count(model);
  if (s.pp <= 1) return StageLayers{dense_total, model.num_layers - dense_total};
  // Each stage its own count (Megatron-core transformer_block.py get_num_layers_to_build); a
  // split Megatron would refuse gets ceil(L / PP) everywhere (strategy rules report it).
  const auto counts = stage_layer_counts(model.num_layers, s);
  const std::int64_t even = layers_per_stage(model, s);
  std::int64_t layers = even;
  std::int64_t before = 0;  // decoder layers on the stages before this one
  if (counts) {
    layers = stage == PipelineStage::first ? counts->first
             : stage == PipelineStage::last ? counts->last
                                            : counts->middle;
    before = stage == PipelineStage::first ? 0
             : stage == PipelineStage::last ? model.num_layers - counts->last
                                            : counts->first;
  } else {
    before = std::min<std::int64_t>(model.num_layers, even * pipeline_stage_index(s, stage));
    layers = std::min(even, model.num_layers - before);
  }
  const std::int64_t dense = std::clamp<std::int64_t>(dense_total - before, 0, layers);
  return StageLayers{dense, layers - dense};
}

RankParams rank_params(const ModelSpec& model, const Strategy& s, PipelineStage stage) {
  if (s.backend == Backend::fsdp) {
    return RankParams{static_cast<double>(model.total_params + (s.train_mtp ? model.params.mtp : 0)), 0};
  }
  const double tp = s.tp;
  const StageLayers layers = stage_layers(model, s, stage);
  const std::int64_t dense = layers.dense;
  const std::int64_t moe = layers.moe;
  const double attention = model.attention_params_per_layer / tp;
  const double norms = static_cast<double>(model.norm_params_per_layer);  // replicated across TP
  RankParams p;
  p.dense = double(dense) * (attention + norms + model.dense_mlp_params_per_layer / tp);
  p.layer_matrices = double(dense) * (attention + model.dense_mlp_params_per_layer / tp);
  if (model.moe) {
    const MoeSpec& m = *model.moe;
    // The router and a LatentMoE's latent projections are whole on every TP rank (moe_layer.py).
    p.dense += double(moe) * (attention + norms + m.shared_expert_params / tp +
                              double(m.router_params + m.latent_projection_params));
    p.expert = double(moe) * double(m.num_experts) * double(m.routed_expert_params) / (double(s.ep) * s.etp);
    p.layer_matrices += double(moe) * (attention + m.shared_expert_params / tp) + p.expert;
  }
  const double vocab_shard =
      double(megatron_padded_vocab(model.vocab_size, s.tp)) * double(model.hidden_size) / tp;
  const double embedding = model.params.embedding > 0 ? vocab_shard : 0.0;
  const double head = model.tie_word_embeddings ? 0.0 : vocab_shard;
  const bool first = s.pp <= 1 || stage == PipelineStage::first;
  const bool last = s.pp <= 1 || stage == PipelineStage::last;
  if (first)
    p.dense += embedding + double(model.params.position_embedding) + double(model.params.vision) / tp;
  if (last) {
    p.dense += double(model.params.final_norm);
    // Tied embeddings with PP > 1: the last stage keeps its own copy for the output layer.
    p.dense += head > 0 ? head : (s.pp > 1 ? embedding : 0.0);
    if (s.train_mtp) {
      // Megatron-core builds the MTP block on the last stage (multi_token_prediction.py): its
      // projections and attention split by TP, its routed experts by EP x ETP, its MoE layers'
      // router and latent projections whole on every TP rank (moe_layer.py), as the decoder's.
      const double experts = mtp_expert_params(model);
      const double whole = model.moe ? mtp_moe_layers(model) * double(model.moe->router_params +
                                                                       model.moe->latent_projection_params)
                                     : 0.0;
      p.dense += (double(model.params.mtp) - experts - whole) / tp + whole;
      p.expert += experts / (double(s.ep) * s.etp);
    }
  }
  return p;
}

double mtp_moe_layers(const ModelSpec& model) {
  return double(model.num_mtp_layers) * double(mtp_module_layers_of(model, 'E'));
}

double mtp_expert_params(const ModelSpec& model) {
  if (!model.moe) return 0.0;
  return mtp_moe_layers(model) * double(model.moe->num_experts) * double(model.moe->routed_expert_params);
}

double reference_weight_bytes(const ModelSpec& model, const Strategy& strategy, const RlSettings& rl,
                              PipelineStage stage) {
  if (!rl.use_reference || strategy.lora.rank > 0) return 0;
  const double params = rank_params(model, strategy, stage).total();
  const double shard = strategy.backend == Backend::fsdp && strategy.zero == ZeroStage::zero3
                           ? double(strategy.fsdp_shard_size > 0 ? strategy.fsdp_shard_size : strategy.dp)
                           : 1.0;
  return (strategy.backend == Backend::fsdp ? rl.ref_param_bytes : 2.0) * params / shard;
}

ModelStateBytes model_state_bytes(const ModelSpec& model, const Strategy& s, PipelineStage stage,
                                  OffloadMode mode, Trace* trace) {
  ModelStateBytes b = s.backend == Backend::fsdp ? zero_states(model, s) : megatron_states(model, s, stage);
  if (mode == OffloadMode::training) apply_training_offload(s, b);
  // verl pages its states back for the phase (own_phase), except what Megatron's CPU optimizer
  // keeps on the host throughout.
  if (mode == OffloadMode::own_phase && s.offload.optimizer_on_cpu) move_optimizer_fraction_to_host(s, b);
  if (trace == nullptr) return b;
  const RankParams p = rank_params(model, s, stage);
  const bool fsdp = s.backend == Backend::fsdp;
  trace_bytes(
      trace, "memory/model_states/weights", b.weights,
      fsdp ? "4 * params / (ZeRO-3 ? shard_group : 1) (LoRA base: 2 *)"
           : "bytes_per_weight * params_on_rank (Megatron-FSDP optim_grads_params: / the optimizer's groups); "
             "the layers' weight matrices at 1 B with fp8_params, 1.125 B as NVFP4 params (fp4_param_gather)",
      fsdp ? "verl fsdp_workers.py _build_model_optimizer: fp32 sharded params (model_dtype); FSDP FULL_SHARD"
           : "Megatron-LM theoretical_memory_usage.py (most loaded shard); formulas.md",
      [&] {
        return fmt::format(
            "params_on_rank={:.4g} (dense {:.4g}, expert {:.4g}), tp={} pp={} ep={} etp={}, "
            "shard_group={}",
            p.total(), p.dense, p.expert, s.tp, s.pp, s.ep, s.etp, shard_group(s));
      });
  trace_bytes(
      trace, "memory/model_states/gradients", b.gradients,
      fsdp ? "4 * params / (ZeRO >= 2 ? shard_group : 1)"
           : "grad_bytes * params_on_rank (main grads: 4 with grad_reduce_in_fp32, else 2; Megatron-FSDP "
             "optim_grads(_params): / the optimizer's groups)",
      fsdp ? "FSDP MixedPrecision reduce_dtype fp32: grads in the fp32 param dtype"
           : "Megatron-LM: 18 = 2 + 4 + 12 bytes/param (formulas.md); Megatron-core "
             "DistributedDataParallelConfig.grad_reduce_in_fp32",
      [&] {
        return fmt::format("params_on_rank={:.4g}, grad_bytes={}, zero={}, offload.grads={}", p.total(),
                           fsdp ? 4.0 : s.megatron_grad_bytes(), static_cast<int>(s.zero), s.offload.grads);
      });
  trace_bytes(trace, "memory/model_states/optimizer", b.optimizer,
              fsdp ? "8 * params / (ZeRO >= 1 ? shard_group : 1) * (1 - offloaded fraction) (Adam m, v in fp32)"
                   : "(4 master + Adam m, v: 8, or their precision-aware dtypes) * (dense / (DP*CP) + expert / "
                     "(world/(ETP*EP*PP))) with the distributed optimizer, "
                     "else 12 * params_on_rank; * (1 - optimizer_offload_fraction)",
              "ZeRO §3.1; Megatron distributed optimizer 6 + 12/d (formulas.md)", [&] {
                return fmt::format(
                    "dense={:.4g}, expert={:.4g}, dp={} cp={} distributed_optimizer={}, "
                    "offload.optimizer={} fraction={} on_cpu={}",
                    p.dense, p.expert, s.dp, s.cp, s.distributed_optimizer, s.offload.optimizer,
                    s.offload.optimizer_fraction, s.offload.optimizer_on_cpu);
              });
  if (b.lora_adapters > 0) {
    trace_bytes(trace, "memory/model_states/lora_adapters", b.lora_adapters,
                "lora_params * 16 (weight + grad + master + Adam) / sharding",
                "LoRA (Hu et al. 2021): r*(d_in+d_out)", [&] {
                  return fmt::format("rank={}, lora_params_total={:.4g}", s.lora.rank,
                                     lora_params_total(model, s.lora));
                });
  }
  if (b.gathered > 0) {
    trace_bytes(trace, "memory/model_states/gathered_params", b.gathered,
                fsdp ? "bytes_per_weight * (embedding + lm_head + 2 * largest_layer)"
                     : "(2 * bytes_per_weight + grad_bytes) * largest layer on the rank (Megatron-FSDP)",
                fsdp ? "PyTorch FSDP all-gather + prefetch" : "Megatron-core distributed/fsdp (double-buffered units)",
                [&] {
                  return fmt::format("largest_layer={:.4g}",
                                     fsdp ? largest_layer_params(model) : largest_rank_layer_params(model, s));
                });
  }
  if (b.host_offloaded > 0) {
    trace_bytes(trace, "memory/model_states/host_offloaded", b.host_offloaded, "offloaded states per GPU",
                "ZeRO-Offload; Megatron optimizer_offload_fraction", [&] {
                  return fmt::format("params={} grads={} optimizer={}", s.offload.params, s.offload.grads,
                                     s.offload.optimizer);
                });
  }
  return b;
}

}  // namespace meshplan
