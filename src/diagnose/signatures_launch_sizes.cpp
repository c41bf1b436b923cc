// Signatures of a launch that asks more than it has, as the RL frameworks' own start-up code words
// it, with or without the exception in front (retry logs, the assert line of a traceback): GPUs
// the Ray cluster does not hold, a placement group with fewer bundles than workers, workers asking
// more CPU or memory than Ray has, a GRPO batch that does not split into the generations of a
// prompt, verl's mini batch over its train batch, a data row longer than the run's max length.
// Each from a public thread whose resolution names the cause (tests/fixtures/logs/real/index.json).
#include "diagnose/signature_tables.hpp"

namespace meshplan {

using namespace signature_words;

std::vector<Signature> launch_size_signatures() {
  return {
      // NeMo RL's RayVirtualCluster retries the placement group, logging the refusal each time
      // (NVIDIA-NeMo/RL#271, #89): cluster.num_nodes x cluster.gpus_per_node over the Ray cluster.
      {"ray_cluster_too_few_gpus", "resources", primary, {"Not enough GPUs available. Requested "},
       R"(Requested (\d+) GPUs, but only (\d+) are available)", {{"requested", number}, {"available", number}}, {},
       "The job asks for more GPUs than the Ray cluster has.",
       "The job asks for {n:requested} GPUs; the Ray cluster has {n:available}.",
       {{action, "ask for the GPUs the cluster has: NeMo RL cluster.num_nodes x cluster.gpus_per_node, verl "
                 "trainer.nnodes x trainer.n_gpus_per_node (ray status lists what Ray sees)", ""}},
       "Not enough GPUs available. Requested 16 GPUs, but only 8 are available in the cluster."},
      // A Ray actor placed at a bundle past its placement group's end: the framework creates more
      // workers than the group holds (OpenRLHF#728: colocated vLLM engines x TP over the actors' GPUs).
      {"ray_placement_bundle_out_of_range", "resources", primary, {"placement group bundle index "},
       R"(bundle index (\d+) is invalid\. Valid placement group indexes: 0-(\d+))",
       {{"bundle", number}, {"last_bundle", number}}, {},
       "A worker was placed on a bundle its placement group does not have: the launch makes more workers (or "
       "engine ranks) than the GPUs it reserved.",
       "A worker was placed on bundle {n:bundle} of a placement group whose last bundle is {n:last_bundle}: more "
       "workers than reserved GPUs.",
       {{action, "make the engines fit the reserved GPUs: OpenRLHF colocated, vllm_num_engines x "
                 "vllm_tensor_parallel_size = actor_num_nodes x actor_num_gpus_per_node; verl, the rollout's "
                 "tensor_model_parallel_size must divide trainer.nnodes x trainer.n_gpus_per_node", ""}},
       "ValueError: placement group bundle index 6 is invalid. Valid placement group indexes: 0-4"},
      // TRL's GRPOTrainer (grpo_trainer.py __init__; ms-swift's GRPO reuses it): the prompts of a
      // global batch each need num_generations completions (huggingface/open-r1#217, ms-swift#3980).
      {"grpo_batch_generations", "batch_config", primary,
       {"must be evenly divisible by the number of generations per prompt"},
       R"(global train batch size \((\d+) x (\d+)\) must be evenly divisible by the number of generations per prompt \((\d+)\))",
       {{"processes", number}, {"per_device_batch", number}, {"generations", number}}, {},
       "The global batch of completions does not split into whole groups of num_generations per prompt.",
       "The global batch ({n:processes} processes x {n:per_device_batch}) does not split into groups of "
       "{n:generations} generations per prompt.",
       {{action, "make processes x per_device_train_batch_size (x gradient_accumulation_steps in newer TRL) a "
                 "multiple of num_generations, and num_generations at least 2: raise "
                 "per_device_train_batch_size or lower num_generations", ""}},
       "ValueError: The global train batch size (7 x 1) must be evenly divisible by the number of generations "
       "per prompt (8)."},
      // verl's RayPPOTrainer._validate_config before 0.6 (its assert line, as the traceback prints it).
      {"verl_mini_over_train_batch", "batch_config", primary,
       {"train_batch_size >= config.actor_rollout_ref.actor.ppo_mini_batch_size"}, "", {}, {},
       "actor.ppo_mini_batch_size is larger than data.train_batch_size: verl checks a mini batch against the "
       "prompts of one step.",
       "",
       {{override_line, "actor_rollout_ref.actor.ppo_mini_batch_size=<at most data.train_batch_size>", ""}},
       "assert config.data.train_batch_size >= config.actor_rollout_ref.actor.ppo_mini_batch_size"},
      // AReaL's RayMasterWorker sums its workers' requests (AReaL#120: mem_per_model_worker,
      // mem_per_master_worker, cpu_per_*) against what Ray reports before it launches any.
      {"ray_workers_request_over_cluster", "resources", primary,
       {"Ray does not have enough resources to launch workers"},
       R"(Required: ([\d.]+) CPU, ([\d.]+) GPU, ([\d.]+) GB memory\. Available: ([\d.]+) CPU, ([\d.]+) GPU, ([\d.]+) GB memory)",
       {{"cpu", number}, {"gpu", number}, {"memory_gb", number}, {"cpu_available", number},
        {"gpu_available", number}, {"memory_gb_available", number}},
       {},
       "The workers ask Ray for more CPUs, GPUs or memory than the cluster has.",
       "The workers ask Ray for {n:cpu} CPUs, {n:gpu} GPUs and {n:memory_gb} GB of memory; the cluster has "
       "{n:cpu_available}, {n:gpu_available} and {n:memory_gb_available} GB.",
       {{action, "lower what each worker asks for where the request exceeds the cluster (AReaL: mem_per_model_worker, "
                 "mem_per_master_worker, cpu_per_model_worker), or add nodes", ""}},
       "RayMasterWorker CRITICAL: Ray does not have enough resources to launch workers. Required: 16 CPU, 4 GPU, "
       "351.56 GB memory. Available: 80.0 CPU, 8.0 GPU, 255.89 GB memory."},
      // ms-swift's template (swift/llm/template/base.py) refuses a row longer than --max_length
      // after templating (ms-swift#4754, #6307).
      {"swift_row_over_max_length", "sequence_length", primary, {"MaxLengthError: Current length of row("},
       R"(length of row\((\d+)\) is larger than the max_length\((\d+)\))", {{"row_tokens", number},
       {"max_length", number}}, {},
       "A training row is longer, once templated, than the max_length the run sets.",
       "A row of {n:row_tokens} tokens is longer than max_length {n:max_length}.",
       {{action, "raise --max_length (and --vllm_max_model_len for GRPO rollouts) to cover the longest rows, or "
                 "truncate them (--truncation_strategy) / filter them out of the dataset", ""}},
       "swift.llm.template.base.MaxLengthError: Current length of row(25000) is larger than the max_length(2048)."},
  };
}

}  // namespace meshplan
