// Signatures of installed software that does not match: a driver older than the CUDA runtime of
// the wheels, a package without a name the code imports from it, releases of DeepSpeed and
// accelerate that do not fit together, and a vLLM that does not know transformers' weight names. Each from a public thread whose resolution names the cause
// (tests/fixtures/logs/real/index.json).
#include "diagnose/signature_tables.hpp"

namespace meshplan {

using namespace signature_words;

std::vector<Signature> version_signatures() {
  return {
      // cudaErrorInsufficientDriver: the wheels' CUDA runtime (torch.version.cuda) is newer than the
      // CUDA version the installed driver supports (nagadomi/nunif#702: a cu130 torch on an older
      // driver). Not a device-count problem.
      {"cuda_driver_too_old", "environment", primary, {"driver version is insufficient for CUDA runtime"}, "", {},
       {},
       "The NVIDIA driver is older than the CUDA runtime the installed wheels were built for.", "",
       {{action, "upgrade the NVIDIA driver to one that supports the wheels' CUDA (nvidia-smi's \"CUDA Version\" must "
                 "be at least python -c 'import torch; print(torch.version.cuda)'), or install torch / vLLM builds "
                 "for the CUDA the driver supports", ""}},
       "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"},
      // Python's ImportError names the package that lacks the name (verl#6028: verl's SGLang rollout
      // imports ContinueGenerationReqInput, which SGLang 0.5.7 does not have; the pinned 0.5.8 does).
      {"package_lacks_name", "environment", primary, {"cannot import name '", "' from '"},
       R"(cannot import name '(\w+)' from '([A-Za-z_]\w*))", {{"name", text}, {"package", text}}, {},
       "The installed version of a package lacks a name the code imports from it: the package is older or newer "
       "than the release the code was written for.",
       "The installed {n:package} has no {n:name}: it is not the release the code was written for.",
       {{action, "install the {n:package} release the framework pins (its setup.py extras, requirements or Docker "
                 "image); pip show {n:package} names the one installed", ""}},
       "ImportError: cannot import name 'ContinueGenerationReqInput' from 'sglang.srt.managers.io_struct'"},
      // DeepSpeed 0.16.5's ZeRO-3 backward hooks read an attribute its own forward hooks had not set
      // (deepspeedai/DeepSpeed#7203; 0.16.4 and the next releases run).
      {"deepspeed_zero3_grads_remaining", "environment", primary, {"has no attribute 'ds_grads_remaining'"}, "", {},
       {},
       "A DeepSpeed ZeRO-3 release bug (0.16.5): its backward hooks read ds_grads_remaining that its forward hooks "
       "did not set.",
       "",
       {{action, "pin deepspeed==0.16.4, or a release after 0.16.5 that fixed the ZeRO-3 hooks", ""}},
       "AttributeError: 'Linear' object has no attribute 'ds_grads_remaining'"},
      // accelerate / transformers switching the optimizer to train or eval mode (for schedule-free
      // optimizers) through a DeepSpeed ZeRO-3 optimizer of a release without train()
      // (zjysteven/lmms-finetune#64: upgrading transformers and accelerate fixed it).
      {"deepspeed_optimizer_no_train", "environment", primary,
       {"DeepSpeedZeroOptimizer_Stage3' object has no attribute 'train'"}, "", {}, {},
       "transformers / accelerate and DeepSpeed releases that do not fit: the trainer calls optimizer.train(), "
       "which this DeepSpeed ZeRO-3 optimizer does not have.",
       "",
       {{action, "install transformers, accelerate and deepspeed releases that fit together (pip install -U "
                 "transformers accelerate)", ""}},
       "AttributeError: 'DeepSpeedZeroOptimizer_Stage3' object has no attribute 'train'"},
      // vLLM's multimodal model class looks a weight up by the name the checkpoint loader gives it;
      // a transformers release that renamed the vision tower's modules (Qwen2.5-VL in 4.52) hands
      // names the installed vLLM does not know (alibaba/ROLL#240: vLLM 0.8.4 with transformers 4.57;
      // 4.51 runs; verl#1710 alike).
      {"vllm_rpc_vision_weight_name", "environment", primary, {"Call to collective_rpc method failed: 'visual."},
       R"(collective_rpc method failed: '(visual\.[\w.]+)')", {{"weight", text}}, {},
       "vLLM's model does not know a vision-tower weight name it was given: the installed transformers names the "
       "model's modules differently from what the installed vLLM expects.",
       "vLLM's model does not know the weight {n:weight}: the installed transformers and vLLM do not match.",
       {{action, "install the transformers release the vLLM pins (vLLM 0.8.x: transformers<4.52), or a vLLM made for "
                 "the installed transformers", ""}},
       "Exception: Call to collective_rpc method failed: 'visual.patch_embed.proj.weight'"},
  };
}

}  // namespace meshplan
