// Signatures of the bridges between the trainer's model and the others: the Hugging Face <->
// Megatron conversion (verl's own loader verl/models/mcore/loader.py, mbridge, Megatron-Bridge) and
// the trainer -> rollout weight sync (verl's weight-sync buckets, CUDA IPC between the processes). Each from a public issue thread
// whose resolution names the cause (tests/fixtures/logs/real/index.json).
#include "diagnose/signature_tables.hpp"

namespace meshplan {

using namespace signature_words;

std::vector<Signature> model_bridge_signatures() {
  return {
      // A Megatron parameter name that the HF side's loader (or the converter's mapping) has no entry
      // for: the converter emitted an unmapped name, a converter release that does not map this model
      // family (vllm-project/vime#106: Megatron-Bridge 0.4.0rc0 on Qwen3-VL, fixed in 0.5.0).
      {"megatron_weight_name_unmapped", "environment", primary, {"KeyError: 'decoder.layers."},
       R"(KeyError: '(decoder\.layers\.[^']+)')", {{"weight", text}}, {},
       "A Megatron weight name reached a loader that has no entry for it: the Megatron <-> Hugging Face converter "
       "(Megatron-Bridge, mbridge) does not map this model family in the installed release.",
       "The Megatron weight {n:weight} reached a loader that has no entry for it: the Megatron <-> Hugging Face "
       "converter (Megatron-Bridge, mbridge) does not map this model family in the installed release.",
       {{action, "install the Megatron-Bridge (or mbridge) release the framework pins for this model, or a newer one "
                 "that maps it; the converter's model list names the families it maps", ""}},
       "KeyError: 'decoder.layers.0.self_attention.linear_proj.weight'"},
      // verl 0.7.1 on (vllm_rollout/bucketed_weight_transfer.py, checkpoint_engine/*_checkpoint_engine.py):
      // the sender packs whole tensors into buckets of checkpoint_engine.update_weights_bucket_megabytes
      // (default 2048) and asserts that the next one fits an empty bucket; a large vocabulary's
      // embedding (Qwen3.5: 248320 x 5120 bf16, 2425 MiB) does not (verl-project/verl#5779, #5952,
      // fix PR #5963). The message names rollout.update_weights_bucket_megabytes, the key of 0.7.0 and
      // before; from 0.7.1 it lives under rollout.checkpoint_engine.
      {"weight_sync_bucket_too_small", "config_key", primary, {"is too large to fit in the bucket"},
       R"(Weight (\S+)\(torch\.Size\(\[([\d, ]+)\]\), torch\.(\w+)\) is too large to fit in the bucket)",
       {{"weight_name", text}, {"weight_shape", text}, {"weight_dtype", text}}, {},
       "A weight is larger than the weight-sync bucket, which must hold each tensor whole.",
       "Weight {n:weight_name} ([{n:weight_shape}] {n:weight_dtype}, {d:weight_mib} MiB) is larger than the "
       "weight-sync bucket, which must hold each tensor whole.",
       {{override_line,
         "actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes={d:bucket_fit_mb}  # "
         "{n:weight_name} is {d:weight_mib} MiB",
         "actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes=<at least the largest "
         "weight in MiB>  # verl 0.7.1 on; before, actor_rollout_ref.rollout.update_weights_bucket_megabytes"}},
       "AssertionError: Weight model.language_model.embed_tokens.weight(torch.Size([248320, 5120]), "
       "torch.bfloat16) is too large to fit in the bucket.Please increase "
       "rollout.update_weights_bucket_megabytes(2048 MB)."},
      // Weights shared over CUDA IPC (verl's and OpenRLHF's colocated sync, SGLang's
      // update_weights_from_tensor) from memory in expandable segments: torch opens the sender's
      // allocation through pidfd_open, which Linux before 5.3 lacks (torch's message names
      // expandable_segments:False; OpenRLHF#957: a leftover expandable-segments setting on a 3.x kernel).
      {"cuda_ipc_pidfd_open", "environment", primary, {"does not support the pidfd_open syscall"}, "", {}, {},
       "Weights shared over CUDA IPC live in expandable segments, which need the pidfd_open syscall this host's "
       "kernel lacks (Linux before 5.3).",
       "",
       {{env, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False  # in the processes that share weights over CUDA IPC "
              "(the trainer's workers); or a host kernel of 5.3 or later", ""}},
       "RuntimeError: The kernel on this machine does not support the pidfd_open syscall needed to use IPC for CUDA "
       "tensors when expandable_segments:True is set. Consider using expandable_segments:False via "
       "torch.cuda.memory._set_allocator_settings('expandable_segments:False') for this allocation."},
      // The receiving side of the same: pidfd_getfd needs ptrace access to the sender
      // (PTRACE_MODE_ATTACH), which a container's seccomp / Yama policy refuses (verl#3377 with SGLang
      // and Megatron; pytorch#130890, #165685: expandable segments trigger it).
      {"cuda_ipc_pidfd_getfd", "environment", primary, {"pidfd_getfd: Operation not permitted"}, "", {}, {},
       "The rollout could not open the trainer's CUDA IPC memory: pidfd_getfd needs ptrace access to the sending "
       "process, which the container's security policy refuses (with expandable segments on).",
       "",
       {{env, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False  # the trainer's weights then go over plain CUDA "
              "IPC handles", ""},
        {action, "or allow ptrace between the job's processes: docker run --cap-add SYS_PTRACE (Kubernetes: the "
                 "SYS_PTRACE capability), or kernel.yama.ptrace_scope=0 on the host", ""}},
       "RuntimeError: pidfd_getfd: Operation not permitted"},
      // verl's own HF -> Megatron loader (models/mcore/loader.py load_state_dict_to_megatron_gptmodel,
      // the path without mbridge) copies a dense GPT layer's MLP (mlp.linear_fc1); a MoE layer has
      // experts and a router instead (verl-project/verl#2082, Qwen3-30B-A3B: "use mbridge").
      {"legacy_loader_moe_layer", "checkpoint_mismatch", primary, {"'MoELayer' object has no attribute"},
       R"('MoELayer' object has no attribute '(\w+)')", {{"attribute", text}}, {},
       "verl's built-in Hugging Face -> Megatron weight loader copies dense MLP layers only; this model's MoE "
       "layers need the bridge (mbridge / Megatron-Bridge).",
       "verl's built-in Hugging Face -> Megatron weight loader looked for a dense MLP's {n:attribute} in a MoE "
       "layer: MoE models load through the bridge (mbridge / Megatron-Bridge).",
       {{override_line, "actor_rollout_ref.actor.megatron.use_mbridge=True", "", "",
         "actor_rollout_ref.actor.megatron.use_mbridge=True"},
        {override_line, "actor_rollout_ref.ref.megatron.use_mbridge=True", "", "",
         "actor_rollout_ref.ref.megatron.use_mbridge=True"}},
       "AttributeError: 'MoELayer' object has no attribute 'linear_fc1'"},
      // mbridge (ISEEKYAN/mbridge core/util.py build_model) compares with ModelType.encoder_and_decoder,
      // which Megatron-Core 0.18 removed (verl-project/verl#6936, ISEEKYAN/mbridge#155): mbridge <=
      // 0.15.1 and Megatron-Core 0.18 do not go together. verl's default bridge from 0.8.0 is
      // Megatron-Bridge (megatron.vanilla_mbridge=False), which does not read it.
      {"mbridge_megatron_core_model_type", "environment", primary,
       {"type object 'ModelType' has no attribute"}, R"(has no attribute '(\w+)')", {{"attribute", text}}, {},
       "The installed mbridge and Megatron-Core do not go together: mbridge reads a ModelType member that this "
       "Megatron-Core no longer has.",
       "The installed mbridge and Megatron-Core do not go together: mbridge reads ModelType.{n:attribute}, which "
       "this Megatron-Core no longer has (Megatron-Core 0.18 removed encoder_and_decoder).",
       {{override_line, "actor_rollout_ref.actor.megatron.vanilla_mbridge=False  # Megatron-Bridge instead of mbridge",
         "", "", "actor_rollout_ref.actor.megatron.vanilla_mbridge=False"},
        {action, "or install an mbridge release that supports the installed Megatron-Core (or a Megatron-Core "
                 "before 0.18)", ""}},
       "AttributeError: type object 'ModelType' has no attribute 'encoder_and_decoder'"},
      // Megatron-core's dist-checkpoint validation (dist_checkpointing/validation.py
      // _validate_objects_for_key): the checkpoint lacks sharded objects the loading code's layout
      // expects; the saving and the loading code differ (NVIDIA-NeMo/Megatron-Bridge#1210: a Bridge
      // export of Qwen3-30B-A3B, fixed by a Bridge release, pulled into NeMo RL by PR #1335).
      {"dist_checkpoint_objects_missing", "checkpoint_mismatch", primary, {"ShardedObject are missing"},
       R"((\d+) ShardedObject are missing)", {{"missing", number}}, {},
       "The distributed checkpoint lacks sharded objects that the loading code's layout expects: the code that saved "
       "it and the code that loads it (Megatron-core, Megatron-Bridge, Transformer Engine) are different releases or "
       "layouts.",
       "The distributed checkpoint lacks {n:missing} sharded objects that the loading code's layout expects: the "
       "saving and the loading code differ.",
       {{action, "load (or export) with the Megatron-Bridge / Megatron-core / Transformer Engine releases that saved "
                 "the checkpoint, or the Megatron-Bridge release that fixed the conversion; keep the parallel layout "
                 "(TP, PP, EP) the checkpoint was saved with", ""}},
       "megatron.core.dist_checkpointing.core.CheckpointingException: Invalid access pattern: 24 ShardedObject are "
       "missing."},
  };
}

}  // namespace meshplan
