#include "cli/inert_flags.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace meshplan {
namespace {

bool megatron(const Strategy& s, const ModelSpec&, const Workload&) { return s.backend == Backend::megatron; }
bool fsdp(const Strategy& s, const ModelSpec&, const Workload&) { return s.backend == Backend::fsdp; }
bool megatron_tp(const Strategy& s, const ModelSpec&, const Workload&) {
  return s.backend == Backend::megatron && s.tp > 1;
}
bool megatron_pp(const Strategy& s, const ModelSpec&, const Workload&) {
  return s.backend == Backend::megatron && s.pp > 1;
}
bool megatron_fp8(const Strategy& s, const ModelSpec&, const Workload&) {
  return s.backend == Backend::megatron && s.compute_dtype == Dtype::fp8;
}
bool megatron_fp4(const Strategy& s, const ModelSpec&, const Workload&) {
  return s.backend == Backend::megatron && s.compute_dtype == Dtype::fp4;
}
bool megatron_quantized(const Strategy& s, const ModelSpec&, const Workload&) {
  return s.backend == Backend::megatron && (s.compute_dtype == Dtype::fp8 || s.compute_dtype == Dtype::fp4);
}
bool full_recompute(const Strategy& s, const ModelSpec&, const Workload&) { return s.recompute == Recompute::full; }
bool megatron_cpu_optimizer(const Strategy& s, const ModelSpec&, const Workload&) {
  return s.backend == Backend::megatron && (s.offload.optimizer || s.offload.optimizer_on_cpu);
}
// verl cuts an RL micro-batch by tokens with use_dynamic_bsz (ppo_max_token_len_per_gpu,
// log_prob_max_token_len_per_gpu) and by sequences without it (ppo_micro_batch_size_per_gpu,
// log_prob_micro_batch_size_per_gpu): workers/actor/dp_actor.py and megatron_actor.py
// (rearrange_micro_batches under use_dynamic_bsz, else split by micro_batch_size).
bool dynamic_batches(const Strategy&, const ModelSpec&, const Workload& w) {
  return w.kind == WorkloadKind::rl && w.rl.use_dynamic_bsz;
}
bool sequence_batches(const Strategy&, const ModelSpec&, const Workload& w) {
  return w.kind == WorkloadKind::rl && !w.rl.use_dynamic_bsz;
}
bool fsdp_entropy_chunks(const Strategy& s, const ModelSpec&, const Workload& w) {
  return s.backend == Backend::fsdp && w.rl.entropy_chunking;
}
bool lora(const Strategy& s, const ModelSpec&, const Workload&) { return s.lora.rank > 0; }
bool vision(const Strategy&, const ModelSpec& m, const Workload&) { return m.vision.has_value(); }
bool moe(const Strategy&, const ModelSpec& m, const Workload&) { return m.is_moe(); }
bool megatron_moe(const Strategy& s, const ModelSpec& m, const Workload&) {
  return s.backend == Backend::megatron && m.is_moe();
}
bool flex_dispatcher(const Strategy& s, const ModelSpec& m, const Workload&) {
  return m.is_moe() && s.moe_dispatcher == MoeDispatcher::flex;
}

}  // namespace

