// Signatures of the transports between the GPUs of one node and of the NICs' memory registration:
// NCCL's shared-memory transport (include/shm.h, transport/shm.cc), GPU peer access (CUDA P2P,
// which the engines' custom all-reduce needs), ibv_reg_mr (the locked-memory limit) and an NCCL
// build that does not fit the GPU (init's shared-memory check). Before the runtime table: these
// name the cause that the runtime table's broader NCCL signatures (a segment not created, a system
// error) only report. Each from a public thread whose resolution names the cause
// (tests/fixtures/logs/real/index.json).
#include "diagnose/signature_tables.hpp"

namespace meshplan {

using namespace signature_words;

std::vector<Signature> transport_signatures() {
  const FixTemplate no_custom_all_reduce = {
      action, "turn the engine's custom all-reduce off (it needs peer access between the GPUs): SGLang "
              "--disable-custom-all-reduce, vLLM --disable-custom-all-reduce (LLM(disable_custom_all_reduce=True))",
      ""};
  return {
      // NCCL makes its segments with shm_open in /dev/shm: a /dev/shm the job's user cannot write
      // (mounted without the sticky world-writable mode) refuses it (NVIDIA/nccl#328: chmod 1777).
      {"nccl_shm_open_denied", "nccl_network", primary, {"Call to shm_open failed", "Permission denied"}, "", {}, {},
       "NCCL could not create its shared-memory segment: /dev/shm is not writable by the user the job runs as.",
       "",
       {{action, "make /dev/shm writable for every user (chmod 1777 /dev/shm, as a tmpfs mounts it), or give the "
                 "container the host's IPC namespace (docker run --ipc=host)", ""},
        {env, "NCCL_SHM_DISABLE=1  # only if /dev/shm cannot be fixed: intra-node traffic then goes over P2P or the "
              "network", ""}},
       "node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied"},
      // NCCL 2.23+ backs the shared-memory transport with cuMem host allocations mapped into every
      // GPU; where the GPUs have no peer access (L4 / T4 pairs, some PCIe topologies and VMs) the
      // mapping fails with CUDA error 217 (NVIDIA/nccl#1838: NCCL_CUMEM_HOST_ENABLE=0).
      {"nccl_shm_peer_access", "nccl_network", primary, {"peer access is not supported", "transport/shm.cc"}, "", {},
       {},
       "NCCL's shared-memory transport failed to map its host buffers on GPUs without peer access (CUDA error "
       "217): the cuMem host allocations of NCCL 2.23 and later.",
       "",
       {{env, "NCCL_CUMEM_HOST_ENABLE=0  # back to NCCL's older host allocations for the shared-memory transport",
         ""},
        {env, "NCCL_SHM_DISABLE=1  # if it persists: intra-node traffic then goes over the network", ""}},
       "[2025-09-09 23:51:24] 9b405963aa12:774:854 [0] transport/shm.cc:590 NCCL WARN Cuda failure 217 'peer access "
       "is not supported between these two devices'"},
      // vLLM's and SGLang's custom all-reduce (csrc/custom_all_reduce.cuh) opens the other GPUs'
      // buffers over CUDA IPC: GPUs without peer access (consumer cards, T4 pairs) refuse it
      // (sgl-project/sglang#552, #4814: --disable-custom-all-reduce).
      {"gpu_peer_access_unsupported", "nccl_network", primary,
       {"peer access is not supported between these two devices"}, "", {}, {},
       "The GPUs of this node have no peer access (CUDA P2P) to each other, which a custom all-reduce of the "
       "inference engine needs (consumer GPUs, some PCIe topologies and VMs).",
       "",
       {no_custom_all_reduce,
        {env, "NCCL_P2P_DISABLE=1  # where NCCL itself fails on the same link: through host memory instead", ""}},
       "Failed: Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307 'peer access is not supported "
       "between these two devices'"},
      // ibv_reg_mr pins the buffers NCCL sends from; the locked-memory limit (ulimit -l, 64 KB by
      // default in containers) refuses them with ENOMEM: not a host out of memory
      // (NVIDIA/nccl-tests#206: ulimit -l unlimited).
      {"nccl_ib_reg_mr_memlock", "nccl_network", primary, {"Call to ibv_reg_mr", "Cannot allocate memory"}, "", {},
       {},
       "NCCL could not register memory with the InfiniBand / RoCE NIC: the process's locked-memory limit (ulimit "
       "-l) is too low, not the host's memory.",
       "",
       {{action, "raise the locked-memory limit of the job's processes on every node: ulimit -l unlimited (docker "
                 "run --ulimit memlock=-1; Slurm: the slurmd's LimitMEMLOCK=infinity with PropagateResourceLimits; "
                 "Ray: the raylet inherits the limit of the shell that ran ray start)", ""}},
       "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory"},
      // NCCL's init compares the shared memory its kernels need with the device's: NCCL 2.25 built
      // before the consumer Blackwell GPUs (RTX 5090, sm_120) asks more than they give, and its
      // collectives then fail or hang (NVIDIA/nccl#1637: fixed in 2.26.2).
      {"nccl_max_shared_mem_exceeds", "environment", primary, {"exceeds device/fn maxSharedMem"},
       R"(ncclMaxSharedMem (\d+) exceeds device/fn maxSharedMem (\d+))",
       {{"needed_bytes", number}, {"device_bytes", number}}, {},
       "This NCCL build's kernels need more shared memory than the GPU gives: an NCCL older than the GPU "
       "(NCCL 2.25 on consumer Blackwell GPUs).",
       "This NCCL build's kernels need {n:needed_bytes} bytes of shared memory where the GPU gives "
       "{n:device_bytes}: an NCCL older than the GPU.",
       {{action, "upgrade NCCL to 2.26.2 or later (pip install -U 'nvidia-nccl-cu12>=2.26.2', or a torch / "
                 "container that ships it)", ""}},
       "localhost:11344:11344 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856"},
  };
}

}  // namespace meshplan
