// Signatures of an error's shape rather than its exact words: the exception class and message of
// the first error that no literal signature explained, read case-insensitively. They carry the
// general knowledge that outlives message rewording between versions: a divisibility or "must be"
// message about parallel sizes or heads is a layout error, about batches a batch error; an import
// error is the installed software; a lost connection in NCCL is the network. Message formats from
// vLLM (vllm/config.py verify_with_parallel_config), Megatron-core (parallel_state.py,
// transformer_block.py), DeepSpeed (runtime/config.py _batch_assertion, utils/groups.py), TRL
// (grpo_trainer.py), NCCL (misc/socket.cc, init.cc), PyTorch (c10/cuda/CUDAException.cpp) and
// OmegaConf (errors.py). Any other error is `unclassified`: reported with where it was raised.
#include "diagnose/signature_tables.hpp"

namespace meshplan {

using namespace signature_words;

std::vector<Signature> shape_signatures() {
  const std::vector<PhaseRule> rollout_is_rollout_oom = {{"rollout", "oom_rollout"}};
  const FixTemplate read_the_frame = {action, "{n:exception} was raised in {n:raised_in}: start from that call", ""};
  return {
      {"shape_device_count", "device_visibility", primary, {},
       R"(no cuda gpus|device >= 0 && device < num_gpus|invalid device ordinal|number of visible devices|driver version is insufficient)",
       {}, {}, "The process sees fewer GPUs than it was configured to use.", "", {},
       "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 && "
       "device < num_gpus INTERNAL ASSERT FAILED at \"../aten/src/ATen/cuda/CUDAContext.cpp\":49, please report a "
       "bug to PyTorch. device=1, num_gpus=",
       shape},
      {"shape_cuda_fault", "cuda_fault", primary, {},
       R"(illegal memory access|device-side assert|^device assert|unspecified launch failure|cublas_status_|misaligned address|illegal instruction)",
       {}, {},
       "A CUDA kernel faulted (illegal memory access or a device-side assert); the Python frame that reports it "
       "may not be the kernel that failed (CUDA errors are asynchronous).",
       "", {read_the_frame}, "RuntimeError: CUDA error: an illegal memory access was encountered", shape},
      {"shape_host_memory", "host_oom", primary, {},
       R"(running low on memory|memory pressure|oom.killer|k8s pod memory|cannot allocate memory)", {}, {},
       "The node ran out of host (CPU) memory.", "", {},
       "OSError: [Errno 12] Cannot allocate memory", shape},
      {"shape_gpu_oom", "oom_training", primary, {}, R"(out of memory|outofmemoryerror)", {}, rollout_is_rollout_oom,
       "A GPU ran out of memory.", "A GPU ran out of memory in {phase}.", {},
       "torch.OutOfMemoryError: Tried to allocate 12.60 GiB. GPU had 12.44 GiB free of 79.19", shape},
      {"shape_sequence_length", "sequence_length", primary, {},
       R"(longer than the maximum|too long|exceeds (the )?limit|context length|max_model_len|max_position_embeddings|max_num_batched_tokens)",
       {}, {}, "A sequence is longer than a configured length limit of the inference engine or the trainer.", "",
       {},
       "ValueError: The prompt (total length 25938) is too long to fit into the model (context length 4096). Make "
       "sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.",
       shape},
      {"shape_batch_divisibility", "batch_config", primary, {},
       R"((batch|chunk|generation|micro|mini)[^]*(divisib|divid|equal|larger than|greater than|>=|multiple of|at least))"
       R"(|(divisib|divid|equal to|multiple of)[^]*(batch|chunk|generation|micro|mini))",
       {}, {},
       "Batch sizes do not split evenly over the GPUs, micro-batches or generations per prompt.", "",
       {{action, "make the global batch a multiple of (data-parallel size x micro-batch x gradient "
                 "accumulation) and, for GRPO, of the generations per prompt (num_generations / rollout.n)",
         ""}},
       "AssertionError: global_batch_size (32) must be divisible by local_batch_size * dp_size (2 * 32)", shape},
      {"shape_parallel_divisibility", "parallel_mismatch", primary, {},
       R"((divisib|divid|multiple of|must be equal|must match|should be greater|must be less|not enough ranks)[^]*)"
       R"((parallel|tp_size|infer_tp|ep_size|tp=|world.size|heads|expert|layers|gpus|ranks|shard|tensor|pipeline))"
       R"(|(parallel|tp_size|heads|expert|layers|world.size)[^]*(divisib|divid|multiple of|mismatch|align))"
       R"(|parallel[^]*(must|should) be (used|enabled|set|greater|less|equal))"
       R"(|\b\d+ is not divisible by \d+)",
       {}, {},
       "A parallel size (tensor, pipeline, expert, sequence or data parallel) does not divide what it splits: the "
       "GPU count, the attention heads, the experts or the layers.",
       "", {read_the_frame},
       "AssertionError: num_layers should be divisible by pipeline_model_parallel_size", shape},
      {"shape_config_key", "config_key", primary, {},
       R"(not in struct|could not override|key '[^']*' not in|missing mandatory value|configattributeerror|configkeyerror|unexpected keyword argument|unrecognized arguments)",
       {}, {}, "A config key or argument is not accepted by the installed version.", "",
       {{action, "{n:message}: check the key against the config schema of the installed version", ""}},
       "omegaconf.errors.ConfigAttributeError: Key 'drover' not in 'MySQLConfig'", shape},
      {"shape_environment", "environment", primary, {},
       R"(^(\w+\.)*(modulenotfounderror|importerror)|no module named|cannot import name|undefined symbol|not compiled with|requires? (a )?version)",
       {}, {}, "The installed software does not match: a module or symbol the code needs is missing.",
       "The installed software does not match: {n:exception}: {n:message}.", {read_the_frame},
       "ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.layers'", shape},
      {"shape_nccl_network", "nccl_network", primary, {},
       R"(^nccl (warn|failure)|connection refused|connection reset|closed by remote peer|no route to host|socket(start|poll)connect|unhandled system error|remote process exited|ncclsystemerror|ncclremoteerror|failed to format addr)",
       {}, {}, "NCCL could not connect or lost a connection between ranks (network, interface choice or a peer that "
               "exited).",
       "", {},
       "misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused "
       "connection abort",
       shape},
      {"shape_resources", "resources", primary, {},
       R"(not enough gpus|less than total desired|cluster only has|insufficient resources|cannot be scheduled|has 0 actors)",
       {}, {}, "The cluster does not provide the GPUs or CPUs the job asks for.", "", {},
       "AssertionError: instance_id: 4620a49c-1e63-4e23-bb10-44cfbf3918c7:22f7zH:2:0 has 0 actors, but vllm_dp_size: "
       "2 * vllm_tp_size: 4 = 8 is expected.",
       shape},
      {"unclassified_error", "unclassified", primary, {}, "", {}, {},
       "The first error in the log matches no known failure signature.",
       "The first error in the log matches no known failure signature: {n:exception}: {n:message}",
       {read_the_frame,
        {action, "search the exact message in {n:framework}'s GitHub issues, with the versions in use", ""}},
       "KeyError: 'response_mask'", shape},
      {"unclassified_echo", "unclassified", consequence, {}, "", {}, {},
       "Only the echo of an error was found (a wrapper such as Ray's RayTaskError / ActorDiedError, or a line a "
       "logger marked ERROR): the error itself was printed elsewhere.",
       "Only the echo of an error was found: {n:exception}: {n:message}",
       {{action, "read the failing worker's own output: with Ray, /tmp/ray/session_latest/logs/worker-*-{n:pid}.err "
                 "(set RAY_DEDUP_LOGS=0 to see every worker's lines in the driver log)",
         "read the failing worker's own output: with Ray, /tmp/ray/session_latest/logs/worker-*.err (set "
         "RAY_DEDUP_LOGS=0 to see every worker's lines in the driver log)"}},
       "ray.exceptions.ActorDiedError: The actor died because of an error raised in its creation task, "
       "ray::LLMRayActor.__init__() (pid=236832, ip=0.0.0.0)",
       shape},
      {"log_ends_in_nccl", "nccl_hang", consequence, {}, "", {}, {},
       "The log ends with NCCL INFO lines and no error: the run most likely hung inside NCCL's communicator "
       "setup or a collective (a rank that never joined, or a network path that does not connect).",
       "", {},
       "tj5-sc-ai-h800r-dev01:533:1765 [2] NCCL INFO 16 coll channels, 0 collnet channels, 16 nvls channels, 16 "
       "p2p channels, 2 p2p channels per peer",
       shape},
  };
}

}  // namespace meshplan