const std::vector<InertFlagRule>& inert_flag_rules() {
  static const std::vector<InertFlagRule> rules = {
      {"--ulysses", "with the FSDP backend (--fsdp; Megatron splits sequences with --cp)", fsdp},
      {"--fsdp-shard-size", "with the FSDP backend (--fsdp: verl's fsdp_size)", fsdp},
      // Megatron-LM arguments.py: "Disabling sequence parallelism because tensor model parallel
      // size is 1"; TP communication overlap needs TP ranks to talk to.
      {"--sequence-parallel", "with the Megatron backend and TP > 1 (Megatron-LM disables it at TP 1)", megatron_tp},
      {"--tp-comm-overlap", "with the Megatron backend and TP > 1", megatron_tp},
      {"--no-distributed-optimizer", "with the Megatron backend (FSDP shards by --zero)", megatron},
      {"--no-grad-reduce-in-fp32", "with the Megatron backend (Megatron-core ddp grad_reduce_in_fp32)", megatron},
      {"--fp8-param-gather", "with the Megatron backend and --dtype fp8 (Megatron-LM --fp8-param-gather)",
       megatron_fp8},
      {"--fp4-param-gather", "with the Megatron backend and --dtype fp4 (Megatron-LM --fp4-param-gather)",
       megatron_fp4},
      {"--fp8-params", "with the Megatron backend and --dtype fp8 (Transformer Engine fp8_model_init)", megatron_fp8},
      {"--fp8-recipe", "with the Megatron backend and --dtype fp8 (Megatron-LM --fp8-recipe)", megatron_fp8},
      {"--fp8-output-proj", "with the Megatron backend and --dtype fp8 (Megatron-core fp8_output_proj)", megatron_fp8},
      {"--first-last-layers-bf16",
       "with the Megatron backend and --dtype fp8 or fp4 (Megatron-core first_last_layers_bf16)", megatron_quantized},
      {"--fp8-dot-product-attention",
       "with the Megatron backend and --dtype fp8 (Megatron-LM --fp8-dot-product-attention)", megatron_fp8},
      {"--use-transformer-engine-op-fuser",
       "with the Megatron backend and a MoE model (Megatron-core TEGroupedMLP's fused ops)", megatron_moe},
      {"--activation-func-fp8-input-store", "with the Megatron backend (Megatron-core's fused bias-SwiGLU / GeLU)",
       megatron},
      {"--first-stage-layers", "with the Megatron backend and PP > 1", megatron_pp},
      {"--account-for-embedding-in-pipeline-split", "with the Megatron backend and PP > 1", megatron_pp},
      {"--account-for-loss-in-pipeline-split", "with the Megatron backend and PP > 1", megatron_pp},
      {"--last-stage-layers", "with the Megatron backend and PP > 1", megatron_pp},
      {"--recompute-method", "with --recompute full (Megatron-core recompute_method)", full_recompute},
      {"--recompute-num-layers", "with --recompute full (Megatron-core recompute_num_layers)", full_recompute},
      {"--optimizer-offload-fraction",
       "with the Megatron backend and --offload optimizer or --optimizer-cpu-offload (Megatron-core "
       "optimizer_offload_fraction)",
       megatron_cpu_optimizer},
      {"--optimizer-cpu-offload", "with the Megatron backend (Megatron-core OptimizerConfig.optimizer_cpu_offload)",
       megatron},
      // verl's FSDP workers wrap the reference in CPUOffload whatever ref.fsdp_config.param_offload
      // says (fsdp_workers.py _build_model_optimizer, role != "actor"; cost/memory/rl_phases.cpp).
      {"--ref-offload", "with the Megatron backend (verl always offloads an FSDP reference's parameters)", megatron},
      {"--ref-model-dtype", "with the FSDP backend (verl ref.fsdp_config.model_dtype)", fsdp},
      // verl's dp_actor / FSDP engine option; Megatron's actor computes a vocab-parallel entropy.
      {"--entropy-chunking", "with the FSDP backend (verl actor.entropy_from_logits_with_chunking)", fsdp},
      {"--entropy-chunk", "with the FSDP backend and --entropy-chunking", fsdp_entropy_chunks},
      {"--no-overlap-grad-reduce", "with the Megatron backend (FSDP prefetches and reduces as it goes)", megatron},
      {"--no-overlap-param-gather", "with the Megatron backend (FSDP prefetches and reduces as it goes)", megatron},
      {"--ppo-max-token-len", "with --dynamic-bsz (verl: ppo_max_token_len_per_gpu under use_dynamic_bsz)",
       dynamic_batches},
      {"--log-prob-max-token-len",
       "with --dynamic-bsz (verl: log_prob_max_token_len_per_gpu under log_prob_use_dynamic_bsz)", dynamic_batches},
      {"--ppo-micro-batch",
       "without --dynamic-bsz (verl cuts micro-batches by --ppo-max-token-len under use_dynamic_bsz)",
       sequence_batches},
      {"--log-prob-micro-batch",
       "without --dynamic-bsz (verl cuts micro-batches by --log-prob-max-token-len under use_dynamic_bsz)",
       sequence_batches},
      {"--lora-targets", "with --lora-rank > 0", lora},
      {"--images-per-sample", "for a vision-language model", vision},
      {"--image-pixels", "for a vision-language model", vision},
      {"--moe-capacity-factor", "for a MoE model", moe},
      {"--moe-token-dispatcher-type", "for a MoE model", moe},
      {"--moe-dropless-imbalance", "for a MoE model", moe},
      {"--moe-flex-dispatcher-num-sms", "for a MoE model with --moe-token-dispatcher-type flex", flex_dispatcher},
  };
  return rules;
}

std::optional<Error> inert_flag(const CLI::App& command, const Strategy& strategy, const ModelSpec& model,
                                const Workload& workload) {
  for (const InertFlagRule& rule : inert_flag_rules()) {
    const CLI::Option* option = command.get_option_no_throw(rule.flag);
    if (option == nullptr || option->count() == 0 || rule.acts(strategy, model, workload)) continue;
    return Error{"", 0, rule.flag, fmt::format("acts only {}; here it would change nothing", rule.applies)};
  }
  return std::nullopt;
}

}  // namespace meshplan
