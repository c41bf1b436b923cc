#include "strategy/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "strategy/fp8_recipe.hpp"
#include "strategy/pipeline_layout.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

struct Inputs {
  const Strategy& s;
  const ModelSpec& m;
  const Cluster& c;
  const Workload& w;
};

// Why Megatron-core refuses the strategy's custom pipeline layout, if it does.
std::optional<std::string> pipeline_layout_violation(const Inputs& in) {
  if (in.s.first_stage_layers > 0 || in.s.last_stage_layers > 0 || in.s.pipeline_counts_embedding ||
      in.s.pipeline_counts_loss) {
    return std::string("pipeline_model_parallel_layout cannot be set with other pipeline layout arguments "
                       "(num_layers_in_first/last_pipeline_stage, account_for_embedding/loss_in_pipeline_split)");
  }
  const auto layout = parse_pipeline_layout(in.s.pipeline_layout);
  if (!layout) return layout.error().message;
  // Megatron-core builds the MTP layers when mtp_num_layers is set, trained or not (verl sets it
  // with model.mtp.enable, older verl from the checkpoint's config): a layout that places all of
  // them is valid either way; one that trains them must place them.
  const auto placed = std::count(layout->flat.begin(), layout->flat.end(), 'm');
  const bool built_untrained = !in.s.train_mtp && placed == in.m.num_mtp_layers;
  const int mtp = in.s.train_mtp || built_untrained ? static_cast<int>(in.m.num_mtp_layers) : 0;
  return pipeline_layout_error(*layout, in.s.pp, in.s.vpp, in.m.num_layers, mtp);
}

bool divides(std::int64_t divisor, std::int64_t value) { return divisor > 0 && value % divisor == 0; }

/// "{1, 2, 4}": the values in [1, limit] for which `ok` holds.
template <class Predicate>
std::string values_where(std::int64_t limit, Predicate ok) {
  std::string list;
  for (std::int64_t v = 1; v <= limit; ++v) {
    if (!ok(v)) continue;
    list += list.empty() ? "" : ", ";
    list += std::to_string(v);
  }
  return "{" + list + "}";
}

std::int64_t world(const Inputs& in) { return in.c.total_gpus(); }
std::int64_t kv_heads(const Inputs& in) { return in.m.attention.num_kv_heads; }
std::int64_t heads(const Inputs& in) { return in.m.attention.num_heads; }
/// Key and value heads of the linear-attention layers (0, 0 for models without them).
std::int64_t linear_key_heads(const Inputs& in) {
  return in.m.linear_attention ? in.m.linear_attention->num_key_heads : 0;
}
std::int64_t linear_value_heads(const Inputs& in) {
  return in.m.linear_attention ? in.m.linear_attention->num_value_heads : 0;
}
/// `tp` splits the linear-attention heads evenly (trivially true without such layers).
bool divides_linear_heads(const Inputs& in, std::int64_t tp) {
  return !in.m.linear_attention || (divides(tp, linear_key_heads(in)) && divides(tp, linear_value_heads(in)));
}
bool is_rl(const Inputs& in) { return in.w.kind == WorkloadKind::rl; }
int ppo_micro(const Inputs& in) {
  return in.w.rl.ppo_micro_batch_per_gpu > 0 ? in.w.rl.ppo_micro_batch_per_gpu : in.s.micro_batch;
}
std::int64_t rl_mini(const Inputs& in) {
  return in.w.rl.ppo_mini_batch > 0 ? in.w.rl.ppo_mini_batch : in.w.global_batch;
}
/// verl's data-parallel size of the actor: N / (TP*PP*CP) for Megatron, N / ulysses for FSDP.
std::int64_t actor_dp(const Inputs& in) {
  const std::int64_t model_parallel =
      in.s.backend == Backend::fsdp ? in.s.ulysses_sp : std::int64_t{in.s.tp} * in.s.pp * in.s.cp;
  return model_parallel > 0 ? world(in) / model_parallel : 0;
}

/// Micro-batches one optimizer step runs per rank: global / (DP x micro) for pretraining, the
/// per-GPU mini-batch (mini x n / DP) over the micro-batch for RL; 0 when not known statically
/// (dynamic batch sizes) or the batch does not divide.
std::int64_t micro_batches_per_update(const Inputs& in) {
  const std::int64_t dp = actor_dp(in);
  if (dp <= 0) return 0;
  if (!is_rl(in)) {
    const std::int64_t per_rank = dp * in.s.micro_batch;
    return in.w.global_batch > 0 && divides(per_rank, in.w.global_batch) ? in.w.global_batch / per_rank : 0;
  }
  if (in.w.rl.use_dynamic_bsz) return 0;
  const std::int64_t local = rl_mini(in) * in.w.rl.n / dp;
  return divides(ppo_micro(in), local) ? local / ppo_micro(in) : 0;
}

