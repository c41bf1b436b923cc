// The parallel layout's rules (strategy/strategy_rule.hpp): sizes against the model's heads,
// layers, experts and sequence, against the cluster, and Megatron-core's pipeline layouts.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "strategy/pipeline_layout.hpp"
#include "strategy/pipeline_split.hpp"
#include "strategy/strategy_rule.hpp"

namespace meshplan::strategy_rule {
namespace {

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

/// Megatron-core's message when CP cannot split the Mamba-2 layers' heads and B/C groups of a TP
/// rank (MambaContextParallel: the heads by CP; the groups by CP, or CP by the groups, whose state
/// is then repeated on the CP ranks).
std::optional<std::string> mamba_cp_violation(const ModelSpec& model, std::int64_t tp, std::int64_t cp) {
  const auto& mixer = model.linear_attention;
  if (cp <= 1 || !mixer || mixer->kind != LinearAttentionKind::mamba2 || tp < 1) return std::nullopt;
  const std::int64_t heads = mixer->num_value_heads / tp;
  const std::int64_t groups = mixer->num_key_heads / tp;
  if (!divides(cp, heads)) {
    return fmt::format("nheads must be evenly divisible by tp_size * cp_size: {} Mamba heads, TP={} CP={}",
                       mixer->num_value_heads, tp, cp);
  }
  if (groups < cp && !divides(groups, cp)) {
    return fmt::format("cp_size must be evenly divisible by ngroups/tp_size: {} groups, TP={} CP={}",
                       mixer->num_key_heads, tp, cp);
  }
  if (groups >= cp && !divides(cp, groups)) {
    return fmt::format("ngroups must be evenly divisible by tp_size * cp_size: {} groups, TP={} CP={}",
                       mixer->num_key_heads, tp, cp);
  }
  return std::nullopt;
}

/// The planner's uneven split of the strategy's pipeline without interleaving (for advice).
Strategy balanced_at_vpp1(const Inputs& in) {
  Strategy balanced = in.s;
  balanced.vpp = 1;
  apply_balanced_split(balanced, in.m.num_layers);
  return balanced;
}

const std::array<Rule, 18> kLayoutRules{{
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
      "Megatron-core ssm/gated_delta_net.py GatedDeltaNet (num_value_heads // tp, qk_dim // tp per rank); "
      "ssm/mamba_mixer.py MambaMixer (nheads % tp_size, ngroups % tp_size)"},
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
    {{"cp.splits-mamba-heads",
      "CP splits each TP rank's Mamba heads, and its B/C groups or the groups' heads, evenly",
      "Megatron-core ssm/mamba_context_parallel.py MambaContextParallel.__init__ (Megatron-LM d98e8a64d)"},
     [](const Inputs& in) { return mamba_cp_violation(in.m, in.s.tp, in.s.cp).has_value(); },
     [](const Inputs& in, Violation& v) {
       v.message = *mamba_cp_violation(in.m, in.s.tp, in.s.cp);
       v.valid = "CP in " + values_where(linear_value_heads(in), [&](std::int64_t cp) {
                   return !mamba_cp_violation(in.m, in.s.tp, cp).has_value();
                 });
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
}};

}  // namespace

std::span<const Rule> layout_rules() { return kLayoutRules; }

}  // namespace meshplan::strategy_rule
