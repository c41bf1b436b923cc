// The diagnosis categories (stable ids) and their general fixes, ranked by cost to the user:
// what costs nothing first (an environment variable, a smaller micro-batch), what costs
// throughput or hardware last. Sources: verl docs perf/perf_tuning.rst and faq, the failure
// catalogue ../shared/docs/verl-errors.md, and the diagnosis flow of ../shared/seeds/001
// (OOM -> offload -> smaller micro-batch; "mismatch" -> check the parallel sizes).
#include <array>

#include "diagnose/signature.hpp"

namespace meshplan {

namespace {

using enum FixKind;

/// An override that sets `setting` ("KEY=VALUE"), dropped when the config already has it; only in
/// `phases` when given.
FixTemplate unless_set(std::string_view setting, std::string_view phases = "") {
  return {override_line, setting, "", phases, setting};
}

const std::array<Category, 21>& table() {
  static const std::array<Category, 21> kCategories = {{
      {"oom_training", "GPU out of memory in the training engine", Severity::error, true,
       {
           {override_line,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={half:actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu}"
            "  # was {cfg:actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu}",
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=<half the current value>  # fewer sequences "
            "per forward/backward: less activation and logits memory",
            "update_actor"},
           {action, "predicted by the memory model: {d:predicted_peak}", "", "update_actor,compute_log_prob,"
                                                                             "compute_ref_log_prob"},
           {override_line,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu={half:actor_rollout_ref.actor.ppo_max_token_len_per_gpu}"
            "  # was {cfg:actor_rollout_ref.actor.ppo_max_token_len_per_gpu}",
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=<smaller>  # with use_dynamic_bsz=True: fewer "
            "tokens per micro-batch",
            "update_actor", "actor_rollout_ref.actor.use_dynamic_bsz=False"},
           {override_line,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu="
            "{half:actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu}"
            "  # was {cfg:actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu}",
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=<half the current value>  # the old "
            "log-prob pass holds [tokens, vocab] fp32 logits",
            "compute_log_prob"},
           {override_line,
            "actor_rollout_ref.actor.entropy_from_logits_with_chunking=True  # one micro-batch's fp32 logits: up "
            "to {d:logits_gib} GiB",
            "actor_rollout_ref.actor.entropy_from_logits_with_chunking=True", "compute_log_prob,update_actor",
            "actor_rollout_ref.actor.entropy_from_logits_with_chunking=True"},
           {override_line,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu="
            "{half:actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu}"
            "  # was {cfg:actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu}",
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=<half the current value>",
            "compute_ref_log_prob"},
           {override_line, "critic.ppo_micro_batch_size_per_gpu={half:critic.ppo_micro_batch_size_per_gpu}"
                           "  # was {cfg:critic.ppo_micro_batch_size_per_gpu}",
            "critic.ppo_micro_batch_size_per_gpu=<half the current value>", "update_critic,compute_values"},
           unless_set("actor_rollout_ref.model.enable_gradient_checkpointing=True",
                      "update_actor,update_critic"),
           unless_set("actor_rollout_ref.actor.fsdp_config.param_offload=True"),
           unless_set("actor_rollout_ref.actor.fsdp_config.optimizer_offload=True"),
           unless_set("actor_rollout_ref.ref.fsdp_config.param_offload=True", "compute_ref_log_prob"),
           {override_line,
            "actor_rollout_ref.actor.ulysses_sequence_parallel_size={double:actor_rollout_ref.actor.ulysses_sequence_parallel_size}",
            "actor_rollout_ref.actor.ulysses_sequence_parallel_size=<2 or 4>  # splits each sequence's "
            "activations over GPUs (needs use_remove_padding=True)",
            "update_actor,compute_log_prob"},
           {action, "run `meshplan estimate` for this config to see the per-phase memory peak before relaunching",
            ""},
       }},
      {"oom_rollout", "GPU out of memory in the rollout engine or while syncing weights to it", Severity::error,
       true,
       {
           {override_line,
            "actor_rollout_ref.rollout.gpu_memory_utilization={d:gmu_lower}"
            "  # was {cfg:actor_rollout_ref.rollout.gpu_memory_utilization}",
            "actor_rollout_ref.rollout.gpu_memory_utilization=<0.1 lower>  # a smaller KV-cache pool leaves "
            "room for the training engine's weights"},
           unless_set("actor_rollout_ref.rollout.free_cache_engine=True"),
           {override_line, "actor_rollout_ref.rollout.max_num_seqs={half:actor_rollout_ref.rollout.max_num_seqs}",
            "actor_rollout_ref.rollout.max_num_seqs=<smaller>  # fewer concurrent sequences: smaller "
            "activation peaks", "generate_sequences"},
           unless_set("actor_rollout_ref.actor.fsdp_config.param_offload=True", "weight_sync"),
           unless_set("actor_rollout_ref.actor.fsdp_config.optimizer_offload=True", "weight_sync"),
           {override_line,
            "actor_rollout_ref.rollout.tensor_model_parallel_size={double:actor_rollout_ref.rollout.tensor_model_parallel_size}",
            "actor_rollout_ref.rollout.tensor_model_parallel_size=<twice the current value>  # weights and KV "
            "cache split over more GPUs"},
           unless_set("actor_rollout_ref.rollout.enforce_eager=True"),
       }},
      {"rollout_memory_budget", "The rollout engine refused to start with its memory budget", Severity::error,
       true,
       {
           unless_set("actor_rollout_ref.actor.fsdp_config.param_offload=True"),
           {override_line,
            "actor_rollout_ref.rollout.tensor_model_parallel_size={double:actor_rollout_ref.rollout.tensor_model_parallel_size}",
            "actor_rollout_ref.rollout.tensor_model_parallel_size=<twice the current value>  # less weight "
            "memory per GPU, more room for KV cache"},
       }},
      {"host_oom", "Host (CPU) memory exhausted: the kernel or Ray killed a worker", Severity::error, true,
       {
           {action, "check host memory on the node (free -g, dmesg -T | grep -i oom); verl's maintainers "
                    "recommend about 80 GB of CPU RAM per GPU (verl issue #275)", ""},
           {override_line, "data.dataloader_num_workers={half:data.dataloader_num_workers}",
            "data.dataloader_num_workers=<fewer>  # each worker holds a copy of the dataset"},
           {override_line, "actor_rollout_ref.actor.fsdp_config.optimizer_offload=False  # offloaded optimizer "
                           "states live in host RAM",
            "actor_rollout_ref.actor.fsdp_config.optimizer_offload=False  # if it is on: offloaded optimizer "
            "states live in host RAM", "", "", "actor_rollout_ref.actor.fsdp_config.optimizer_offload=True"},
           {action, "look for a leak in the reward function (math verifiers are known to leak, verl issue #275) "
                    "and read the dead worker's log in /tmp/ray/session_latest/logs/", ""},
       }},
      {"nccl_timeout", "A collective operation timed out (NCCL watchdog)", Severity::error, true,
       {
           {action, "find the first error on any rank: a rank that crashed or stalled leaves the others "
                    "waiting in the collective until the watchdog fires", ""},
           {env, "NCCL_DEBUG=INFO TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1  # log and "
                 "dump the stuck collective on the next run", ""},
           {action, "check that every rank runs the same collectives in the same order (e.g. the same number "
                    "of micro-batches with use_dynamic_bsz)", ""},
           {override_line, "actor_rollout_ref.nccl_timeout={d:timeout_double_s}  # only if the slow phase is "
                           "legitimate (long reward computation)",
            "actor_rollout_ref.nccl_timeout=<seconds>  # default 600; raise only if the slow phase is "
            "legitimate"},
       }},
      {"nccl_network", "NCCL lost a connection between ranks (network or a peer that exited)", Severity::error,
       true,
       {
           {env, "NCCL_DEBUG=INFO  # names the failing link and transport", ""},
           {env, "NCCL_SOCKET_IFNAME=<interface that reaches the other nodes, e.g. eth0 or ib0>", ""},
           {env, "NCCL_IB_HCA=<mlx5_0,...>  # or NCCL_IB_DISABLE=1 to test the run over TCP", ""},
           {action, "test the fabric alone: nccl-tests all_reduce_perf across the same nodes, and ibstat on each "
                    "node", ""},
       }},
      {"device_visibility", "The process sees no usable GPU (or fewer than expected)", Severity::error, true,
       {
           {action, "run nvidia-smi on every node and check that CUDA_VISIBLE_DEVICES (if set) lists the GPUs "
                    "this job may use; Ray sets it per worker, do not override it inside workers", ""},
           {override_line, "trainer.n_gpus_per_node=<GPUs visible on each node>", ""},
           {action, "start Ray with the GPUs: ray start --num-gpus=<n> on every node", ""},
       }},
      {"parallel_mismatch", "Parallel sizes do not tile the GPUs or the model", Severity::error, true,
       {
           {action, "choose sizes that divide what they split: the tensor-parallel size (vLLM tensor_parallel_size, "
                    "verl rollout.tensor_model_parallel_size, Megatron tensor_model_parallel_size) divides the "
                    "attention and KV heads, pipeline_model_parallel_size the layers (or uneven first and last "
                    "stages: Megatron-core's num_layers_in_first_pipeline_stage / num_layers_in_last_pipeline_stage), "
                    "virtual_pipeline_model_parallel_size the layers of each stage, expert_model_parallel_size the "
                    "experts, a sequence- or context-parallel size the KV heads it splits; the product divides the "
                    "GPU count: N % (TP*PP*CP) == 0 for Megatron, N % (rollout TP*DP*PP) == 0 for the rollout", ""},
           {action, "run `meshplan check` on the launch script to list every size rule before launching", ""},
       }},
      {"batch_config", "Batch sizes violate verl's divisibility rules", Severity::error, true,
       {
           {action, "make data.train_batch_size * rollout.n a multiple of the GPU count (FSDP) or of "
                    "DP * ppo_micro_batch_size_per_gpu (Megatron), and ppo_mini_batch_size * rollout.n / DP a "
                    "multiple of ppo_micro_batch_size_per_gpu", ""},
           {action, "run `meshplan check` on the launch script to verify every batch rule", ""},
       }},
      {"config_key", "A config key or value is not accepted", Severity::error, true,
       {
           {action, "compare the dotted path with verl's generated config (verl/trainer/config/"
                    "_generated_ppo_trainer.yaml) of the installed version; keys move between versions", ""},
       }},
      {"checkpoint_mismatch", "The checkpoint does not match the model or the layout", Severity::error, true,
       {
           {action, "resume with the same model config and world size as the run that saved the checkpoint "
                    "(FSDP shards are named model_world_size_{W}_rank_{r}.pt)", ""},
           {action, "convert the checkpoint to Hugging Face format first: python -m verl.model_merger merge "
                    "--backend fsdp --local_dir <ckpt>/actor --target_dir <hf_dir>", ""},
           {override_line, "trainer.resume_mode=disable  # start from the base model instead", ""},
       }},
      {"sequence_length", "A sequence is longer than a configured length budget", Severity::error, true,
       {
           {action, "keep data.max_prompt_length + data.max_response_length <= rollout.max_model_len <= "
                    "the model's max_position_embeddings", ""},
           unless_set("data.filter_overlong_prompts=True"),
       }},
      {"resources", "The cluster does not provide the resources the job asks for", Severity::error, true,
       {
           {action, "run `ray status` and compare the GPUs/CPUs it lists with trainer.nnodes * "
                    "trainer.n_gpus_per_node", ""},
       }},
      {"nccl_hang", "The log stops inside NCCL setup or a collective: the job most likely hung there",
       Severity::warning, true,
       {
           {env, "NCCL_DEBUG=INFO TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1  # name the stuck "
                 "collective on the next run", ""},
           {action, "py-spy dump --pid <pid> on every rank: the rank that is not in the collective is the cause", ""},
           {env, "NCCL_SOCKET_IFNAME=<interface that reaches the other nodes>  # or NCCL_IB_DISABLE=1 to test the "
                 "run over TCP", ""},
           {action, "test the fabric alone: nccl-tests all_reduce_perf across the same nodes", ""},
       }},
      {"cuda_fault", "A CUDA kernel faulted (illegal memory access, device-side assert)", Severity::error, true,
       {
           {env, "CUDA_LAUNCH_BLOCKING=1  # report the fault at the kernel that caused it (slow: for one debug run)",
            ""},
           {env, "VLLM_ATTENTION_BACKEND=XFORMERS  # verl's FAQ for illegal memory access during rollout with older "
                 "vLLM attention kernels", ""},
           {action, "note the driver, CUDA, torch and engine versions: kernel faults are most often version bugs; "
                    "check the engine's issues for the same kernel", ""},
       }},
      {"native_crash", "A worker process crashed in native code (an abort or a segmentation fault)", Severity::error,
       true,
       {
           {action, "read the lines just before the signal in the dead worker's log (/tmp/ray/session_latest/logs/): "
                    "the library that aborted prints its reason there (LLVM ERROR from Triton's compiler, a CUDA or "
                    "NCCL error, a C++ exception)", ""},
           {action, "note the driver, CUDA, torch, Triton and engine versions: native crashes are most often a "
                    "version or GPU-architecture mismatch; check the library's issues for the same message", ""},
       }},
      {"environment", "The installed software does not match what the code needs", Severity::error, true,
       {
           {action, "install the versions the framework pins together (its requirements or Docker image): "
                    "torch, the inference engine, flash-attn and transformers must match each other", ""},
           {action, "python -c 'import <module>' in the same environment reproduces the error without a GPU job",
            ""},
       }},
      {"unclassified", "An error that matches no known failure signature", Severity::error, true,
       {
           {action, "fix this first error and rerun: the errors printed after it may all follow from it", ""},
           {env, "HYDRA_FULL_ERROR=1  # verl and NeMo print the full stack trace", ""},
       }},
      {"bottleneck_generation", "Generation (rollout) dominates the step time", Severity::info, false,
       {
           {override_line,
            "actor_rollout_ref.rollout.gpu_memory_utilization={d:gmu_raise}"
            "  # was {cfg:actor_rollout_ref.rollout.gpu_memory_utilization}",
            "actor_rollout_ref.rollout.gpu_memory_utilization=<higher, e.g. 0.7>  # larger KV cache: more "
            "sequences decoded at once"},
           {override_line, "actor_rollout_ref.rollout.enforce_eager=False  # CUDA graphs for decoding", "", "",
            "actor_rollout_ref.rollout.enforce_eager=False"},
           {override_line,
            "actor_rollout_ref.rollout.tensor_model_parallel_size={half:actor_rollout_ref.rollout.tensor_model_parallel_size}"
            "  # more, smaller replicas",
            "actor_rollout_ref.rollout.tensor_model_parallel_size=<smaller, if the weights fit>  # more "
            "replicas decode in parallel"},
           {override_line, "actor_rollout_ref.rollout.max_num_batched_tokens={double:actor_rollout_ref.rollout.max_num_batched_tokens}",
            "actor_rollout_ref.rollout.max_num_batched_tokens=<larger, default 8192>"},
       }},
      {"bottleneck_training", "Training passes (log-prob, ref, update) dominate the step time", Severity::info,
       false,
       {
           unless_set("actor_rollout_ref.actor.use_dynamic_bsz=True"),
           unless_set("actor_rollout_ref.model.use_remove_padding=True"),
           {override_line,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={double:actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu}"
            "  # if memory allows",
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=<larger, if memory allows>"},
           {override_line, "actor_rollout_ref.actor.fsdp_config.param_offload=False  # offload costs PCIe "
                           "traffic every step",
            "actor_rollout_ref.actor.fsdp_config.param_offload=False  # if it is on: offload costs PCIe traffic "
            "every step", "", "", "actor_rollout_ref.actor.fsdp_config.param_offload=True"},
       }},
      {"bottleneck_data", "Host-side work (reward, data loading) dominates the step time", Severity::info, false,
       {
           {override_line, "reward_model.launch_reward_fn_async=True  # overlap reward with the log-prob passes",
            "", "", "reward_model.launch_reward_fn_async=True"},
           {override_line, "data.dataloader_num_workers={double:data.dataloader_num_workers}",
            "data.dataloader_num_workers=<more, default 8>"},
           {action, "profile the reward function; a batched reward manager (reward_model.reward_manager=batch) "
                    "scores many responses per call", ""},
       }},
  }};
  return kCategories;
}

}  // namespace

std::span<const Category> categories() { return table(); }

const Category* find_category(std::string_view id) {
  for (const Category& category : table()) {
    if (category.id == id) return &category;
  }
  return nullptr;
}

}  // namespace meshplan