/// A rollout replica of `rtp` x rollout_dp GPUs tiles the nodes (R52, R53) and vLLM splits the
/// heads evenly over `rtp`.
bool rollout_tp_valid(const Inputs& in, std::int64_t rtp) {
  const std::int64_t per_node = in.c.groups.empty() ? 0 : in.c.groups.front().gpus_per_node;
  const std::int64_t replica = rtp * std::max(in.w.rl.rollout_dp, 1);
  // Engines on GPUs of their own tile those GPUs; colocated ones tile the trainer's.
  const std::int64_t gpus = in.w.rl.rollout_gpus > 0 ? in.w.rl.rollout_gpus : world(in);
  const bool tiles = replica <= per_node ? divides(replica, per_node) && divides(replica, gpus)
                                         : divides(per_node, replica) && divides(replica, gpus);
  // vLLM gated_delta_net_state_shape: divide(num_v_heads, tp) asserts; qwen3_next.py shards the
  // key heads as num_k_heads // tp.
  return rtp >= 1 && tiles && divides(rtp, heads(in)) && (divides(rtp, kv_heads(in)) || divides(kv_heads(in), rtp)) &&
         divides_linear_heads(in, rtp);
}

/// The planner's uneven split of the strategy's pipeline without interleaving (for advice).
Strategy balanced_at_vpp1(const Inputs& in) {
  Strategy balanced = in.s;
  balanced.vpp = 1;
  apply_balanced_split(balanced, in.m.num_layers);
  return balanced;
}

struct Rule {
  RuleInfo info;
  bool (*violated)(const Inputs&);
  void (*explain)(const Inputs&, Violation&);
};

