// `meshplan estimate --model M --cluster C [strategy flags] [--workload pretrain|sft|rl] [rl flags]
// [--json] [--explain]`: per-GPU memory of every phase, the most loaded rank and a verdict.
// Exit 0 when it fits, 1 when it does not (OOM), 2 on bad input.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/cli.hpp"
#include "cli/cluster_input.hpp"
#include "cli/command.hpp"
#include "cli/estimate_flags.hpp"
#include "cli/moe_dispatcher_flags.hpp"
#include "cli/model_input.hpp"
#include "core/units.hpp"
#include "cost/memory/memory_tiers.hpp"
#include "cost/time/host_cpu_sensitivity.hpp"
#include "cost/time/step_time.hpp"
#include "cost/calibration/verl_metrics.hpp"
#include "report/memory_json.hpp"
#include "report/memory_report.hpp"
#include "report/time_report.hpp"
#include "strategy/fp8_recipe.hpp"
#include "strategy/moe_dispatcher.hpp"
#include "strategy/pipeline_layout.hpp"
#include "strategy/pipeline_split.hpp"
#include "strategy/rollout_engine.hpp"
#include "strategy/validate.hpp"

namespace meshplan {
namespace {

const char* backend_name(Backend b) { return b == Backend::fsdp ? "fsdp" : "megatron"; }
const char* recompute_name(Recompute r) {
  return r == Recompute::full ? "full" : (r == Recompute::selective ? "selective" : "none");
}
const char* workload_name(WorkloadKind k) {
  return k == WorkloadKind::rl ? "rl" : (k == WorkloadKind::sft ? "sft" : "pretrain");
}

std::string strategy_line(const Strategy& s, const Workload& w, std::int64_t num_layers) {
  std::string line = fmt::format("{} TP={} PP={} VPP={} CP={} EP={} ETP={} DP={}", backend_name(s.backend),
                                 s.tp, s.pp, s.vpp, s.cp, s.ep, s.etp, s.dp);
  if (s.backend == Backend::fsdp) {
    line += fmt::format(" ZeRO-{} shard={} ulysses={}", static_cast<int>(s.zero),
                        s.fsdp_shard_size > 0 ? s.fsdp_shard_size : s.dp, s.ulysses_sp);
  } else {
    line += s.zero == ZeroStage::zero3   ? " Megatron-FSDP(optim_grads_params)"
            : s.zero == ZeroStage::zero2 ? " Megatron-FSDP(optim_grads)"
                                         : "";
    line += s.distributed_optimizer ? " distributed-optimizer" : "";
    line += s.sequence_parallel ? " sequence-parallel" : "";
    line += s.moe_a2a_overlap ? " EP-all-to-all-overlap" : "";
    line += s.moe_dispatcher == MoeDispatcher::flex ? " flex-dispatcher" : "";
    if (s.cuda_graph_impl != CudaGraphImpl::none) {
      line += " cuda-graphs(" + cuda_graph_impl_name(s.cuda_graph_impl);
      const bool per_layer = s.cuda_graph_impl != CudaGraphImpl::full_iteration;
      if (per_layer) line += ": " + (s.cuda_graph_modules == 0 ? std::string("whole layer") : cuda_graph_module_names(s.cuda_graph_modules));
      line += ")";
    }
  }
  if (!s.pipeline_layout.empty()) {
    line += fmt::format(" pipeline-layout {}", s.pipeline_layout);
    if (const auto layout = parse_pipeline_layout(s.pipeline_layout)) {
      line += fmt::format(" (decoder layers per PP rank: {})", fmt::join(layout_rank_layers(*layout, s.pp), "/"));
    }
  } else if (s.first_stage_layers > 0 || s.last_stage_layers > 0) {
    line += fmt::format(" first/last stage {}/{} layers", s.first_stage_layers, s.last_stage_layers);
  } else if (s.pipeline_counts_embedding || s.pipeline_counts_loss) {
    line += fmt::format(" {} counted as pipeline layers",
                        s.pipeline_counts_embedding && s.pipeline_counts_loss ? "embedding and loss"
                        : s.pipeline_counts_embedding                         ? "embedding"
                                                                              : "loss");
    if (const auto counts = stage_layer_counts(num_layers, s); counts && s.pp > 1) {
      line += fmt::format(" (decoder layers first/middle/last PP rank: {}/{}/{})", counts->first, counts->middle,
                          counts->last);
    }
  }
  line += fmt::format(", micro-batch {}, recompute {}", s.micro_batch, recompute_name(s.recompute));
  if (s.recompute == Recompute::selective) line += fmt::format(" ({})", recompute_module_names(s.recompute_modules));
  if (s.activation_offload_layers == kOffloadAllButLastLayer) {
    line += ", activations offloaded (all layers but the last)";
  } else if (s.activation_offload_layers > 0) {
    line += fmt::format(", activations of {} layers offloaded", s.activation_offload_layers);
  }
  if (s.activation_func_fp8_input_store) line += ", MLP activation input kept in fp8";
  if (s.compute_dtype == Dtype::fp8) line += ", GEMMs in fp8";
  if (s.compute_dtype == Dtype::fp4) line += ", GEMMs in NVFP4";
  if (s.fp8_param_gather && s.compute_dtype == Dtype::fp8) line += ", weights gathered in fp8";
  if (s.fp4_param_gather && s.compute_dtype == Dtype::fp4) line += ", weights gathered in NVFP4";
  if (s.fp8_params && s.compute_dtype == Dtype::fp8) line += ", layer weights held in fp8";
  if (s.te_op_fuser) line += ", experts through Transformer Engine's op fuser";
  if (s.compute_dtype == Dtype::fp8 && s.fp8_recipe != Fp8Recipe::delayed) {
    line += fmt::format(", fp8 recipe {}", fp8_recipe_name(s.fp8_recipe));
  }
  if (s.compute_dtype == Dtype::fp8 && s.fp8_attention) line += ", attention in fp8";
  if (s.compute_dtype == Dtype::fp8 && s.fp8_output_proj) line += ", output layer in fp8";
  if (s.lora.rank > 0) line += fmt::format(", LoRA rank {}", s.lora.rank);
  if (s.train_mtp) line += s.mtp_depths > 0 ? fmt::format(", MTP trained at {} depths", s.mtp_depths) : ", MTP layers trained";
  if (w.kind != WorkloadKind::rl)
    line += fmt::format(", seq {} x global batch {}", w.seq_len, w.global_batch);
  return line;
}

/// The time model's options from the flags and the memory estimate: the rollout decodes as many
/// sequences at once as the engine's KV budget holds.
TimeOptions time_options(const EstimateFlags& flags, const EstimateInputs& in, const MemoryEstimate& e) {
  TimeOptions options;
  options.flash_attention = in.options.flash_attention;
  options.tp_comm_overlap = flags.tp_comm_overlap;
  options.overlap_grad_reduce = !flags.no_overlap_grad_reduce;
  options.overlap_param_gather = !flags.no_overlap_param_gather;
  apply_moe_routing_flags(flags.moe_dispatcher, options);
  if (in.workload.kind == WorkloadKind::rl) options.rollout_concurrent_sequences = e.rollout.concurrent_sequences_per_replica;
  return options;
}

nlohmann::json estimate_json(const ModelSpec& model, const Cluster& cluster, const EstimateInputs& in,
                             const MemoryEstimate& e) {
  const Strategy& s = in.strategy;
  const Workload& w = in.workload;
  nlohmann::json j;
  j["schema_version"] = 1;  // docs/json.md
  j["model"] = {{"name", model.name}, {"total_params", model.total_params}};
  j["cluster"] = {{"gpus", cluster.total_gpus()}, {"gpu", cluster.groups.front().gpu.id}};
  j["strategy"] = {{"backend", backend_name(s.backend)},
                   {"tp", s.tp},
                   {"pp", s.pp},
                   {"vpp", s.vpp},
                   {"cp", s.cp},
                   {"ep", s.ep},
                   {"etp", s.etp},
                   {"dp", s.dp},
                   {"micro_batch", s.micro_batch},
                   {"recompute", recompute_name(s.recompute)},
                   {"recompute_modules", s.recompute == Recompute::selective
                                             ? recompute_module_list(s.recompute_modules)
                                             : std::vector<std::string>{}},
                   {"sequence_parallel", s.sequence_parallel},
                   {"distributed_optimizer", s.distributed_optimizer},
                   {"zero", static_cast<int>(s.zero)},
                   {"ulysses_sp", s.ulysses_sp},
                   {"moe_a2a_overlap", s.moe_a2a_overlap},
                   {"moe_token_dispatcher_type", std::string(moe_dispatcher_name(s.moe_dispatcher))},
                   {"cuda_graph_impl", cuda_graph_impl_name(s.cuda_graph_impl)},
                   {"cuda_graph_modules", cuda_graph_module_names(s.cuda_graph_modules)},
                   {"activation_func_fp8_input_store", s.activation_func_fp8_input_store},
                   {"compute_dtype", std::string(compute_dtype_name(s.compute_dtype))},
                   {"fp8_param_gather", s.fp8_param_gather},
                   {"fp4_param_gather", s.fp4_param_gather},
                   {"fp8_params", s.fp8_params},
                   {"te_op_fuser", s.te_op_fuser},
                   {"fp8_recipe", std::string(fp8_recipe_name(s.fp8_recipe))},
                   {"fp8_dot_product_attention", s.fp8_attention},
                   {"fp8_output_proj", s.fp8_output_proj},
                   {"num_layers_at_start_in_bf16", s.bf16_first_layers},
                   {"num_layers_at_end_in_bf16", s.bf16_last_layers},
                   {"train_mtp", s.train_mtp},
                   {"mtp_depths", s.train_mtp ? s.mtp_depths : 0},
                   {"lora_rank", s.lora.rank}};
  j["workload"] = {{"kind", workload_name(w.kind)}, {"seq_len", w.seq_len}, {"global_batch", w.global_batch}};
  if (w.kind == WorkloadKind::rl) {
    j["workload"]["rl"] = {{"engine", rollout_engine_name(w.rl.engine)},
                           {"rollout_tp", w.rl.rollout_tp},
                           {"rollout_dp", w.rl.rollout_dp},
                           {"rollout_ep", w.rl.rollout_ep},
                           {"n", w.rl.n},
                           {"prompt_len", w.rl.prompt_len},
                           {"response_len", w.rl.response_len},
                           {"ppo_mini_batch", w.rl.ppo_mini_batch},
                           {"gpu_memory_utilization", w.rl.gpu_memory_utilization},
                           {"rollout_gpus", w.rl.rollout_gpus},
                           {"off_policy_steps", w.rl.off_policy_steps},
                           {"in_flight_weight_updates", w.rl.in_flight_weight_updates},
                           {"partial_rollout", w.rl.partial_rollout},
                           {"vllm_async_scheduling", w.rl.engine == RolloutEngine::vllm && w.rl.vllm_async_scheduling},
                           {"warmup_batches", w.rl.partial_rollout ? w.rl.warmup_batches : 0},
                           {"weight_broadcast", w.rl.standalone_weight_sync == StandaloneWeightSync::link_rate
                                                    ? "pipelined"
                                                    : "checkpoint-engine"},
                           {"rl_framework", w.rl.framework == RlFramework::nemo_rl ? "nemo-rl" : "verl"}};
  }
  j["defaults_chosen"] = in.chosen;
  j["memory"] = memory_estimate_json(e, w.kind == WorkloadKind::rl);
  return j;
}

void print_text(const ModelSpec& model, const Cluster& cluster, const EstimateInputs& in,
                const MemoryTiers& tiers, const TimeEstimate& time, const TimeOptions& options,
                const std::optional<HostCpuSensitivity>& host_cpu, const Trace* trace, const Trace* time_trace,
                std::ostream& out) {
  const MemoryEstimate& e = tiers.expected;
  out << fmt::format("Model {} ({:.2f}B parameters) on {} GPUs ({}, {:.2f} GiB usable each), workload {}\n",
                     model.name, double(model.total_params) / 1e9, cluster.total_gpus(),
                     cluster.groups.front().gpu.id, bytes_to_gib(e.capacity_bytes),
                     workload_name(in.workload.kind));
  out << "Strategy: " << strategy_line(in.strategy, in.workload, model.num_layers) << "\n";
  for (const std::string& note : in.chosen) out << "  chosen: " << note << "\n";
  out << "\n" << render_memory_phases(e);
  if (in.workload.kind == WorkloadKind::rl) out << render_rollout_capacity(e, in.workload.rl);
  if (e.host_bytes_per_node > 0) {
    out << fmt::format("Host RAM per host ({} GPUs) for offloaded states and activations: {:.2f} GiB\n",
                       cluster.groups.front().gpus_per_host(), bytes_to_gib(e.host_bytes_per_node));
  }
  out << "Verdict: " << memory_verdict(e) << "\n";
  if (in.workload.kind == WorkloadKind::rl) out << render_length_tier(tiers) << "\n";
  out << "\n" << render_time_text(time);
  out << render_moe_routing(model, in.strategy, options);
  if (const std::string caveat = attention_caveat(model, options); !caveat.empty()) out << caveat << "\n";
  if (const std::string line = render_host_cpu_sensitivity(cluster.groups.front().gpu, host_cpu, time.step_seconds); !line.empty()) {
    out << line << "\n";
  }
  out << render_time_accuracy(
      time_accuracy_for(model, cluster.groups.front().gpu, in.strategy, in.workload, time.moe_host_wait_share()));
  if (trace != nullptr) out << "\n" << render_memory_trace(*trace);
  if (time_trace != nullptr) out << "\n" << render_time_explain(*time_trace);
}

nlohmann::json trace_json(const Trace& trace) {
  nlohmann::json terms = nlohmann::json::array();
  for (const TraceTerm& t : trace) {
    terms.push_back({{"name", t.name},
                     {"value", t.value},
                     {"unit", t.unit},
                     {"formula", t.formula},
                     {"inputs", t.inputs},
                     {"source", t.source}});
  }
  return terms;
}

void run_estimate(const CLI::App& command, const EstimateFlags& flags, CommandContext& context) {
  const auto catalog = load_gpu_catalog_argument(flags.gpu_catalog);
  if (!catalog) return context.fail(catalog.error());
  const Result<Cluster> cluster = load_cluster_argument(flags.cluster, *catalog);
  if (!cluster) return context.fail(cluster.error());
  const Result<ModelSpec> model = load_model_argument(flags.model);
  if (!model) return context.fail(model.error());
  const Result<EstimateInputs> inputs = estimate_inputs(command, flags, *model, *cluster);
  if (!inputs) return context.fail(inputs.error());
  // The cost models see the trainer's GPUs; engines on GPUs of their own are in the workload.
  const Result<Cluster> trainer = trainer_cluster(*cluster, flags.placement, flags.workload == "rl");
  if (!trainer) return context.fail(trainer.error());
  const std::vector<Violation> violations =
      validate_strategy(inputs->strategy, *model, *trainer, inputs->workload);
  if (!violations.empty()) {
    for (const Violation& v : violations) {
      context.err << fmt::format("meshplan: error: invalid strategy [{}]: {}", v.rule, v.message);
      if (!v.valid.empty()) context.err << fmt::format("; valid: {}", v.valid);
      context.err << "\n";
    }
    context.exit_code = kExitBadInput;
    return;
  }
  Result<VerlMetrics> measured = VerlMetrics{};
  if (!flags.measured.empty()) {
    const Result<std::string> log = read_text_file(flags.measured);
    if (!log) return context.fail(Error{flags.measured, 0, "--measured", log.error().message});
    measured = parse_verl_metrics(*log, flags.measured);
    if (!measured) return context.fail(measured.error());
  }
  Trace trace;
  Trace time_trace;
  Trace* explain = flags.explain ? &trace : nullptr;
  Trace* time_explain = flags.explain ? &time_trace : nullptr;
  const MemoryEstimate e =
      estimate_memory(*model, *trainer, inputs->strategy, inputs->workload, inputs->options, explain);
  const TimeOptions options = time_options(flags, *inputs, e);
  const TimeEstimate time = estimate_time(*model, *trainer, inputs->strategy, inputs->workload, options, time_explain);
  const std::optional<HostCpuSensitivity> host_cpu =
      host_cpu_sensitivity(*model, *trainer, inputs->strategy, inputs->workload, options);
  const MemoryTiers tiers =
      memory_tiers(*model, *trainer, inputs->strategy, inputs->workload, inputs->options, e.capacity_bytes);
  if (flags.json) {
    nlohmann::json j = estimate_json(*model, *trainer, *inputs, e);
    j["memory"]["tier"] = memory_tier_name(tiers.tier);
    if (inputs->workload.kind == WorkloadKind::rl) {
      j["memory"]["at_max_length"] = {{"peak_bytes", tiers.worst.peak_bytes},
                                      {"peak_phase", memory_phase_name(tiers.worst.peak().kind)},
                                      {"fits", tiers.worst.fits},
                                      {"tipping_mean_response_len", tiers.tipping_mean_response_len}};
    }
    j["time"] = time_to_json(time);
    j["time"]["moe_routing"] = moe_routing_json(*model, inputs->strategy, options);
    const std::string caveat = attention_caveat(*model, options);
    j["time"]["attention_caveat"] = caveat.empty() ? nlohmann::json(nullptr) : nlohmann::json(caveat);
    j["time"]["host_cpu"] = host_cpu_sensitivity_json(host_cpu);
    j["time"]["accuracy"] = time_accuracy_json(
        time_accuracy_for(*model, trainer->groups.front().gpu, inputs->strategy, inputs->workload,
                          time.moe_host_wait_share()));
    if (!flags.measured.empty()) {
      j["measured"] = {{"file", flags.measured}, {"steps", measured->steps}, {"steps_used", measured->steps_used},
                       {"metrics", measured->mean}};
    }
    if (explain != nullptr) {
      j["explain"] = trace_json(trace);
      for (nlohmann::json& term : trace_json(time_trace)) j["explain"].push_back(std::move(term));
    }
    context.out << j.dump(2) << "\n";
  } else {
    print_text(*model, *trainer, *inputs, tiers, time, options, host_cpu, explain, time_explain, context.out);
    if (!flags.measured.empty()) {
      context.out << "\n" << render_measured_comparison(time, *measured, bytes_to_gib(e.peak_bytes));
    }
  }
  // Exit 1 only when it does not fit at the expected lengths (docs/memory-model.md "Verdict tiers").
  context.exit_code = tiers.tier == MemoryTier::does_not_fit ? kExitNo : kExitOk;
}

}  // namespace

void register_estimate_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("estimate",
                                     "Per-GPU memory of a training or verl RL configuration: every "
                                     "phase, the most loaded rank, fits or OOM (exit 0 / 1)");
  auto flags = std::make_shared<EstimateFlags>();
  add_estimate_flags(*command, *flags);
  command->callback([&context, flags, command] { run_estimate(*command, *flags, context); });
}

}  // namespace meshplan
