// `meshplan plan`: search every valid strategy for a model on a cluster, rank, explain, emit.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <ostream>

#include "cli/cli.hpp"
#include "cli/cluster_input.hpp"
#include "cli/command.hpp"
#include "cli/inert_flags.hpp"
#include "cli/model_input.hpp"
#include "cli/plan_from.hpp"
#include "cli/plan_json.hpp"
#include "cli/plan_options.hpp"
#include "cli/rl_flag_group.hpp"
#include "cli/script_values.hpp"
#include "cost/calibration/time_accuracy.hpp"
#include "cost/memory/memory_estimate.hpp"
#include "cost/time/host_cpu_sensitivity.hpp"
#include "hardware/cluster_spec.hpp"
#include "report/launch.hpp"
#include "report/plan_report.hpp"
#include "report/time_report.hpp"
#include "search/baseline.hpp"
#include "search/real_cost_model.hpp"
#include "search/rule_binding.hpp"
#include "search/search_space.hpp"
#include "search/sized_cluster.hpp"
#include "strategy/validate.hpp"

namespace meshplan {
namespace {

using Clock = std::chrono::steady_clock;

struct SearchSetup {
  const ModelSpec& model;
  const Workload& workload;
  SpaceOptions space_options;
  SearchOptions search_options;
  std::optional<Dtype> dtype;  ///< heterogeneous: the dtype every group supports
  const PlanLaunch* from = nullptr;  ///< --from: its layout's values join the search space
  bool train_mtp = false;            ///< --mtp: every candidate trains the model's MTP layers
  Strategy graphs;  ///< --cuda-graph-impl / --cuda-graph-modules, the MoE dispatcher flags, the --from launch's Megatron CPU optimizer (their fields only)
  TimeOptions time_options;  ///< --moe-dropless-imbalance
};

struct SearchRun {
  SearchResult result;
  CostModel cost;
  SearchSpace space;
  RuleCheck check;
};

Result<SearchRun> run_search(const SearchSetup& setup, const Cluster& cluster) {
  Result<SearchSpace> space = build_search_space(setup.model, cluster, setup.workload, setup.space_options);
  if (!space) return space.error();
  if (setup.dtype) space->compute_dtype = *setup.dtype;
  space->train_mtp = setup.train_mtp;
  space->cuda_graph_impl = setup.graphs.cuda_graph_impl;
  space->cuda_graph_modules = setup.graphs.cuda_graph_modules;
  space->moe_dispatcher = setup.graphs.moe_dispatcher;
  space->moe_dispatcher_sms = setup.graphs.moe_dispatcher_sms;
  space->optimizer_on_cpu = setup.graphs.offload.optimizer_on_cpu;
  space->optimizer_on_cpu_fraction = setup.graphs.offload.optimizer_fraction;
  if (setup.from) include_in_space(*space, setup.from->strategy, setup.from->workload, setup.model.num_layers);
  SearchRun run{{}, real_cost_model(setup.model, cluster, MemoryOptions{}, setup.time_options), std::move(*space),
                validate_rule_check(setup.model, cluster)};
  run.result = search_plans(setup.model, run.space, setup.workload, run.cost, run.check, setup.search_options);
  return run;
}

Cluster cluster_of_gpus(const Cluster& cluster, int gpus) {
  const int per_node = cluster.groups.front().gpus_per_node;
  return gpus < per_node ? first_gpus(with_nodes(cluster, 1), gpus) : with_nodes(cluster, gpus / per_node);
}

std::optional<EmitFormat> emit_format(const std::string& name) {
  if (name == "verl") return EmitFormat::verl;
  if (name == "megatron") return EmitFormat::megatron;
  if (name == "env") return EmitFormat::env;
  if (name == "slurm") return EmitFormat::slurm;
  return std::nullopt;
}

// A progress line on stderr, only on a terminal and only once a search has run for a second.
std::function<void(std::size_t, std::size_t)> progress_printer(CommandContext& context, Clock::time_point start) {
  if (!context.terminal) return {};
  return [&context, start](std::size_t done, std::size_t total) {
    if (Clock::now() - start < std::chrono::seconds(1)) return;
    context.err << fmt::format("\rsearching: {}/{} parallel layouts", done, total) << (done == total ? "\n" : "")
                << std::flush;
  };
}

// --from: the launch script read through check's parser.
Result<std::optional<PlanLaunch>> read_from(const PlanOptions& options, const std::vector<GpuSpec>& catalog) {
  if (options.from.empty()) {
    if (options.model.empty() || options.cluster.empty()) {
      return Error{"", 0, options.model.empty() ? "--model" : "--cluster",
                   "required (or --from SCRIPT, which gives the model and the cluster)"};
    }
    if (!options.gpu.empty()) return Error{"", 0, "--gpu", "applies with --from only (else --cluster names the GPUs)"};
    if (!options.from_env.empty()) return Error{"", 0, "--env", "applies with --from only (a variable of its script)"};
    if (!options.from_set.empty()) return Error{"", 0, "--set", "applies with --from only (an override of its script)"};
    return std::optional<PlanLaunch>();
  }
  // A flag for what the launch sets would be silently ignored: its verl key is what changes it.
  for (const LaunchSetFlag& set : flags_a_launch_sets()) {
    if (std::find(options.given_launch_flags.begin(), options.given_launch_flags.end(), set.flag) ==
        options.given_launch_flags.end()) {
      continue;
    }
    if (*set.verl_key == '\0') {
      return Error{"", 0, set.flag, "does not apply with --from: a verl launch is an rl workload"};
    }
    return Error{"", 0, set.flag,
                 fmt::format("does not apply with --from: the launch sets it ({}); change it with --set KEY=VALUE",
                             set.verl_key)};
  }
  Result<std::string> text = read_text_file(options.from);
  if (!text) return text.error();
  VerlReadOptions read;
  auto environment = parse_env_arguments(options.from_env);
  if (!environment) return environment.error();
  read.environment = std::move(environment.value());
  read.set_overrides = options.from_set;
  const PlanLaunchArguments arguments{options.model, options.gpu, options.cluster, options.mean_prompt_len,
                                      options.mean_response_len, options.images_per_sample, options.image_pixels};
  Result<PlanLaunch> launch =
      read_plan_launch({InputText{options.from, std::move(text.value())}}, read, arguments, catalog);
  if (!launch) return launch.error();
  return std::optional<PlanLaunch>(std::move(launch.value()));
}

void run_plan(const CLI::App& command, const PlanOptions& options, CommandContext& context) {
  const auto catalog = load_gpu_catalog_argument(options.gpu_catalog);
  if (!catalog) return context.fail(catalog.error());
  const Result<std::optional<PlanLaunch>> from = read_from(options, *catalog);
  if (!from) return context.fail(from.error());
  const Result<ModelSpec> model = *from ? Result<ModelSpec>((*from)->model) : load_model_argument(options.model);
  if (!model) return context.fail(model.error());
  const Result<Cluster> cluster = *from ? Result<Cluster>((*from)->cluster) : load_cluster_argument(options.cluster, *catalog);
  if (!cluster) return context.fail(cluster.error());
  Result<Workload> workload = plan_workload(options, *model);  // validates the flags
  if (!workload) return context.fail(workload.error());
  if (*from) workload = (*from)->workload;
  const Result<Fixes> fixes = plan_fixes(options);
  if (!fixes) return context.fail(fixes.error());
  const Result<Objective> objective = plan_objective(options);
  if (!objective) return context.fail(objective.error());
  const std::optional<EmitFormat> format = emit_format(options.emit);
  if (!options.emit.empty() && !format) {
    return context.fail(Error{"", 0, "--emit", fmt::format("'{}': expected verl, megatron, env or slurm", options.emit)});
  }
  if (format == EmitFormat::verl && workload->kind != WorkloadKind::rl) {
    return context.fail(Error{"", 0, "--emit", "verl launches are for --workload rl (use megatron for pretraining)"});
  }
  // Engines on GPUs of their own: the search runs on the trainer's GPUs.
  Result<Cluster> trainer = trainer_cluster(*cluster, options.placement, workload->kind == WorkloadKind::rl);
  if (!trainer) return context.fail(trainer.error());
  workload->rl.rollout_gpus_per_node = rollout_gpus_per_shared_host(*cluster, workload->rl.rollout_gpus);
  if (options.placement.split_search &&
      (workload->kind != WorkloadKind::rl || workload->rl.rollout_gpus > 0 || *from || options.min_gpus ||
       cluster->heterogeneous())) {
    return context.fail(Error{"", 0, "--rollout-split",
                              "tries the placements itself on one GPU type: --workload rl, without --rollout-gpus, "
                              "--from, --min-gpus or a heterogeneous cluster"});
  }
  // verl's one-step-off trainer runs the engines exactly one step ahead, waiting for each weight
  // sync (OneStepOffRayTrainer); more steps or in-flight updates are NeMo RL's async GRPO.
  const bool one_step_off = workload->rl.off_policy_steps == 1 && !workload->rl.in_flight_weight_updates;
  const bool verl_emit = format == EmitFormat::verl || format == EmitFormat::slurm;
  if (workload->rl.rollout_gpus > 0 && (*from || (format && !(verl_emit && one_step_off)) || options.min_gpus)) {
    return context.fail(Error{"", 0, "--rollout-gpus",
                              *from ? "does not combine with --from (the launch places its own engines)"
                              : format ? "--emit writes engines on GPUs of their own as verl's one-step-off trainer "
                                         "(--emit verl or slurm with --off-policy-steps 1, no in-flight updates)"
                                       : "does not combine with --min-gpus"});
  }

  const auto start = Clock::now();
  SearchSetup setup{*model, *workload, {options.allow_cross_node_tp, *objective == Objective::gpus, *fixes},
                    {*objective, options.headroom, options.top, progress_printer(context, start)}, std::nullopt,
                    *from ? &**from : nullptr, options.mtp, {}, {}};
  if (Status graphs = apply_cuda_graph_flags(options.cuda_graphs, setup.graphs); !graphs) return context.fail(graphs.error());
  // The dispatcher of the --from launch, unless the flags say otherwise.
  if (setup.from != nullptr) {
    setup.graphs.moe_dispatcher = setup.from->strategy.moe_dispatcher;
    setup.graphs.moe_dispatcher_sms = setup.from->strategy.moe_dispatcher_sms;
    setup.graphs.offload = setup.from->strategy.offload;  // its Megatron CPU optimizer, kept
  }
  apply_moe_dispatcher_flags(options.moe_dispatcher, setup.graphs);
  apply_moe_routing_flags(options.moe_dispatcher, setup.time_options);
  if (std::optional<Error> inert = inert_flag(command, setup.graphs, *model, *workload)) return context.fail(*inert);
  if (setup.graphs.cuda_graph_impl != CudaGraphImpl::none && workload->kind == WorkloadKind::rl) {
    return context.fail(Error{"", 0, "--cuda-graph-impl",
                              "is for Megatron-LM pretraining and SFT: verl's Megatron workers build no CUDA graphs "
                              "of the training step (verl main@1dda039b has no such setting)"});
  }
  if (options.mtp && model->num_mtp_layers == 0) {
    return context.fail(Error{"", 0, "--mtp", model->name + " has no multi-token-prediction layers (num_nextn_predict_layers)"});
  }
  // --rollout-split: the best of each placement (colocated, then engines on whole nodes of their
  // own one step ahead); the shortest step's placement is planned as if given.
  std::vector<PlanView::Placement> placements;
  if (options.placement.split_search) {
    SearchSetup quiet = setup;
    quiet.search_options.progress = {};
    quiet.search_options.top_k = 1;
    std::optional<std::size_t> fastest;
    for (int engine_gpus : rollout_split_candidates(*cluster)) {
      RolloutPlacementFlags flags;
      flags.rollout_gpus = engine_gpus;
      flags.off_policy_steps = engine_gpus > 0 ? 1 : 0;
      if (engine_gpus > 0) flags.weight_broadcast = options.placement.weight_broadcast;
      flags.partial_rollout = options.placement.partial_rollout;
      flags.warmup_batches = options.placement.warmup_batches;
      const Result<Cluster> side = trainer_cluster(*cluster, flags, true);
      if (!side) continue;
      Workload placed = *workload;
      apply_rollout_placement(flags, placed.rl);
      const SearchSetup each{quiet.model,  placed,     quiet.space_options, quiet.search_options,
                             quiet.dtype, quiet.from, quiet.train_mtp, quiet.graphs, quiet.time_options};
      const Result<SearchRun> run = run_search(each, *side);
      if (!run) return context.fail(run.error());
      PlanView::Placement row{engine_gpus, side->total_gpus(), std::nullopt};
      if (!run->result.top.empty()) row.best = run->result.top.front();
      if (row.best && (!fastest || row.best->step_seconds < placements[*fastest].best->step_seconds)) {
        fastest = placements.size();
      }
      placements.push_back(std::move(row));
    }
    if (fastest) {
      RolloutPlacementFlags chosen;
      chosen.rollout_gpus = placements[*fastest].engine_gpus;
      chosen.off_policy_steps = chosen.rollout_gpus > 0 ? 1 : 0;
      if (chosen.rollout_gpus > 0) chosen.weight_broadcast = options.placement.weight_broadcast;
      chosen.partial_rollout = options.placement.partial_rollout;
      chosen.warmup_batches = options.placement.warmup_batches;
      apply_rollout_placement(chosen, workload->rl);
      trainer = trainer_cluster(*cluster, chosen, true);
    }
  }
  // Heterogeneous clusters: plan each group alone (in the dtype all groups support), then the
  // cross-group options are derived from those plans.
  Cluster used = *trainer;
  std::optional<HeterogeneousPlan> heterogeneous;
  std::vector<std::unique_ptr<SearchRun>> group_runs;
  std::vector<Cluster> group_clusters;  // outlive the cost models that refer to them
  for (const NodeGroup& group : cluster->groups) group_clusters.push_back(Cluster{{group}});
  if (cluster->heterogeneous()) {
    setup.dtype = common_compute_dtype(*cluster);
    for (const Cluster& group_cluster : group_clusters) {
      Result<SearchRun> run = run_search(setup, group_cluster);
      if (!run) return context.fail(run.error());
      group_runs.push_back(std::make_unique<SearchRun>(std::move(*run)));
    }
    heterogeneous = plan_heterogeneous(*model, *cluster, *workload, options.headroom, [&](std::size_t i) {
      const auto& top = group_runs[i]->result.top;
      return top.empty() ? std::nullopt : std::optional<PlanCandidate>(top.front());
    });
    const std::size_t best = heterogeneous->best_alone >= 0 ? static_cast<std::size_t>(heterogeneous->best_alone) : 0;
    used = Cluster{{cluster->groups[best]}};
  }
  std::unique_ptr<SearchRun> main_run;
  if (heterogeneous) {
    main_run = std::move(group_runs[heterogeneous->best_alone >= 0 ? heterogeneous->best_alone : 0]);
  } else {
    Result<SearchRun> run = run_search(setup, used);
    if (!run) return context.fail(run.error());
    main_run = std::make_unique<SearchRun>(std::move(*run));
  }
  const SearchResult& result = main_run->result;

  PlanView view;
  view.model_name = model->name;
  view.cluster_text = *from ? (*from)->cluster_text : options.cluster;
  view.cluster_notes = cluster_topology_notes(*cluster);
  if (*from && !(*from)->gpu_source.empty()) view.cluster_notes.push_back("GPU type " + (*from)->gpu_source);
  view.workload_name = *from ? "rl" : options.workload;
  view.objective_name = options.objective;
  view.headroom = options.headroom;
  view.capacity_bytes = main_run->cost.capacity_bytes;
  view.result = &result;
  view.heterogeneous = heterogeneous;
  view.placements = std::move(placements);
  for (const PlanCandidate& candidate : result.top) {
    view.top_memory.push_back(main_run->cost.breakdown(candidate.strategy, candidate.workload));
  }
  if (*from) {
    const PlanLaunch& launch = **from;
    view.baseline = LaunchBaseline{
        options.from,
        evaluate_baseline(launch.strategy, launch.workload, main_run->cost, main_run->check, result.usable_bytes),
        outside_space(main_run->space, launch.strategy, launch.workload, model->num_layers), ""};
    for (const Violation& violation : validate_strategy(launch.strategy, *model, used, launch.workload)) {
      if (violation.rule == view.baseline->baseline.broken_rule) view.baseline->broken_message = violation.message;
    }
  }
  if (result.closest_miss) view.remedies = remedies_for(*result.closest_miss, main_run->cost, result.usable_bytes);
  if (options.explain || options.json) {
    const NeighbourSearch neighbours{main_run->space, main_run->cost, main_run->check, result.usable_bytes,
                                     model->num_layers};
    view.explanation = explain_winner(result, *model, used, *objective, neighbours);
  }
  if (!result.top.empty()) {
    const double cpu_seconds_per_image = options.cpu_ms_per_image ? *options.cpu_ms_per_image / 1000
                                                                   : default_cpu_seconds_per_image(workload->image_pixels);
    view.data_loader = data_loader_need(*workload, result.top.front().step_seconds, cpu_seconds_per_image);
    const PlanCandidate& winner = result.top.front();
    const double host_wait_share =
        winner.step_seconds > 0 ? winner.time.of(TimeComponent::moe_host_wait) / winner.step_seconds : 0.0;
    view.accuracy = time_accuracy_for(*model, used.groups.front().gpu, winner.strategy, winner.workload, host_wait_share);
    view.moe_routing = render_moe_routing(*model, winner.strategy, setup.time_options);
    view.attention_caveat = attention_caveat(*model, setup.time_options);
    const Cluster sized = first_gpus(used, winner.gpus);
    const TimeOptions winner_options = time_options_for(
        estimate_memory(*model, sized, winner.strategy, winner.workload, MemoryOptions{}, nullptr), setup.time_options);
    view.host_cpu = render_host_cpu_sensitivity(
        used.groups.front().gpu, host_cpu_sensitivity(*model, sized, winner.strategy, winner.workload, winner_options),
        winner.step_seconds);
  }
  if (options.min_gpus) {
    SearchSetup quiet = setup;
    quiet.search_options.progress = {};
    quiet.search_options.top_k = 1;
    view.min_gpus = smallest_fitting_gpus(
        [&](int gpus) {
          const Result<SearchRun> run = run_search(quiet, cluster_of_gpus(used, gpus));
          return run.ok() && run->result.feasible > 0;
        },
        used.groups.front().gpus_per_node, 1 << 16);
  }
  view.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();

  if (!options.html.empty()) {
    std::ofstream html(options.html, std::ios::binary);
    html << render_plan_html(view);
    if (!html) return context.fail(Error{options.html, 0, "--html", "cannot write the HTML report"});
  }
  if (format && !result.top.empty()) {
    // A diff of the script's overrides keeps its backend (its config name, ppo_trainer or
    // ppo_megatron_trainer, decides which keys exist): the best plan of that backend.
    const PlanCandidate* chosen = &result.top.front();
    if (*from && *format == EmitFormat::verl && chosen->strategy.backend != (*from)->strategy.backend) {
      for (const Alternative& alternative : result.alternatives) {
        if (alternative.candidate.strategy.backend != (*from)->strategy.backend) continue;
        context.err << fmt::format("meshplan: the best plan ({}) changes the backend, which overrides cannot; "
                                   "this is the best plan of the script's backend ({} its speed)\n",
                                   describe_strategy(*chosen), speedup_text(*view.baseline, alternative.candidate));
        chosen = &alternative.candidate;
      }
    }
    const PlanCandidate& winner = *chosen;
    const std::string model_path = !options.model_path.empty() ? options.model_path
                                   : *from                    ? (*from)->model_path
                                                              : options.model;
    // A cross-group pipeline is a torchrun launch (stage k on group k by NODE_RANK); verl's Ray
    // workers are not placed by GPU type, so a verl launch uses the best group alone.
    const std::optional<Strategy> across =
        heterogeneous ? cross_group_pipeline(*heterogeneous, *cluster, *model) : std::nullopt;
    const bool torchrun = *format == EmitFormat::megatron ||
                          (*format == EmitFormat::slurm && workload->kind != WorkloadKind::rl);
    if (across && torchrun) {
      context.out << emit(LaunchSpec{*model, model_path, *across, winner.workload, *cluster, view.data_loader.workers},
                          *format);
      context.err << fmt::format("meshplan: emitted the pipeline across the groups ({:+.0f}% over {} alone)\n",
                                 heterogeneous->gain_over_alone * 100, used.groups.front().gpu.id);
    } else {
      const Cluster launch_cluster = first_gpus(used, winner.gpus);
      // The search took the dtype every GPU of the cluster supports; this launch runs on
      // launch_cluster alone, so it takes the best dtype of those GPUs (bf16 on A100s beside V100s).
      Strategy strategy = winner.strategy;
      strategy.compute_dtype = common_compute_dtype(launch_cluster);
      const LaunchSpec spec{*model, model_path, strategy, winner.workload, launch_cluster, view.data_loader.workers};
      if (*from && *format == EmitFormat::verl) {
        context.out << verl_override_diff(**from, spec, options.from, speedup_over_baseline(*view.baseline, winner));
      } else {
        context.out << emit(spec, *format);
      }
      context.err << fmt::format("meshplan: emitted the winner: {} ({:.0f} tokens/s, peak {:.1f} GiB)\n",
                                 describe_strategy(winner), winner.tokens_per_second, winner.peak_bytes / (1 << 30));
      for (const std::string& note : view.cluster_notes) context.err << "meshplan: cluster: " << note << "\n";
      if (heterogeneous && heterogeneous->choice != "alone") {
        context.err << fmt::format(
            "meshplan: the heterogeneous choice ({}, {:+.0f}%) is not in this launch: {}; it runs on {} alone\n",
            heterogeneous->choice, heterogeneous->gain_over_alone * 100,
            across ? "use --emit megatron (torchrun places pipeline stages by NODE_RANK; Ray does not place verl's "
                     "workers by GPU type)"
                   : "no verl or Megatron launch places phases or stages on GPU types",
            used.groups.front().gpu.id);
      }
    }
  } else if (options.json) {
    context.out << plan_json(PlanJsonInputs{view, *model, used, setup.time_options}) << "\n";
  } else {
    context.out << render_plan_text(view, context.terminal);
  }
  if (result.top.empty()) {
    if (format) context.err << render_plan_text(view, false);
    context.exit_code = kExitNo;
  }
}

}  // namespace

void register_plan_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<PlanOptions>();
  auto* command = app.add_subcommand("plan", "Search every valid strategy, rank, explain, and emit the launch");
  add_plan_flags(*command, *options);
  command->callback([options, command, &context] {
    for (const LaunchSetFlag& set : flags_a_launch_sets()) {
      if (command->get_option(set.flag)->count() > 0) options->given_launch_flags.emplace_back(set.flag);
    }
    options->rl_flag_given = first_rl_flag_given(*command);
    options->seq_len_given = command->get_option("--seq-len")->count() > 0;
    run_plan(*command, *options, context);
  });
}

}  // namespace meshplan