// Evaluation order: cheapest and most basic first, so `first_violation` prunes early.
const std::array<Rule, 44> kRules{{
    {{"strategy.positive", "every parallel size and the micro-batch are at least 1", "Megatron arguments.py"},
     [](const Inputs& in) {
       const Strategy& s = in.s;
       return s.tp < 1 || s.pp < 1 || s.vpp < 1 || s.cp < 1 || s.ep < 1 || s.etp < 1 || s.dp < 1 ||
              s.micro_batch < 1 || s.ulysses_sp < 1 || s.recompute_num_layers < 0 || s.lora.rank < 0;
     },
     [](const Inputs& in, Violation& v) {
       const Strategy& s = in.s;
       v.message = fmt::format("sizes must be >= 1: tp={} pp={} vpp={} cp={} ep={} etp={} dp={} micro_batch={} "
                               "ulysses_sp={}", s.tp, s.pp, s.vpp, s.cp, s.ep, s.etp, s.dp, s.micro_batch,
                               s.ulysses_sp);
     }},
    {{"world.factorization", "TP x PP x CP x DP equals the number of GPUs",
      "Megatron-core parallel_state.initialize_model_parallel; verl R7"},
     [](const Inputs& in) { return std::int64_t{in.s.tp} * in.s.pp * in.s.cp * in.s.dp != world(in); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("TP x PP x CP x DP = {} x {} x {} x {} = {} but the cluster has {} GPUs", in.s.tp,
                               in.s.pp, in.s.cp, in.s.dp, std::int64_t{in.s.tp} * in.s.pp * in.s.cp * in.s.dp,
                               world(in));
       const std::int64_t model_parallel = std::int64_t{in.s.tp} * in.s.pp * in.s.cp;
       v.valid = divides(model_parallel, world(in))
                     ? fmt::format("DP = {}", world(in) / model_parallel)
                     : fmt::format("TP x PP x CP must divide {}", world(in));
     }},
    {{"dtype.supported", "every GPU of the cluster supports the compute dtype", "GPU datasheets (V100: no bf16)"},
     [](const Inputs& in) {
       if (in.s.compute_dtype == Dtype::fp4) return false;  // fp4.nvfp4-blackwell, with Transformer Engine's words
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.peak_flops(in.s.compute_dtype) <= 0) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.peak_flops(in.s.compute_dtype) <= 0) {
           v.message = fmt::format("{} does not support the chosen compute dtype", group.gpu.id);
         }
       }
       v.valid = "fp16 (with loss scaling) where bf16 is missing";
     }},
    {{"fsdp.no-model-parallel", "the FSDP backend has no tensor, pipeline, context or expert parallelism",
      "verl fsdp_workers.py (device mesh is (dp,) or (dp, ulysses))"},
     [](const Inputs& in) {
       return in.s.backend == Backend::fsdp && (in.s.tp > 1 || in.s.pp > 1 || in.s.cp > 1 || in.s.ep > 1);
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("backend fsdp with tp={} pp={} cp={} ep={}", in.s.tp, in.s.pp, in.s.cp, in.s.ep);
       v.valid = "tp=pp=cp=ep=1 with FSDP (use ulysses_sp for long sequences), or the megatron backend";
     }},
    {{"tp.divides-heads", "TP divides the number of attention heads",
      "Megatron-core TransformerConfig; verl R61"},
     [](const Inputs& in) { return !divides(in.s.tp, heads(in)); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("TP={} does not divide {} attention heads", in.s.tp, heads(in));
       v.valid = "TP in " + values_where(heads(in), [&](std::int64_t t) {
                   return divides(t, heads(in)) && divides(t, kv_heads(in));
                 });
     }},
    {{"tp.divides-kv-heads", "TP divides the number of KV heads (query groups)",
      "Megatron-core TransformerConfig (num_query_groups % tp); verl R61"},
     [](const Inputs& in) { return !divides(in.s.tp, kv_heads(in)); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("TP={} does not divide {} KV heads", in.s.tp, kv_heads(in));
       v.valid = "TP in " + values_where(kv_heads(in), [&](std::int64_t t) { return divides(t, kv_heads(in)); });
     }},
    {{"tp.divides-linear-heads", "TP divides the linear-attention key and value heads (hybrid models)",
      "Megatron-core ssm/gated_delta_net.py GatedDeltaNet (num_value_heads // tp, qk_dim // tp per rank)"},
     [](const Inputs& in) { return !divides_linear_heads(in, in.s.tp); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("TP={} does not divide the {} key and {} value heads of the linear-attention layers",
                               in.s.tp, linear_key_heads(in), linear_value_heads(in));
       v.valid = "TP in " + values_where(linear_key_heads(in), [&](std::int64_t t) {
                   return divides_linear_heads(in, t) && divides(t, heads(in)) && divides(t, kv_heads(in));
                 });
     }},
    {{"pp.divides-layers",
      "PP x VPP divides the number of layers (with the embedding and the loss where they count as layers), or "
      "the first/last stages' own layer counts, never beside those, leave the middle stages an even share",
      "Megatron-core TransformerConfig (num_layers_in_first/last_pipeline_stage), get_num_layers_to_build"},
     [](const Inputs& in) { return in.s.pipeline_layout.empty() && !stage_layer_counts(in.m.num_layers, in.s).has_value(); },
     [](const Inputs& in, Violation& v) {
       const int counted = (in.s.pipeline_counts_embedding ? 1 : 0) + (in.s.pipeline_counts_loss ? 1 : 0);
       if (counted > 0 && (in.s.first_stage_layers > 0 || in.s.last_stage_layers > 0)) {
         v.message = "num_layers_in_first/last_pipeline_stage cannot be set with account_for_embedding/loss_in_"
                     "pipeline_split (TransformerConfig.__post_init__ raises ValueError)";
         v.valid = "either the first/last stage counts or the embedding and loss counted as layers";
         return;
       }
       if (counted > 0) {
         v.message = fmt::format("PP x VPP = {} x {} does not divide {} layers + {} counted as layers = {}", in.s.pp,
                                 in.s.vpp, in.m.num_layers, counted == 2 ? "the embedding and the loss" : "one",
                                 in.m.num_layers + counted);
         v.valid = "PP x VPP in " + values_where(in.m.num_layers + counted, [&](std::int64_t p) {
                     return divides(p, in.m.num_layers + counted);
                   });
         return;
       }
       if (in.s.first_stage_layers > 0 || in.s.last_stage_layers > 0) {
         v.message = fmt::format("first stage {} + last stage {} layers leave {} of {} layers, which the {} other "
                                 "stage(s) x VPP {} cannot share evenly",
                                 in.s.first_stage_layers, in.s.last_stage_layers,
                                 in.m.num_layers - in.s.first_stage_layers - in.s.last_stage_layers, in.m.num_layers,
                                 in.s.pp - (in.s.first_stage_layers > 0) - (in.s.last_stage_layers > 0), in.s.vpp);
         const Strategy balanced = balanced_at_vpp1(in);
         if (balanced.first_stage_layers > 0) {
           v.valid = fmt::format("e.g. first stage {}, last stage {} at VPP 1 ({} per other stage)",
                                 balanced.first_stage_layers, balanced.last_stage_layers,
                                 max_stage_layers(in.m.num_layers, balanced));
         }
         return;
       }
       v.message = fmt::format("PP x VPP = {} x {} does not divide {} layers (and no uneven first/last stage is given)",
                               in.s.pp, in.s.vpp, in.m.num_layers);
       v.valid = "PP x VPP in " + values_where(in.m.num_layers, [&](std::int64_t p) {
                   return divides(p, in.m.num_layers);
                 });
       const Strategy balanced = balanced_at_vpp1(in);
       if (balanced.first_stage_layers > 0) {
         v.valid += fmt::format(", or at VPP 1 an uneven split such as first stage {}, last stage {} (Megatron "
                                "num_layers_in_first/last_pipeline_stage)",
                                balanced.first_stage_layers, balanced.last_stage_layers);
       }
       if (divides(in.s.pp * in.s.vpp, in.m.num_layers + 2)) {
         v.valid += fmt::format(", or the embedding and the loss counted as layers ({} over PP x VPP; Megatron-core "
                                "account_for_embedding/loss_in_pipeline_split)", in.m.num_layers + 2);
       }
     }},
    {{"pp.layout",
      "a custom pipeline layout has PP x VPP stages, the embedding first and the loss last once each, every "
      "decoder layer, the MTP layers after them in one last chunk, and no first/last stage counts beside it",
      "Megatron-core pipeline_parallel_layer_layout.py (parse_str_to_list, validate_layer_layout); "
      "TransformerConfig.__post_init__"},
     [](const Inputs& in) { return !in.s.pipeline_layout.empty() && pipeline_layout_violation(in).has_value(); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("pipeline_model_parallel_layout '{}': {}", in.s.pipeline_layout,
                               pipeline_layout_violation(in).value_or(""));
       v.valid = fmt::format("a layout of PP x VPP stages holding the {} decoder layers{}, or no layout", in.m.num_layers,
                             in.s.train_mtp && in.m.num_mtp_layers > 0
                                 ? fmt::format(" and {} MTP layer(s) before the loss", in.m.num_mtp_layers)
                                 : "");
     }},
    {{"vpp.requires-pp", "interleaved (virtual) pipeline stages need PP > 1", "Megatron-core; verl R44"},
     [](const Inputs& in) { return in.s.vpp > 1 && in.s.pp < 2; },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("VPP={} with PP={}: pipeline-model-parallel size should be greater than 1 with "
                               "interleaved schedule", in.s.vpp, in.s.pp);
       v.valid = "VPP = 1, or PP >= 2";
     }},
    {{"cp.divides-sequence", "2 x CP divides the sequence length (load-balanced causal chunks)",
      "Megatron-core context parallelism (get_batch_on_this_cp_rank)"},
     [](const Inputs& in) { return in.s.cp > 1 && !divides(2 * std::int64_t{in.s.cp}, in.w.seq_len); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("sequence length {} is not divisible by 2 x CP = {}", in.w.seq_len, 2 * in.s.cp);
       v.valid = "CP such that seq_len % (2*CP) == 0";
     }},
    {{"ep.requires-moe", "expert parallelism needs a mixture-of-experts model", "Megatron-core MoE layers"},
     [](const Inputs& in) { return !in.m.moe && (in.s.ep > 1 || in.s.etp > 1); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("EP={} ETP={} on the dense model {}", in.s.ep, in.s.etp, in.m.name);
       v.valid = "EP = ETP = 1";
     }},
    {{"ep.divides-experts", "EP divides the number of routed experts", "Megatron-core MoELayer"},
     [](const Inputs& in) { return in.m.moe && !divides(in.s.ep, in.m.moe->num_experts); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("EP={} does not divide {} experts", in.s.ep, in.m.moe->num_experts);
       v.valid = "EP in " + values_where(in.m.moe->num_experts, [&](std::int64_t e) {
                   return divides(e, in.m.moe->num_experts) && divides(e, world(in));
                 });
     }},
    {{"ep.divides-world", "ETP x EP x PP divides the number of GPUs", "Megatron-core RankGenerator; verl R44"},
     [](const Inputs& in) { return !divides(std::int64_t{in.s.etp} * in.s.ep * in.s.pp, world(in)); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("world size {} is not divisible by ETP x EP x PP = {} x {} x {}", world(in), in.s.etp,
                               in.s.ep, in.s.pp);
     }},
    {{"ulysses.divides-heads", "Ulysses SP divides the attention heads; KV heads divide or are divided by it",
      "verl monkey_patch.apply_monkey_patch (R60)"},
     [](const Inputs& in) {
       const std::int64_t sp = in.s.ulysses_sp;
       return sp > 1 && (!divides(sp, heads(in)) || !(divides(sp, kv_heads(in)) || divides(kv_heads(in), sp)));
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("ulysses_sp={} with {} attention heads and {} KV heads", in.s.ulysses_sp, heads(in),
                               kv_heads(in));
       v.valid = "ulysses_sp in " + values_where(heads(in), [&](std::int64_t sp) {
                   return divides(sp, heads(in)) && (divides(sp, kv_heads(in)) || divides(kv_heads(in), sp));
                 });
     }},
    {{"ulysses.divides-world", "Ulysses SP divides the number of GPUs", "verl init_device_mesh (R51)"},
     [](const Inputs& in) { return !divides(in.s.ulysses_sp, world(in)); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("ulysses_sp={} does not divide {} GPUs", in.s.ulysses_sp, world(in));
     }},
    {{"fsdp.shard-size", "the hybrid-shard group size divides the data-parallel size",
      "verl fsdp_workers.create_device_mesh (fsdp_size)"},
     [](const Inputs& in) { return in.s.fsdp_shard_size > 0 && !divides(in.s.fsdp_shard_size, in.s.dp); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("fsdp shard size {} does not divide DP={}", in.s.fsdp_shard_size, in.s.dp);
       v.valid = "shard size in " + values_where(in.s.dp, [&](std::int64_t f) { return divides(f, in.s.dp); });
     }},
    {{"recompute.num-layers", "full recompute in blocks recomputes at most the layers of one stage chunk",
      "Megatron-core TransformerBlock (recompute_method=block)"},
     [](const Inputs& in) {
       const std::int64_t chunk = in.m.num_layers / std::max(1, in.s.pp * in.s.vpp);
       return in.s.recompute == Recompute::full && in.s.recompute_method == RecomputeMethod::block &&
              in.s.recompute_num_layers > chunk;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("recompute_num_layers={} exceeds the {} layers per pipeline chunk",
                               in.s.recompute_num_layers, in.m.num_layers / std::max(1, in.s.pp * in.s.vpp));
     }},
    {{"recompute.mla-up-proj", "mla_up_proj is recomputed only in multi-latent attention",
      "Megatron-core TransformerConfig.__post_init__ (recompute_modules)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.recompute == Recompute::selective &&
              (in.s.recompute_modules & kRecomputeMlaUpProj) != 0 && in.m.attention.kind != AttentionKind::mla;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("mla_up_proj in recompute_modules is only supported with multi_latent_attention; {} "
                               "uses standard attention",
                               in.m.name);
       v.valid = "recompute_modules without mla_up_proj";
     }},
    {{"offload.activations-layers", "Megatron-core offloads at most num_layers - 1 layers' activations",
      "Megatron-core TransformerConfig.__post_init__ (cpu_offloading_num_layers)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.activation_offload_layers != kOffloadAllButLastLayer &&
              in.s.activation_offload_layers >= in.m.num_layers;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("cpu_offloading_num_layers={} is not below the model's {} layers",
                               in.s.activation_offload_layers, in.m.num_layers);
       v.valid = fmt::format("activation offload layers in 1..{}", in.m.num_layers - 1);
     }},
    {{"offload.activations-pp", "Megatron-core activation offloading runs without pipeline parallelism",
      "Megatron-core TransformerConfig.__post_init__ (cpu_offloading)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.activation_offload_layers > 0 && in.s.pp > 1;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("activation offloading with PP={}: Megatron-core has no support for pipeline "
                               "parallelism with CPU offloading",
                               in.s.pp);
       v.valid = "PP 1, or no activation offloading";
     }},
    {{"offload.activations-recompute", "Megatron-core activation offloading runs without recomputation",
      "Megatron-core TransformerConfig.__post_init__ (cpu_offloading)"},
     [](const Inputs& in) {
       return in.s.backend == Backend::megatron && in.s.activation_offload_layers > 0 &&
              in.s.recompute != Recompute::none;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("activation offloading with recompute {}: Megatron-core's CPU offloading does not "
                               "work when activation recomputation is enabled",
                               in.s.recompute == Recompute::full ? "full" : "selective");
       v.valid = "recompute none, or no activation offloading";
     }},
    // EP all-to-all overlap: the refusals of TransformerConfig.__post_init__ (Megatron-core
    // transformer_config.py, "if self.overlap_moe_expert_parallel_comm:"), with its messages.
    {{"moe.a2a-overlap-ep", "EP all-to-all overlap needs expert parallelism (Megatron backend, MoE, EP > 1)",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) {
       return in.s.moe_a2a_overlap && (in.s.backend != Backend::megatron || !in.m.moe || in.s.ep <= 1);
     },
     [](const Inputs& in, Violation& v) {
       v.message = in.s.backend != Backend::megatron
                       ? std::string("overlap_moe_expert_parallel_comm is a Megatron-core setting; the FSDP backend has no "
                                     "expert parallel all-to-all")
                       : fmt::format("overlap_moe_expert_parallel_comm is only supported with expert model parallelism "
                                     "(EP={}{})",
                                     in.s.ep, in.m.moe ? "" : fmt::format(", {} has no experts", in.m.name));
       v.valid = "EP > 1 on a MoE model, or no EP all-to-all overlap";
     }},
    {{"moe.a2a-overlap-vpp", "EP all-to-all overlap with pipeline parallelism needs interleaving (VPP > 1)",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) { return in.s.moe_a2a_overlap && in.s.pp > 1 && in.s.vpp <= 1; },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("If enabling EP A2A overlap, virtual_pipeline_model_parallel_size must be specified when "
                               "pipeline_model_parallel_size > 1 (PP={})",
                               in.s.pp);
       v.valid = "VPP > 1, PP 1, or no EP all-to-all overlap";
     }},
    {{"moe.a2a-overlap-recompute", "EP all-to-all overlap runs without full recomputation and without recomputing the MoE layer",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) {
       return in.s.moe_a2a_overlap && (in.s.recompute == Recompute::full ||
                                       (in.s.recompute == Recompute::selective && (in.s.recompute_modules & kRecomputeMoe)));
     },
     [](const Inputs& in, Violation& v) {
       v.message = in.s.recompute == Recompute::full
                       ? std::string("disable full recomputation when enabling overlap_moe_expert_parallel_comm")
                       : std::string("disable moe in recompute_modules when enabling overlap_moe_expert_parallel_comm");
       v.valid = "recompute none, or selective without moe";
     }},
    {{"moe.a2a-overlap-dtype", "EP all-to-all overlap runs a bf16 or fp16 model",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) { return in.s.moe_a2a_overlap && in.s.compute_dtype == Dtype::fp32; },
     [](const Inputs&, Violation& v) {
       v.message = "overlap_moe_expert_parallel_comm is only supported with bf16 or fp16 model";
       v.valid = "bf16, fp16 or fp8 compute";
     }},
    {{"moe.a2a-overlap-mtp", "EP all-to-all overlap trains at most one MTP layer",
      "Megatron-core TransformerConfig.__post_init__ (overlap_moe_expert_parallel_comm)"},
     [](const Inputs& in) { return in.s.moe_a2a_overlap && in.s.train_mtp && in.m.num_mtp_layers > 1; },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("MTP supports at most one layer when enabling overlap_moe_expert_parallel_comm ({} has {})",
                               in.m.name, in.m.num_mtp_layers);
       v.valid = "one MTP layer, MTP not trained, or no EP all-to-all overlap";
     }},
    // Transformer Engine's FP8 recipes and FP8 attention, where the GPU refuses them.
    {{"fp8.mxfp8-blackwell", "the mxfp8 FP8 recipe runs on NVIDIA Blackwell (compute capability 10.x)",
      "Transformer Engine quantization.py check_mxfp8_support (v2.14)"},
     [](const Inputs& in) {
       if (in.s.compute_dtype != Dtype::fp8 || in.s.fp8_recipe != Fp8Recipe::mxfp8 || in.s.backend != Backend::megatron) {
         return false;
       }
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.vendor == "NVIDIA" && !group.gpu.is_generation("blackwell")) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("Device compute capability 10.0 or higher required for MXFP8 execution ({})",
                               in.c.groups.front().gpu.id);
       v.valid = "--fp8-recipe delayed, tensorwise or blockwise, or a Blackwell GPU";
     }},
    // FP8 attention over learnable softmax offsets (gpt-oss's sinks; Megatron-core softmax_type
    // "learnable", which needs Transformer Engine 2.8+): from v2.8 through v2.14 every backend refuses
    // softmax_type != vanilla in FP8; from v2.15 FusedAttention takes it on sm >= 100 with cuDNN >=
    // 9.21 and FlashAttention and UnfusedDotProductAttention still refuse it
    // (dot_product_attention/utils.py get_attention_backend), so before Blackwell no version has a
    // backend.
    {{"fp8.attention-sinks-blackwell", "FP8 attention over attention sinks (gpt-oss) runs on NVIDIA Blackwell",
      "Transformer Engine dot_product_attention/utils.py get_attention_backend (v2.8-v2.14; v2.15-v2.18)"},
     [](const Inputs& in) {
       if (!in.s.fp8_attention || in.s.compute_dtype != Dtype::fp8 || in.s.backend != Backend::megatron ||
           !in.m.attention.sinks) {
         return false;
       }
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.vendor == "NVIDIA" && !group.gpu.is_generation("blackwell")) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("No dot product attention backend is available for the provided inputs ({}, {}: "
                               "Transformer Engine disables FusedAttention for softmax_type = learnable in FP8 on "
                               "sm < 100, FlashAttention and UnfusedDotProductAttention for it in FP8)",
                               in.m.name, in.c.groups.front().gpu.id);
       v.valid = "no --fp8-dot-product-attention (Transformer Engine's NVTE_DPA_FP8_RECIPE=F16 runs it in bf16), or a "
                 "Blackwell GPU";
     }},
    {{"fp4.nvfp4-blackwell", "NVFP4 (--dtype fp4) runs on NVIDIA Blackwell (compute capability 10.x and later)",
      "Transformer Engine quantization.py check_nvfp4_support (v2.14)"},
     [](const Inputs& in) {
       if (in.s.compute_dtype != Dtype::fp4) return false;
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.peak_flops(Dtype::fp4) <= 0) return true;
       }
       return false;
     },
     [](const Inputs& in, Violation& v) {
       for (const NodeGroup& group : in.c.groups) {
         if (group.gpu.peak_flops(Dtype::fp4) > 0) continue;
         v.message = group.gpu.vendor == "NVIDIA"
                         ? fmt::format("Device compute capability 10.0 or higher required for NVFP4 execution ({})",
                                       group.gpu.id)
                         : fmt::format("{} has no NVFP4 tensor cores: Transformer Engine's NVFP4BlockScaling recipe "
                                       "runs on NVIDIA Blackwell",
                                       group.gpu.id);
         break;
       }
       v.valid = "--dtype fp8 or bf16, or a Blackwell GPU";
     }},
    {{"fp8.output-proj-mxfp8", "the output layer runs in FP8 under the mxfp8 recipe only",
      "Megatron-core TransformerConfig.__post_init__ (fp8_output_proj, d0b3b775)"},
     [](const Inputs& in) {
       return in.s.fp8_output_proj && in.s.compute_dtype == Dtype::fp8 && in.s.backend == Backend::megatron &&
              in.s.fp8_recipe != Fp8Recipe::mxfp8;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("fp8_output_proj requires fp8_recipe='mxfp8', got '{}'.", fp8_recipe_name(in.s.fp8_recipe));
       v.valid = "--fp8-recipe mxfp8, or no --fp8-output-proj";
     }},
    // TEGroupedMLP.__init__ asserts _is_fused_impl_supported() under use_transformer_engine_op_fuser
    // (Megatron-core moe/experts.py at d0b3b775): no expert tensor parallelism among what it checks.
    {{"moe.op-fuser-etp", "Transformer Engine's op fuser runs the experts without expert tensor parallelism",
      "Megatron-core TEGroupedMLP._is_fused_impl_supported (moe/experts.py)"},
     [](const Inputs& in) { return in.s.te_op_fuser && in.s.backend == Backend::megatron && in.m.moe && in.s.etp > 1; },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("Fused GroupedMLP is not supported for this configuration (use_transformer_engine_op_fuser "
                               "with expert tensor parallelism {}: Tensor parallelism is not supported)",
                               in.s.etp);
       v.valid = "ETP 1, or no Transformer Engine op fuser";
     }},
    // CUDA graphs: the refusals of TransformerConfig.__post_init__ (Megatron-core
    // transformer_config.py, "if self.cuda_graph_impl != \"none\":"), with its messages.
    {{"graph.megatron", "CUDA graphs of the training step are a Megatron-core setting",
      "Megatron-core TransformerConfig.cuda_graph_impl"},
     [](const Inputs& in) { return in.s.cuda_graph_impl != CudaGraphImpl::none && in.s.backend != Backend::megatron; },
     [](const Inputs&, Violation& v) {
       v.message = "cuda_graph_impl is a Megatron-core setting; the FSDP backend runs the training step eagerly";
       v.valid = "the Megatron backend, or cuda_graph_impl none";
     }},
    {{"graph.full-recompute", "full recomputation runs only under a full-iteration CUDA graph",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_impl)"},
     [](const Inputs& in) {
       return in.s.cuda_graph_impl != CudaGraphImpl::none && in.s.cuda_graph_impl != CudaGraphImpl::full_iteration &&
              in.s.recompute == Recompute::full;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("full recompute is only supported with full iteration CUDA graph (cuda_graph_impl={})",
                               cuda_graph_impl_name(in.s.cuda_graph_impl));
       v.valid = "cuda_graph_impl full_iteration, or selective / no recompute";
     }},
    {{"graph.cpu-offload", "per-layer CUDA graphs run without activation offloading",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_impl, cpu_offloading)"},
     [](const Inputs& in) {
       return in.s.cuda_graph_impl != CudaGraphImpl::none && in.s.cuda_graph_impl != CudaGraphImpl::full_iteration &&
              in.s.activation_offload_layers > 0;
     },
     [](const Inputs&, Violation& v) {
       v.message = "CUDA graphs not supported with CPU offloading.";
       v.valid = "cuda_graph_impl full_iteration or none, or no activation offloading";
     }},
    {{"graph.moe-modules", "the moe and moe_router graph modules capture a MoE model's layers, one of them at a time",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_modules)"},
     [](const Inputs& in) {
       const std::uint8_t modules = in.s.cuda_graph_modules;
       const bool moe_module = (modules & (kGraphMoe | kGraphMoeRouter)) != 0;
       return (moe_module && !in.m.moe) || ((modules & kGraphMoe) && (modules & kGraphMoeRouter));
     },
     [](const Inputs& in, Violation& v) {
       v.message = in.m.moe ? std::string("cuda_graph_modules must not contain both moe and moe_router.")
                            : fmt::format("moe cuda graph is only supported for MoE ({} has no experts)", in.m.name);
       v.valid = "moe or moe_router on a MoE model";
     }},
    {{"graph.mlp-dense-layers", "the mlp graph module captures dense MLP layers, which a model of MoE layers only lacks",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_modules, moe_layer_freq)"},
     [](const Inputs& in) {
       return (in.s.cuda_graph_impl == CudaGraphImpl::local || in.s.cuda_graph_impl == CudaGraphImpl::transformer_engine) &&
              (in.s.cuda_graph_modules & kGraphMlp) && in.m.moe && in.m.moe->num_moe_layers >= in.m.num_layers;
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("mlp cuda graph is only supported for dense layers, but not found in the model ({} has "
                               "{} MoE layers of {})",
                               in.m.name, in.m.moe->num_moe_layers, in.m.num_layers);
       v.valid = "attn, moe_router, moe_preprocess without mlp";
     }},
    {{"graph.moe-preprocess", "the moe_preprocess graph module comes with moe_router",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_modules)"},
     [](const Inputs& in) {
       // The local impl adds the missing one itself; Transformer Engine's refuses.
       return in.s.cuda_graph_impl == CudaGraphImpl::transformer_engine &&
              (in.s.cuda_graph_modules & kGraphMoePreprocess) && !(in.s.cuda_graph_modules & kGraphMoeRouter);
     },
     [](const Inputs&, Violation& v) {
       v.message = "moe_preprocess cuda graph is only supported with moe_router cuda graph.";
       v.valid = "moe_router with moe_preprocess";
     }},
    {{"graph.moe-recompute", "Transformer Engine's graphed router runs without recomputing the MoE layer",
      "Megatron-core TransformerConfig.__post_init__ (cuda_graph_impl, recompute_modules)"},
     [](const Inputs& in) {
       return in.s.cuda_graph_impl == CudaGraphImpl::transformer_engine && (in.s.cuda_graph_modules & kGraphMoeRouter) &&
              in.s.recompute == Recompute::selective && (in.s.recompute_modules & kRecomputeMoe);
     },
     [](const Inputs&, Violation& v) {
       v.message = "moe recompute is not supported with moe_router CUDA graph with: --cuda-graph-impl transformer_engine.";
       v.valid = "moe out of recompute_modules, or moe_router out of cuda_graph_modules";
     }},
    // The batch's DP: FSDP's Ulysses ranks of one group share their sequences (actor_dp).
    {{"batch.global-divisible", "the global batch is a multiple of DP x micro-batch (pretrain/SFT)",
      "Megatron arguments.py (global batch divisible by micro batch x DP)"},
     [](const Inputs& in) {
       return !is_rl(in) && in.w.global_batch > 0 && !divides(actor_dp(in) * in.s.micro_batch, in.w.global_batch);
     },
     [](const Inputs& in, Violation& v) {
       const std::int64_t dp = std::max<std::int64_t>(1, actor_dp(in));
       v.message = fmt::format("global batch {} is not divisible by DP x micro-batch = {} x {}", in.w.global_batch,
                               dp, in.s.micro_batch);
       v.valid = "micro-batch in " + values_where(in.w.global_batch / dp, [&](std::int64_t mb) {
                   return divides(dp * mb, in.w.global_batch);
                 });
     }},
    {{"rl.train-batch-ge-mini", "data.train_batch_size >= actor.ppo_mini_batch_size", "verl ActorConfig.validate (R9)"},
     [](const Inputs& in) { return is_rl(in) && in.w.global_batch < rl_mini(in); },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("train_batch_size ({}) must be >= actor.ppo_mini_batch_size ({})", in.w.global_batch,
                               rl_mini(in));
     }},
    {{"rl.mini-batch-divisible", "the per-GPU mini-batch (mini x n / DP) is a positive multiple of the micro-batch",
      "verl fsdp_workers / megatron_workers batch normalisation"},
     [](const Inputs& in) {
       if (!is_rl(in) || in.w.rl.use_dynamic_bsz) return false;
       const std::int64_t dp = actor_dp(in);
       const std::int64_t local = dp > 0 ? rl_mini(in) * in.w.rl.n / dp : 0;
       return local <= 0 || !divides(ppo_micro(in), local);
     },
     [](const Inputs& in, Violation& v) {
       const std::int64_t dp = actor_dp(in);
       v.message = fmt::format("ppo_mini_batch_size x n / DP = {} x {} / {} = {} is not a positive multiple of "
                               "ppo_micro_batch_size_per_gpu={}", rl_mini(in), in.w.rl.n, dp,
                               dp > 0 ? rl_mini(in) * in.w.rl.n / dp : 0, ppo_micro(in));
     }},
    {{"vpp.micro-batch-groups",
      "with VPP > 1 the micro-batches of a step (RL: of a mini-batch) number at least PP and a multiple of PP",
      "Megatron-core interleaved schedule (microbatch_group_size_per_vp_stage = PP); verl R66"},
     [](const Inputs& in) {
       if (in.s.vpp <= 1 || in.s.pp <= 1) return false;
       const std::int64_t m = micro_batches_per_update(in);
       return m > 0 && (m < in.s.pp || m % in.s.pp != 0);
     },
     [](const Inputs& in, Violation& v) {
       v.message = fmt::format("{} micro-batches per {} with PP={} and VPP={}: the interleaved schedule runs them in "
                               "groups of PP",
                               micro_batches_per_update(in), is_rl(in) ? "mini-batch" : "step", in.s.pp, in.s.vpp);
       v.valid = "a micro-batch count that is a positive multiple of PP, or VPP=1";
     }},
    {{"rl.rollout-tp",
      "rollout TP tiles the nodes (divides the GPUs per node, or is a multiple of it that divides the GPUs) "
      "and the attention heads",
      "verl vLLM rollout (R52: world % rollout TP; R53: a replica larger than a node spans whole nodes; "
      "R55); vLLM heads % tp, linear-attention heads % tp (mamba_utils.gated_delta_net_state_shape)"},
     [](const Inputs& in) { return is_rl(in) && !rollout_tp_valid(in, in.w.rl.rollout_tp); },
     [](const Inputs& in, Violation& v) {
       const int per_node = in.c.groups.empty() ? 0 : in.c.groups.front().gpus_per_node;
       const std::int64_t gpus = in.w.rl.rollout_gpus > 0 ? in.w.rl.rollout_gpus : world(in);
       v.message = fmt::format("rollout TP={} with {} GPUs per node, {} {}GPUs, {} heads, {} KV heads", in.w.rl.rollout_tp,
                               per_node, gpus, in.w.rl.rollout_gpus > 0 ? "rollout " : "", heads(in), kv_heads(in));
       v.valid = "rollout TP in " + values_where(gpus, [&](std::int64_t t) { return rollout_tp_valid(in, t); });
     }},
}};

}  // namespace

const std::vector<RuleInfo>& strategy_rules() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> list;
    for (const Rule& rule : kRules) list.push_back(rule.info);
    return list;
  }();
  return infos;
}

std::vector<Violation> validate_strategy(const Strategy& strategy, const ModelSpec& model, const Cluster& cluster,
                                         const Workload& workload) {
  const Inputs in{strategy, model, cluster, workload};
  std::vector<Violation> violations;
  for (const Rule& rule : kRules) {
    if (!rule.violated(in)) continue;
    Violation violation{std::string(rule.info.id), "", ""};
    rule.explain(in, violation);
    violations.push_back(std::move(violation));
    // Every later rule divides by these sizes: with one below 1 only this rule is reported.
    if (rule.info.id == kRules.front().info.id) break;
  }
  return violations;
}

std::string_view first_violation(const Strategy& strategy, const ModelSpec& model, const Cluster& cluster,
                                 const Workload& workload) {
  const Inputs in{strategy, model, cluster, workload};
  for (const Rule& rule : kRules) {
    if (rule.violated(in)) return rule.info.id;
  }
  return {};
}

}  // namespace meshplan
