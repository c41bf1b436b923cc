#include "verl/rules/megatron_arguments.hpp"

#include <fmt/format.h>

#include <map>

#include "strategy/pipeline_layout.hpp"
#include "strategy/pipeline_split.hpp"

namespace meshplan {
namespace {

struct MegatronArgs {
  std::map<std::string, ShellArgument> values;  ///< "--flag" -> value ("" for a bare flag)
  std::map<std::string, std::vector<ShellArgument>> lists;  ///< "--flag" -> every value up to the next flag (nargs='+')

  std::optional<long long> integer(const std::string& flag) const {
    const auto it = values.find(flag);
    if (it == values.end() || it->second.unknown) return std::nullopt;
    try {
      std::size_t used = 0;
      const long long value = std::stoll(it->second.text, &used);
      if (used == it->second.text.size()) return value;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  bool has(const std::string& flag) const { return values.count(flag) > 0; }
  SourceLocation where(const std::string& flag) const {
    const auto it = values.find(flag);
    return it == values.end() ? SourceLocation{} : it->second.location;
  }
};

MegatronArgs parse(const Launch& launch) {
  MegatronArgs args;
  for (std::size_t i = 0; i < launch.arguments.size(); ++i) {
    const ShellArgument& arg = launch.arguments[i];
    if (arg.text.rfind("--", 0) != 0) continue;
    const std::size_t eq = arg.text.find('=');
    if (eq != std::string::npos) {
      args.values[arg.text.substr(0, eq)] = ShellArgument{arg.text.substr(eq + 1), arg.unknown, arg.location};
    } else if (i + 1 < launch.arguments.size() && launch.arguments[i + 1].text.rfind("--", 0) != 0) {
      std::vector<ShellArgument>& list = args.lists[arg.text];
      for (std::size_t j = i + 1; j < launch.arguments.size() && launch.arguments[j].text.rfind("--", 0) != 0; ++j) {
        list.push_back(launch.arguments[j]);
      }
      args.values[arg.text] = launch.arguments[++i];
    } else {
      args.values[arg.text] = ShellArgument{"", std::nullopt, arg.location};
    }
  }
  return args;
}

void divides(const MegatronArgs& args, std::vector<Finding>& out, const std::string& rule, const std::string& count_flag,
             const std::string& size_flag, const std::string& what) {
  const auto count = args.integer(count_flag);
  const auto size = args.integer(size_flag);
  if (!count || !size || *size <= 1 || *count % *size == 0) return;
  Finding finding;
  finding.severity = Severity::error;
  finding.rule = rule;
  finding.keys = {count_flag, size_flag};
  finding.value = std::to_string(*size);
  finding.message = fmt::format("{} {} = {} is not divisible by {} = {}: Megatron-LM stops in validate_args / "
                                "TransformerConfig before training",
                                what, count_flag, *count, size_flag, *size);
  finding.location = args.where(size_flag);
  out.push_back(std::move(finding));
}

// A finding about flags, located at the first flag that was given.
Finding flag_finding(const MegatronArgs& args, Severity severity, const std::string& rule,
                     std::vector<std::string> flags, const std::string& message) {
  Finding finding;
  finding.severity = severity;
  finding.rule = rule;
  finding.location = args.where(flags.front());
  finding.keys = std::move(flags);
  finding.message = message;
  return finding;
}

// An even split (arguments.py validate_args): --account-for-embedding-in-pipeline-split and
// --account-for-loss-in-pipeline-split each count as one more layer before the division.
void even_pipeline(const MegatronArgs& args, std::vector<Finding>& out) {
  const auto layers = args.integer("--num-layers");
  const auto pp = args.integer("--pipeline-model-parallel-size");
  if (!layers || !pp || *pp <= 1) return;
  const int extra = int(args.has("--account-for-embedding-in-pipeline-split")) +
                    int(args.has("--account-for-loss-in-pipeline-split"));
  if ((*layers + extra) % *pp == 0) return;
  Finding finding = flag_finding(
      args, Severity::error, "megatron.pp-layers",
      {"--num-layers", "--pipeline-model-parallel-size", "--account-for-embedding-in-pipeline-split",
       "--account-for-loss-in-pipeline-split"},
      extra == 0 ? fmt::format("layers --num-layers = {} is not divisible by --pipeline-model-parallel-size = {}: "
                               "Megatron-LM stops in validate_args / TransformerConfig before training",
                               *layers, *pp)
                 : fmt::format("--num-layers {} plus {} for the embedding / loss stage accounted in the split = {} "
                               "is not divisible by --pipeline-model-parallel-size = {}: Megatron-LM stops in "
                               "validate_args before training",
                               *layers, extra, *layers + extra, *pp));
  finding.value = std::to_string(*pp);
  finding.location = args.where("--pipeline-model-parallel-size");
  out.push_back(std::move(finding));
}

// An uneven split: the stages without their own count share the rest evenly
// (strategy/pipeline_split.hpp mirrors Megatron-core's arithmetic).
void uneven_pipeline(const MegatronArgs& args, std::vector<Finding>& out) {
  const auto layers = args.integer("--num-layers");
  const auto pp = args.integer("--pipeline-model-parallel-size");
  if (!layers || !pp) return;
  Strategy strategy;
  strategy.pp = static_cast<int>(*pp);
  strategy.first_stage_layers = static_cast<int>(args.integer("--decoder-first-pipeline-num-layers").value_or(0));
  strategy.last_stage_layers = static_cast<int>(args.integer("--decoder-last-pipeline-num-layers").value_or(0));
  if (stage_layer_counts(*layers, strategy)) return;
  out.push_back(flag_finding(
      args, Severity::error, "megatron.pp-layers",
      {"--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers", "--num-layers",
       "--pipeline-model-parallel-size"},
      fmt::format("--num-layers {} minus first stage {} and last stage {} cannot be shared evenly by the other "
                  "pipeline stages of --pipeline-model-parallel-size {}: Megatron-core's TransformerConfig stops "
                  "before training",
                  *layers, strategy.first_stage_layers, strategy.last_stage_layers, *pp)));
}

// --pipeline-model-parallel-layout: arguments.py allows none of the other VPP flags beside it and
// TransformerConfig none of the first/last stage counts; the layout itself must hold --num-layers
// and --mtp-num-layers as pipeline_parallel_layer_layout.py validates it.
void pipeline_layout(const MegatronArgs& args, std::vector<Finding>& out) {
  const auto it = args.values.find("--pipeline-model-parallel-layout");
  if (it->second.unknown) return;
  const std::vector<std::string> flags = {"--pipeline-model-parallel-layout", "--pipeline-model-parallel-size",
                                          "--num-layers"};
  for (const char* other : {"--num-layers-per-virtual-pipeline-stage", "--num-virtual-stages-per-pipeline-rank",
                            "--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers"}) {
    if (!args.has(other)) continue;
    out.push_back(flag_finding(args, Severity::error, "megatron.pp-layout", {"--pipeline-model-parallel-layout", other},
                               fmt::format("--pipeline-model-parallel-layout cannot be set with {}: Megatron-LM stops "
                                           "in validate_args / TransformerConfig before training",
                                           other)));
    return;
  }
  const auto layout = parse_pipeline_layout(it->second.text);
  if (!layout) {
    out.push_back(flag_finding(args, Severity::error, "megatron.pp-layout", flags, layout.error().message));
    return;
  }
  const auto layers = args.integer("--num-layers");
  const auto pp = args.integer("--pipeline-model-parallel-size");
  if (!layers || !pp) return;
  const auto error = pipeline_layout_error(*layout, static_cast<int>(*pp), 0, *layers,
                                           static_cast<int>(args.integer("--mtp-num-layers").value_or(0)));
  if (!error) return;
  out.push_back(flag_finding(args, Severity::error, "megatron.pp-layout", flags,
                             *error + ": Megatron-core's TransformerConfig stops before training"));
}

// --overlap-moe-expert-parallel-comm: TransformerConfig.__post_init__ asserts expert parallelism,
// interleaving when PP > 1 and no full recomputation (transformer_config.py, "if
// self.overlap_moe_expert_parallel_comm:"); the flags say all three without the model.
void a2a_overlap(const MegatronArgs& args, std::vector<Finding>& out) {
  if (!args.has("--overlap-moe-expert-parallel-comm")) return;
  const auto refuse = [&](const std::string& flag, const std::string& message) {
    out.push_back(flag_finding(args, Severity::error, "megatron.a2a-overlap", {"--overlap-moe-expert-parallel-comm", flag},
                               message + ": Megatron-core's TransformerConfig stops before training"));
  };
  // EP 1 when the flag is absent (Megatron's default) or says so; a value the shell computes is not judged.
  const bool ep_given = args.has("--expert-model-parallel-size");
  if (!ep_given || args.integer("--expert-model-parallel-size").value_or(2) <= 1) {
    refuse("--expert-model-parallel-size", "overlap_moe_expert_parallel_comm is only supported with expert model parallelism");
  }
  const auto pp = args.integer("--pipeline-model-parallel-size").value_or(1);
  bool interleaved = args.has("--num-layers-per-virtual-pipeline-stage") || args.has("--num-virtual-stages-per-pipeline-rank");
  if (const auto layout = args.values.find("--pipeline-model-parallel-layout"); layout != args.values.end()) {
    // A layout sets VPP = its stages / PP (pipeline_parallel_layer_layout.py); unknown text: assume it does.
    const auto parsed = parse_pipeline_layout(layout->second.text);
    interleaved = layout->second.unknown || !parsed || layout_vpp(*parsed, static_cast<int>(pp)) > 1;
  }
  if (pp > 1 && !interleaved) {
    refuse("--pipeline-model-parallel-size", "If enabling EP A2A overlap, virtual_pipeline_model_parallel_size must be "
                                             "specified when pipeline_model_parallel_size > 1");
  }
  const auto granularity = args.values.find("--recompute-granularity");
  if (granularity != args.values.end() && granularity->second.text == "full") {
    refuse("--recompute-granularity", "disable full recomputation when enabling overlap_moe_expert_parallel_comm");
  }
}

// CUDA graphs: what Megatron-LM refuses from the flags alone (arguments.py validate_args and
// TransformerConfig.__post_init__, "if self.cuda_graph_impl != \"none\":"; --cuda-graph-modules
// takes nargs='+' and replaced the hidden --cuda-graph-scope, whose "full_iteration" became
// --cuda-graph-impl full_iteration). Refusals added after --cuda-graph-impl itself (2025-10-14,
// 5769804591) are warnings that name the commit: an older Megatron-LM runs those combinations.
void cuda_graphs(const MegatronArgs& args, std::vector<Finding>& out) {
  const auto impl_it = args.values.find("--cuda-graph-impl");
  const char* deprecated = args.has("--enable-cuda-graph")     ? "--enable-cuda-graph"
                           : args.has("--external-cuda-graph") ? "--external-cuda-graph"
                                                               : nullptr;
  if (impl_it == args.values.end() && deprecated == nullptr) return;
  const std::string first = impl_it != args.values.end() ? "--cuda-graph-impl" : deprecated;
  const auto refuse = [&](Severity severity, const std::string& flag, const std::string& message) {
    out.push_back(flag_finding(args, severity, "megatron.cuda-graph", {first, flag},
                               severity == Severity::error
                                   ? message + ": Megatron-LM stops before training"
                                   : message + " (Megatron-core from 2b343d739f, 2025-12-31, stops before training; "
                                               "an older Megatron-LM runs it)"));
  };
  if (impl_it != args.values.end() && deprecated != nullptr) {
    refuse(Severity::error, deprecated, "Do not use --enable-cuda-graph or --external-cuda-graph with --cuda-graph-impl.");
    return;
  }
  if (impl_it != args.values.end() && impl_it->second.unknown) return;
  const std::string impl = impl_it != args.values.end() ? impl_it->second.text
                           : args.has("--enable-cuda-graph") ? std::string("local")
                                                             : std::string("transformer_engine");
  if (impl == "none") return;
  std::uint8_t modules = 0;
  bool full_iteration_scope = false;
  std::string modules_flag;
  for (const char* flag : {"--cuda-graph-modules", "--cuda-graph-scope"}) {
    const auto list = args.lists.find(flag);
    if (list == args.lists.end()) continue;
    if (!modules_flag.empty()) {
      refuse(Severity::error, flag, "--cuda-graph-scope and --cuda-graph-modules cannot be used together.");
      return;
    }
    modules_flag = flag;
    for (const ShellArgument& name : list->second) {
      if (name.unknown) return;
      if (name.text == "full_iteration") full_iteration_scope = true;
      if (const auto module = cuda_graph_module_of(name.text)) modules |= *module;
    }
  }
  if (impl == "full_iteration" || full_iteration_scope) {
    if (modules != 0) {
      refuse(Severity::error, modules_flag, "--cuda-graph-modules must be empty when --cuda-graph-impl=full_iteration.");
    }
    if (!args.has("--no-check-for-nan-in-loss-and-grad")) {
      refuse(Severity::error, "--no-check-for-nan-in-loss-and-grad",
             "--no-check-for-nan-in-loss-and-grad should be set with --cuda-graph-impl=full_iteration for training.");
    }
    return;
  }
  if (args.integer("--cpu-offloading-num-layers").value_or(0) > 0) {
    refuse(Severity::error, "--cpu-offloading-num-layers", "CUDA graphs not supported with CPU offloading.");
  }
  const auto granularity = args.values.find("--recompute-granularity");
  if (granularity != args.values.end() && granularity->second.text == "full") {
    refuse(Severity::warning, "--recompute-granularity", "full recompute is only supported with full iteration CUDA graph.");
  }
  if ((modules & kGraphMoe) && (modules & kGraphMoeRouter)) {
    refuse(Severity::warning, modules_flag, "cuda_graph_modules must not contain both moe and moe_router.");
  }
  // The local impl adds moe_router itself; Transformer Engine's refuses.
  if (impl == "transformer_engine" && (modules & kGraphMoePreprocess) && !(modules & kGraphMoeRouter)) {
    refuse(Severity::warning, modules_flag, "moe_preprocess cuda graph is only supported with moe_router cuda graph.");
  }
}

}  // namespace

std::vector<Finding> check_megatron_arguments(const Launch& launch) {
  const MegatronArgs args = parse(launch);
  std::vector<Finding> out;
  divides(args, out, "megatron.tp-heads", "--num-attention-heads", "--tensor-model-parallel-size", "attention heads");
  divides(args, out, "megatron.tp-query-groups", "--num-query-groups", "--tensor-model-parallel-size", "query groups");
  if (args.has("--pipeline-model-parallel-layout")) {
    pipeline_layout(args, out);
  } else if (args.has("--decoder-first-pipeline-num-layers") || args.has("--decoder-last-pipeline-num-layers")) {
    uneven_pipeline(args, out);
  } else {
    even_pipeline(args, out);
  }
  divides(args, out, "megatron.ep-experts", "--num-experts", "--expert-model-parallel-size", "experts");
  a2a_overlap(args, out);
  cuda_graphs(args, out);
  divides(args, out, "megatron.global-batch-micro", "--global-batch-size", "--micro-batch-size", "global batch");
  const bool interleaved =
      args.has("--num-layers-per-virtual-pipeline-stage") || args.has("--virtual-pipeline-model-parallel-size");
  if (interleaved && args.integer("--pipeline-model-parallel-size").value_or(1) <= 1) {
    out.push_back(flag_finding(args, Severity::error, "megatron.vpp-needs-pp",
                               {"--virtual-pipeline-model-parallel-size", "--pipeline-model-parallel-size"},
                               "pipeline-model-parallel size should be greater than 1 with interleaved schedule"));
  }
  if (args.has("--sequence-parallel") && args.integer("--tensor-model-parallel-size").value_or(1) <= 1) {
    out.push_back(flag_finding(args, Severity::warning, "megatron.sequence-parallel-tp1",
                               {"--sequence-parallel", "--tensor-model-parallel-size"},
                               "--sequence-parallel with tensor parallel size 1 does nothing (Megatron-LM turns it off)"));
  }
  return out;
}

}  // namespace meshplan
