// Signatures of the distributed runtime: NCCL (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp
// watchdog messages, NCCLUtils.hpp error strings, NCCL's own WARN lines), GPU visibility (CUDA
// runtime errors, NVIDIA driver Xid lines in dmesg), Ray resources (verl's
// ResourcePoolManager._check_resource_available) and checkpoint loading (torch.nn.Module
// load_state_dict, torch.distributed.checkpoint, Megatron-LM checkpointing.py). Causes and fixes:
// ../shared/docs/verl-errors.md (E10-E14, E33-E35).
#include "diagnose/signature_tables.hpp"

namespace meshplan {

using namespace signature_words;

std::vector<Signature> runtime_signatures() {
  constexpr std::string_view kShmSummary =
      "NCCL could not create its shared-memory segment in /dev/shm: the container's /dev/shm is too small "
      "(Docker's default is 64 MB).";
  const std::vector<FixTemplate> shm_fixes = {
      {action, "give the container a larger /dev/shm: docker run --shm-size=<several GB> or --ipc=host (Kubernetes: "
               "an emptyDir volume with medium Memory mounted at /dev/shm)", ""},
      {env, "NCCL_SHM_DISABLE=1  # only if /dev/shm cannot grow: intra-node traffic then goes over P2P or the network",
       ""}};
  // NVLS multicast needs the NVSwitch fabric: a Fabric Manager restarted while processes held GPU
  // resources leaves it unusable until the node reboots (nccl#976).
  const FixTemplate kFabricManagerFix = {
      action, "the lasting fix: check the fabric (nvidia-smi -q | grep -A2 Fabric), then reboot the node or restart "
              "nvidia-fabricmanager with no process on its GPUs", ""};
  return {
      {"nccl_watchdog_timeout", "nccl_timeout", consequence, {"Watchdog caught collective operation timeout"},
       R"(\[Rank (\d+)\] Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?, Timeout\(ms\)=(\d+)\)(?: ran for (\d+) milliseconds)?)",
       {{"rank", number}, {"seq_num", number}, {"op_type", text}, {"numel_in", number}, {"numel_out", number},
        {"timeout_ms", number}, {"ran_for_ms", number}},
       {},
       "A collective operation did not complete within the NCCL timeout: some rank never joined it.",
       "Rank {n:rank} waited {n:ran_for_ms} ms in collective {n:op_type} (SeqNum {n:seq_num}) past the "
       "{n:timeout_ms} ms timeout: some rank never joined it.",
       {},
       "[rank0]:[E1127 18:12:10.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
       "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLGATHER, NumelIn=466119168, NumelOut=3728953344, "
       "Timeout(ms)=600000) ran for 600060 milliseconds before timing out."},
      {"nccl_watchdog_work", "nccl_timeout", consequence, {"detected by watchdog at work"},
       R"(\[PG (?:ID )?(\d+)(?: PG GUID (\S+))?[^\]]*\] Exception \(either an error or timeout\) detected by watchdog at work: (\d+), last enqueued NCCL work: (\d+), last completed NCCL work: (\d+))",
       {{"process_group", number}, {"process_group_guid", text}, {"failed_work", number},
        {"last_enqueued_work", number}, {"last_completed_work", number}},
       {},
       "The NCCL watchdog found a failed or timed-out collective.",
       "The NCCL watchdog of process group {n:process_group} found work {n:failed_work} failed (last completed "
       "{n:last_completed_work}).",
       {},
       "[rank4]:[E223 11:14:34.991860392 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 3 Rank 4] Exception (either "
       "an error or timeout) detected by watchdog at work: 91885, last enqueued NCCL work: 91885, last completed "
       "NCCL work: 91884."},
      // Gloo's timeout (torch/csrc/distributed/c10d/ProcessGroupGloo.cpp, gloo/transport): a CPU
      // collective, e.g. verl's object broadcasts, waited past its timeout for a rank (verl#2106).
      {"gloo_timeout", "nccl_timeout", consequence, {"Timed out waiting ", "ms for "},
       R"(Timed out waiting (\d+)ms for (recv|send) operation)", {{"timeout_ms", number}, {"operation", text}}, {},
       "A Gloo (CPU) collective waited past its timeout: some rank never reached it.",
       "A Gloo {n:operation} waited {n:timeout_ms} ms: some rank never reached the collective.",
       {},
       "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Timed out waiting 1800000ms for recv "
       "operation to complete"},
      {"nccl_watchdog_stuck", "nccl_timeout", consequence, {"watchdog got stuck for"},
       R"(watchdog got stuck for (\d+) seconds)", {{"stuck_seconds", number}}, {},
       "The NCCL watchdog thread itself hung (a collective or CUDA call never returned).", "", {},
       "[rank2]:[F1127 18:20:10.000000 ProcessGroupNCCL.cpp:1306] [PG ID 0 PG GUID 0(default_pg) Rank 2] "
       "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
       "collectives."},
      {"nccl_remote_error", "nccl_network", consequence, {"remote process exited or there was a network error"},
       R"(NCCL version ([\d.]+))", {{"nccl_version", text}}, {},
       "NCCL lost a peer: a remote process exited or the network between the ranks failed.", "", {},
       "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
       "remote process exited or there was a network error, NCCL version 2.21.5"},
      // NCCL's IB transport (transport/net_ib.cc) reporting a failed work completion. Error 12 is
      // IBV_WC_RETRY_EXC_ERR (vendor err 129: the transport's retries ran out): the NICs cannot reach
      // each other. Right at the first collective on RoCE it is the GID index NCCL uses (nccl#426,
      // pytorch#81628: NCCL_IB_GID_INDEX=3, the RoCE v2 GID, fixed it); later in a run, a link, NIC or
      // switch.
      {"nccl_ib_completion_error", "nccl_network", primary, {"NET/IB : Got completion ", "with error"},
       R"(Got completion (?:from peer ([\d.]+)<\d+> )?with error (\d+))", {{"peer_ip", text}, {"ib_error", number}},
       {},
       "An InfiniBand / RoCE transfer failed (NCCL NET/IB completion error): the NICs could not reach each other "
       "(RoCE addressing, or a link, NIC or switch problem).",
       "An InfiniBand / RoCE transfer failed with completion error {n:ib_error} (12: the NICs' retries ran out): "
       "the NICs could not reach each other.",
       {{env, "NCCL_IB_GID_INDEX=<the RoCE v2 GID index that show_gids lists, often 3>  # on RoCE, when it fails at "
              "the first collective: every node must use a GID the others can route to", ""},
        {env, "NCCL_IB_HCA=<the healthy HCAs, e.g. mlx5_0,mlx5_1>  # when it fails mid-run: exclude the failing port",
         ""}},
       "node2:25146:25854 [0] ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer 10.0.35.1<49189> with "
       "error 12, opcode 0, len 0, vendor err 129 (Send)"},
      // NCCL opening a socket of an address family the container's network does not have (nccl-tests#14:
      // an IPv6 interface picked inside a bridged container; `docker run --net=host` fixed it).
      {"nccl_socket_address_family", "nccl_network", primary, {"Socket creation failed : Address family"}, "", {},
       {},
       "NCCL could not open a socket: the interface it picked has an address family (IPv6) the process's network "
       "does not support (a container's bridged network).",
       "",
       {{action, "run the container on the host's network (docker run --net=host), or name an IPv4 interface", ""},
        {env, "NCCL_SOCKET_FAMILY=AF_INET  # and NCCL_SOCKET_IFNAME=<an IPv4 interface of every node>", ""}},
       "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported "
       "by protocol"},
      {"nccl_no_socket_interface", "nccl_network", primary, {"Bootstrap : no socket interface found"}, "", {}, {},
       "NCCL found no usable network interface to bootstrap the communicator.", "",
       {{env, "NCCL_SOCKET_IFNAME=<an interface that exists on every node, e.g. eth0>", ""}},
       "node1:1050:1050 [0] NCCL WARN Bootstrap : no socket interface found"},
      {"nccl_system_error", "nccl_network", primary, {"unhandled system error"}, R"(NCCL version ([\d.]+))",
       {{"nccl_version", text}}, {},
       "NCCL hit a system error (socket, shared memory or a peer that went away) while setting up or running "
       "a collective.",
       "", {{action, "in a container, give NCCL the host's IPC namespace or a larger /dev/shm: docker run --ipc=host "
                     "(or --shm-size=<several GB>)", ""},
            {env, "NCCL_SHM_DISABLE=1  # only to test whether /dev/shm is too small (docker: --shm-size)", ""}},
       "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:825, unhandled system "
       "error, NCCL version 2.18.5"},
      // ncclUnhandledCudaError (NCCL src/misc/utils / include/checks.h CUDACHECK): a CUDA call inside NCCL
      // failed; the WARN line before it (transport/p2p.cc, transport/nvls.cc) has its own signature when
      // the log keeps it. Bare, in the trainer-to-engine weight-update groups of RL frameworks it was the
      // engine's workers running with other NCCL settings than the trainer (NeMo RL #722, fixed by PR #898:
      // NCCL_CUMEM_ENABLE and NCCL_NVLS_ENABLE not reaching the async vLLM workers). A consequence: a CUDA
      // error or OOM found elsewhere in the log comes first.
      {"nccl_unhandled_cuda_error", "nccl_network", consequence, {"unhandled cuda error"}, "", {}, {},
       "NCCL failed a CUDA call inside a collective or while building a communicator; the NCCL WARN line that "
       "names the call is not in the log.",
       "", {{env, "NCCL_DEBUG=WARN  # at least: the failing call and transport (transport/p2p.cc, nvls.cc) are "
                  "named on the line before the error", ""},
            {action, "in a weight-update group between trainer and rollout engine, give the engine's workers the "
                     "trainer's NCCL variables (Ray runtime_env env_vars): vLLM sets NCCL_CUMEM_ENABLE=0 in its own "
                     "processes, and both sides of a communicator must agree on NCCL_CUMEM_ENABLE (and "
                     "NCCL_NVLS_ENABLE)", ""}},
       "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"},
      // torch/csrc/distributed/c10d/socket.cpp: a TCPStore server could not bind its port. Another
      // process of the node holds it: a run still alive from before, another job, or two engines of
      // this run that each took the same "free" port (vLLM's get_open_port binds port 0, closes the
      // socket and hands the number on: verl#6677, vllm#39015).
      {"c10d_store_port_in_use", "nccl_network", primary, {"The server socket has failed to ", "ddress already in use"},
       R"((?:port: |\]:)(\d+))", {{"port", number}}, {},
       "A process could not open torch.distributed's rendezvous store: its port is already taken on this node.",
       "A process could not open torch.distributed's rendezvous store on port {n:port}: the port is already taken "
       "on this node.",
       {{action, "find what holds the port (ss -ltnp | grep <port>): a process left from an earlier run (ray stop "
                 "--force on every node, then relaunch) or another job on the node (MASTER_PORT / the framework's "
                 "port setting to a free one; torchrun --standalone or --rdzv-endpoint=localhost:0 picks a free "
                 "port itself)", ""},
        {action, "if the port was picked by the framework (several rollout engines starting at once on one node), "
                 "it is a race between the engines' port choices: relaunching usually passes; start the engines "
                 "one after another if it recurs", ""}},
       "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
       "port: 32847, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"},
      // torch/csrc/distributed/c10d/socket.cpp: a rank cannot reach the rendezvous TCPStore at
      // MASTER_ADDR:MASTER_PORT (OpenRLHF#265: a container-internal 172.17.x address).
      {"c10d_store_unreachable", "nccl_network", primary, {"The client socket has "},
       R"(The client socket has (?:timed out after \d+s while trying to connect to|failed to connect to) \(?\[?([^\s,\])]+))",
       {{"address", text}}, {},
       "A process could not reach torch.distributed's rendezvous store (MASTER_ADDR:MASTER_PORT): the address is "
       "not reachable from its node (a container-internal address, a firewall, the wrong interface).",
       "A process could not reach torch.distributed's rendezvous store at {n:address}: that address is not "
       "reachable from its node.",
       {{action, "make the store's address reachable from every node: containers on the host network "
                 "(docker --network=host) rather than a bridge's 172.17.x address, the port range open in the "
                 "firewall, and the right interface in GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME", ""}},
       "[E socket.cpp:922] [c10d] The client socket has timed out after 1800s while trying to connect to "
       "(172.17.0.2, 44737)."},
      // NCCL's P2P transport (transport/p2p.cc) failing a CUDA call: the CUDA IPC / cuMem path between
      // processes of one node, not the network. vLLM sets NCCL_CUMEM_ENABLE=0 in its processes, which
      // forces legacy IPC handles a weight-sync group across processes may reject (NeMo RL #564).
      {"nccl_p2p_cuda_failure", "nccl_network", primary, {"NCCL WARN Cuda failure", "p2p.cc"},
       R"(Cuda failure '([^']+)')", {{"cuda_error", text}}, {},
       "NCCL's peer-to-peer transport between GPUs of one node failed a CUDA call (IPC or cuMem memory sharing "
       "between processes), not the network.",
       "NCCL's peer-to-peer transport failed a CUDA call ('{n:cuda_error}') while sharing GPU memory between "
       "processes of one node.",
       {{env, "NCCL_CUMEM_ENABLE=1  # in every process of the group: vLLM sets 0 in its own, and the two sides must "
              "agree", ""},
        {env, "NCCL_P2P_DISABLE=1  # only to test whether the P2P path is at fault (slower: through host memory)", ""}},
       "transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'"},
      // ncclInvalidUsage: most often two ranks of one communicator on the same GPU (a trainer and an
      // engine sharing a device for a weight-sync group, trl#3762); NCCL_DEBUG=WARN names it.
      {"nccl_invalid_usage", "device_visibility", primary, {"NCCL error: invalid usage"}, "", {}, {},
       "NCCL refused a call as invalid usage: most often two ranks of one communicator on the same GPU (a trainer "
       "and an engine sharing a device for a weight-sync group).",
       "",
       {{action, "give each rank of the group its own GPU (CUDA_VISIBLE_DEVICES of the trainer and of the separate "
                 "engine must not overlap), or run the engine colocated through the framework", ""},
        {env, "NCCL_DEBUG=WARN  # NCCL prints which usage it refused", ""}},
       "RuntimeError: Worker failed with error 'NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)'"},
      {"nccl_socket_closed", "nccl_network", consequence, {"NCCL WARN Net : "}, "", {}, {},
       "An NCCL socket closed: the peer exited or the network dropped the connection.", "", {},
       "node1:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from 10.200.84.247<58355> "
       "failed : Broken pipe"},
      {"duplicate_gpu", "device_visibility", primary, {"Duplicate GPU detected"},
       R"(rank (\d+) and rank (\d+) both on CUDA device (\w+))",
       {{"rank_a", number}, {"rank_b", number}, {"cuda_device", text}}, {},
       "Two ranks were placed on the same GPU: NCCL refuses one communicator with duplicate devices "
       "(nccl/src/init.cc).",
       "Ranks {n:rank_a} and {n:rank_b} were both placed on CUDA device {n:cuda_device}.",
       {{action, "give every rank its own GPU: no fixed torch.cuda.set_device index, no CUDA_VISIBLE_DEVICES override "
                 "inside workers; with verl, Ray assigns the GPUs (a Ray older than 2.40 was reported to place ranks "
                 "on one GPU, verl issue #161)", ""}},
       "smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 both on CUDA "
       "device 1000"},
      {"no_cuda_gpus", "device_visibility", primary, {"No CUDA GPUs are available"}, "", {}, {},
       "The process sees no GPU: CUDA_VISIBLE_DEVICES is empty or wrong, or Ray gave the worker no GPU.", "", {},
       "RuntimeError: No CUDA GPUs are available"},
      {"invalid_device_ordinal", "device_visibility", primary, {"invalid device ordinal"}, "", {}, {},
       "A GPU index beyond the visible devices was used: n_gpus_per_node or a device index exceeds the GPUs "
       "visible to the process.",
       "", {},
       "RuntimeError: CUDA error: invalid device ordinal"},
      {"cuda_device_busy", "device_visibility", primary, {"busy or unavailable"}, "", {}, {},
       "A GPU is busy or unavailable (exclusive-process mode held by another process, or a faulty GPU).", "",
       {{action, "nvidia-smi -q -d COMPUTE on the node: exclusive-process GPUs allow one process each", ""}},
       "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable"},
      {"no_nvidia_driver", "device_visibility", primary, {"Found no NVIDIA driver on your system"}, "", {}, {},
       "The process runs where no NVIDIA driver is visible (a CPU node, or a container without GPU access).", "",
       {{action, "run the container with GPU access (docker --gpus all) and check nvidia-smi inside it", ""}},
       "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
       "installed a driver from http://www.nvidia.com/Download/index.aspx"},
      {"gpu_fallen_off_bus", "device_visibility", primary, {"GPU has fallen off the bus"},
       R"(Xid \(PCI:([0-9a-fA-F:.]+)\): (\d+))", {{"pci_bus", text}, {"xid", number}}, {},
       "A GPU dropped off the PCIe bus (NVIDIA Xid 79): a hardware or power fault, not a configuration error.",
       "GPU {n:pci_bus} dropped off the bus (Xid {n:xid}): a hardware or power fault.",
       {{action, "drain the node and ask the cluster admins to check the GPU (nvidia-smi -q, reseat/replace)", ""}},
       "[Wed Nov 27 18:01:55 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus."},
      {"nvidia_smi_no_devices", "device_visibility", primary, {"No devices were found"}, "", {}, {},
       "nvidia-smi sees no GPU on this node.", "", {}, "No devices were found"},
      {"nvml_driver_mismatch", "device_visibility", primary, {"Failed to initialize NVML"}, R"(NVML: (.+))",
       {{"nvml_error", text}}, {},
       "NVML cannot talk to the driver (after a driver upgrade the loaded kernel module and the user-space "
       "library differ).",
       "NVML cannot talk to the driver: {n:nvml_error}.",
       {{action, "reboot the node (or reload the nvidia kernel modules) so that driver and library versions "
                 "match; check nvidia-smi before relaunching", ""}},
       "Failed to initialize NVML: Driver/library version mismatch"},
      {"gpu_lost", "device_visibility", primary, {"Reboot the system to recover this GPU"}, "", {}, {},
       "A GPU is lost to the driver: a hardware fault, not a configuration error.", "",
       {{action, "drain the node and have the GPU checked; relaunch on the remaining nodes", ""}},
       "Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to "
       "recover this GPU"},
      {"uncorrectable_ecc", "device_visibility", primary, {"uncorrectable ECC error encountered"}, "", {}, {},
       "A GPU reported an uncorrectable ECC memory error: the GPU needs a reset or replacement.", "",
       {{action, "nvidia-smi -q -d ECC on the node; reset the GPU (nvidia-smi -r) or drain the node", ""}},
       "RuntimeError: CUDA error: uncorrectable ECC error encountered"},
      {"ray_not_enough_gpus", "resources", primary, {"is less than total desired GPUs"},
       R"(Total available GPUs ([\d.]+) is less than total desired GPUs ([\d.]+))",
       {{"available_gpus", number}, {"desired_gpus", number}}, {},
       "Ray sees fewer GPUs than trainer.nnodes * trainer.n_gpus_per_node asks for.",
       "Ray sees {n:available_gpus} GPUs but the job asks for {n:desired_gpus} (trainer.nnodes * "
       "trainer.n_gpus_per_node).",
       {{override_line, "trainer.nnodes={d:nnodes_fit}  # {n:available_gpus} GPUs / {cfg:trainer.n_gpus_per_node} per node",
         "trainer.nnodes=<nodes Ray really has>  # or trainer.n_gpus_per_node=<GPUs per node>"},
        {action, "join the missing nodes (ray start --address=<head>:6379 --num-gpus=<n>) or stop the other Ray "
                 "job holding the GPUs", ""},
        {env, "RAY_ADDRESS=<head>:6379  # a driver that reaches no running cluster starts a local Ray of its own node "
              "(verl main_ppo's ray.init()) and sees only that node's GPUs", ""}},
       "ValueError: Total available GPUs 8.0 is less than total desired GPUs 16"},
      {"ray_cluster_only_has", "resources", primary, {"but the cluster only has"},
       R"(You asked for ([\d.]+) cpu and ([\d.]+) gpu per trial, but the cluster only has ([\d.]+) cpu and ([\d.]+) gpu)",
       {{"requested_cpus", number}, {"requested_gpus", number}, {"available_cpus", number}, {"available_gpus", number}},
       {}, "Ray's cluster has fewer GPUs or CPUs than one trial asks for (the trial stays pending).",
       "A trial asks for {n:requested_gpus} GPUs and {n:requested_cpus} CPUs; the cluster has {n:available_gpus} GPUs "
       "and {n:available_cpus} CPUs.",
       {},
       "2024-12-27 12:22:27,422\tWARNING trial_executor.py:305 -- Ignore this message if the cluster is autoscaling. "
       "You asked for 5.0 cpu and 2.0 gpu per trial, but the cluster only has 72.0 cpu and 1.0 gpu."},
      // Ray's autoscaler (autoscaler/_private/resource_demand_scheduler.py): a bundle no node type of
      // the cluster can hold (a placement group asking more GPUs per node than a node has).
      {"ray_no_node_type_fits", "resources", primary, {"No available node types can fulfill resource request"},
       R"(fulfill resource request [^{]*(\{[^}]*\}))", {{"requested_resources", text}}, {},
       "No node of the Ray cluster can hold a resource request: a bundle asks for more GPUs or CPUs than one node has.",
       "No node of the Ray cluster can hold the request {n:requested_resources}.",
       {{action, "ask per node for what one node has: trainer.n_gpus_per_node at most the GPUs of a node (and the "
                 "CPUs Ray sees on it), or add a node type that large to the autoscaler's config", ""}},
       "(scheduler +59m58s) Error: No available node types can fulfill resource request defaultdict(<class "
       "'float'>, {'GPU': 8.0, 'CPU': 16.0}). Add suitable node types to this cluster to resolve this issue."},
      // Ray's GCS health check (gcs_health_check_manager.cc): a node that stops answering is declared
      // dead; usually the echo of the node dying (host OOM, a crash) or of an overloaded raylet.
      {"ray_node_missed_heartbeats", "resources", consequence, {"missed too many heartbeats"}, "", {}, {},
       "Ray declared a node dead: it stopped answering the health checks (it died, ran out of host memory, or its "
       "raylet is overloaded or cut off).",
       "",
       {{action, "read that node's raylet.out and dmesg (an OOM kill?); an overloaded node: fewer workers a node "
                 "(data.dataloader_num_workers, reward workers), or more patience: "
                 "RAY_health_check_failure_threshold / RAY_health_check_timeout_ms", ""}},
       "2022-08-11 17:52:21,412 WARNING worker.py:1799 -- The node with node id: c118acd1 and address: 10.0.3.192 "
       "and node name: 10.0.3.192 has been marked dead because the detector has missed too many heartbeats from it."},
      {"ray_register_worker", "resources", primary, {"Unable to register worker with raylet"}, "", {}, {},
       "Ray could not start its worker processes: it starts one per CPU core it sees, more than the job's CPU "
       "allocation (e.g. SLURM) allows.",
       "", {{override_line, "+ray_kwargs.ray_init.num_cpus=<CPUs the allocation grants>", ""}},
       "[2024-11-27 18:00:01,123 E 4242 4242] core_worker.cc:499: Failed to register worker to Raylet: "
       "IOError: Unable to register worker with raylet. No such file or directory"},
      // Ray prints this while placement groups are still forming, so it is the root cause only when
      // nothing else failed.
      // Ray assigns a worker its GPUs by their IDs in the raylet's view (ray/_private/utils.py
      // set_visible_accelerator_ids, runtime_context.get_accelerator_ids): a CUDA_VISIBLE_DEVICES
      // passed into the job (ray.init runtime_env, or set before `ray start`) that does not list
      // the IDs Ray scheduled breaks the mapping (allenai/open-instruct#1519).
      {"ray_accelerator_ids", "device_visibility", primary, {"in set_visible_accelerator_ids"}, "", {}, {},
       "Ray could not give a worker the GPUs it scheduled: the GPU IDs Ray assigned are not the devices the "
       "worker's environment exposes (CUDA_VISIBLE_DEVICES set for the job or the node).",
       "", {{action, "do not pass CUDA_VISIBLE_DEVICES (or ROCR_/HIP_VISIBLE_DEVICES) in ray.init(runtime_env=...) "
                     "or the job's environment: Ray sets it per worker; restrict a node's GPUs with "
                     "ray start --num-gpus=<n> instead", ""}},
       "  File \".venv/lib/python3.12/site-packages/ray/_private/utils.py\", line 281, in "
       "set_visible_accelerator_ids"},
      {"ray_unschedulable", "resources", consequence, {"cannot be scheduled right now"}, R"(cannot be scheduled right now: (\{[^}]*\}))",
       {{"requested_resources", text}}, {},
       "Ray cannot place a task or actor: no node has the resources it requests.", "", {},
       "(autoscaler) Warning: The following resource request cannot be scheduled right now: {'GPU': 1.0, 'CPU': "
       "1.0}. This is likely due to all cluster resources being claimed by actors."},
      // Ray's core worker aborts when it cannot start a thread (boost::asio thread_pool in
      // ray/rpc/server_call.cc GetServerCallExecutor): the process or thread limit is reached
      // (EasyR1#52, *** SIGABRT received with this frame).
      {"ray_thread_start_failed", "resources", primary, {"boost::asio::detail::posix_thread::start_thread"}, "", {},
       {},
       "A Ray process could not start a thread and aborted: the node's process / thread limit (ulimit -u, a "
       "container's pids.max) is reached.",
       "",
       {{action, "raise the limit (ulimit -u unlimited; the container's pids-limit) or start fewer processes: "
                 "data.dataloader_num_workers, ray_kwargs.ray_init.num_cpus", ""}},
       "(main_task pid=9005)     @     0x1549e73fbd0c         96  boost::asio::detail::posix_thread::start_thread()"},
      // ray/gcs/gcs_client/gcs_client.cc: a node cannot reach the head's GCS. With an empty host the
      // address came from a variable the node does not have (MM-EUREKA#54: ray start --address=:6379).
      {"ray_gcs_connect_failed", "resources", consequence, {"Failed to connect to GCS at address"},
       R"(Failed to connect to GCS at address ([^\s:]*):(\d+))", {{"gcs_host", text}, {"gcs_port", number}}, {},
       "A node could not reach the Ray head (its GCS): the head's address is wrong or empty, the head is not up, or "
       "the port is blocked.",
       "A node could not reach the Ray head's GCS at '{n:gcs_host}:{n:gcs_port}'.",
       {{action, "an empty host is an unset address variable (MASTER_ADDR / RAY_ADDRESS on this node): export it; "
                 "else start the head first (ray start --head), use one Ray version on every node and open the port",
         ""}},
       "[2025-07-23 10:05:49,679 W 51000 51000] gcs_rpc_client.h:151: Failed to connect to GCS at address :6379 "
       "within 5 seconds."},
      // A native abort or segfault in a Ray worker: Ray's failure signal handler (absl) prints
      // "*** SIGABRT received at time=..." and CPython "Fatal Python error: Aborted". The NCCL
      // watchdog also aborts its process after a timeout, and the OOM killer's SIGKILL prints no
      // such line: an echo, the root only when no failure is found (a watchdog timeout before it).
      {"signal_abort", "native_crash", consequence, {" received at time=", "SIG"},
       R"((SIG[A-Z]+) received at time=)", {{"signal", text}}, {},
       "A worker process was killed by a signal raised in native code (SIGABRT: a library aborted; SIGSEGV: a "
       "segmentation fault), not by host memory.",
       "A worker process received {n:signal} in native code: a library aborted or crashed it, not the OOM killer.",
       {},
       "(WorkerDict pid=1473743) *** SIGABRT received at time=1744180215 on cpu 46 ***"},
      {"fatal_python_error", "native_crash", consequence, {"Fatal Python error: "},
       R"(Fatal Python error: (Aborted|Segmentation fault|Bus error|Floating point exception))", {{"signal", text}},
       {},
       "The Python interpreter of a worker died of a native fault (abort, segmentation fault).",
       "The Python interpreter of a worker died: {n:signal} in native code.", {},
       "(WorkerDict pid=1473743) Fatal Python error: Aborted"},
      // LLVM's report_fatal_error, which Triton's JIT compiler hits on a layout or type the target
      // GPU's backend cannot lower, then aborts (verl issues on V100: "Failed to compute parent layout").
      {"llvm_fatal_error", "native_crash", primary, {"LLVM ERROR: "}, R"(LLVM ERROR: (.+))", {{"llvm_error", text}},
       {},
       "LLVM aborted compiling a GPU kernel (Triton's JIT compiler): the kernel uses a layout or dtype the GPU "
       "architecture's backend cannot lower.",
       "LLVM aborted compiling a GPU kernel (Triton's JIT compiler): {n:llvm_error}",
       {{action, "find the kernel in the stack printed after 'Fatal Python error' (triton/compiler) and install "
                 "another Triton release: the message is a Triton lowering failure for this GPU architecture "
                 "(ModelTC/LightLLM#1030 resolved the same one by changing the Triton version); on V100 / T4 "
                 "also turn off the fused Triton kernels the run enables", ""}},
       "(WorkerDict pid=1473743) LLVM ERROR: Failed to compute parent layout for slice layout."},
      // The CUDA runtime found a libcublasLt that lacks the symbols torch was built against.
      // An index past the rows of an embedding (ATen/native/cuda/Indexing.cu indexSelectLargeIndex /
      // SmallIndex: "srcIndex < srcSelectDimSize") or of an indexed tensor (IndexKernel.cu: "index out
      // of bounds"): in a language model most often token ids the embedding has no row for
      // (Lightning-AI/lit-llama#306, sillsdev/silnlp#1033).
      {"cuda_index_out_of_range", "cuda_fault", primary, {"srcIndex < srcSelectDimSize"}, "", {}, {},
       "A device-side assert: an index past the rows of an embedding, most often token ids the model has no "
       "row for (a tokenizer with another or a larger vocabulary than the model's vocab_size).",
       "", {{action, "load the tokenizer of the model's own checkpoint (verl: data.tokenizer unset, "
                     "actor_rollout_ref.model.path), or resize the embeddings to the tokenizer "
                     "(model.resize_token_embeddings(len(tokenizer))) and check the config's vocab_size", ""}},
       "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [316,0,0], thread: [62,0,0] "
       "Assertion `srcIndex < srcSelectDimSize` failed."},
      {"cuda_index_out_of_bounds", "cuda_fault", primary, {"&& \"index out of bounds\""}, "", {}, {},
       "A device-side assert: an index past a tensor's size; in a language model most often token ids past the "
       "embedding's rows (a tokenizer with another or a larger vocabulary than the model's vocab_size).",
       "", {{action, "check that the token ids fit the model: the tokenizer of the model's own checkpoint (verl: "
                     "data.tokenizer unset), or embeddings resized to len(tokenizer), and the config's vocab_size",
             ""}},
       "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [31,0,0] Assertion "
       "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed."},
      // A collective whose ranks hold differently shaped pieces (c10d ProcessGroupGloo alltoall's
      // size check): a sequence- or context-parallel all-to-all over heads split into empty or
      // unequal shards because the SP / CP size exceeds or does not divide the (KV) heads
      // (hiyouga/LlamaFactory#10794).
      {"alltoall_tensor_size", "parallel_mismatch", primary, {"alltoall: invalid tensor size"},
       R"(expected (\([\d, ]+\)), got (\([\d, ]+\)))", {{"expected_shape", text}, {"got_shape", text}}, {},
       "An all-to-all got pieces of different shapes from its ranks: a sequence- or context-parallel split of "
       "the attention heads does not divide them (more ranks than KV heads gives empty shards).",
       "An all-to-all got a piece of shape {n:got_shape} where it expected {n:expected_shape}: a sequence- or "
       "context-parallel split of the attention heads does not divide them.",
       {{override_line, "actor_rollout_ref.actor.ulysses_sequence_parallel_size=<a divisor of the KV heads>"
                        "  # sequence_parallel_size / cp_size elsewhere: at most the KV heads", ""}},
       "RuntimeError: ProcessGroupGloo::alltoall: invalid tensor size at index 2 (expected (1, 4, 1, 8), got (1, "
       "4, 0, 8))"},
      // vLLM's and SGLang's initialize_model_parallel (vllm/distributed/parallel_state.py,
      // sglang/srt/distributed/parallel_state.py): the engine's TP x PP must be the torch.distributed
      // world it starts in: an engine built inside a torchrun world of more processes, or a
      // colocated trainer's external launcher on a vLLM whose external_launcher lacks data parallelism
      // (modelscope/ms-swift#3739: vLLM 0.7.2).
      {"engine_world_size", "parallel_mismatch", primary, {"is not equal to tensor_model_parallel_size ("},
       R"(world_size \((\d+)\) is not equal to tensor_model_parallel_size \((\d+)\) x pipeline_model_parallel_size \((\d+)\))",
       {{"world_size", number}, {"tensor_parallel_size", number}, {"pipeline_parallel_size", number}}, {},
       "The inference engine started inside a torch.distributed world larger than its tensor x pipeline size.",
       "The inference engine started inside a world of {n:world_size} processes with tensor x pipeline size "
       "{n:tensor_parallel_size} x {n:pipeline_parallel_size}.",
       {{action, "start the engine outside torchrun, or with tensor_parallel_size x pipeline_parallel_size equal to "
                 "the processes it runs in; a colocated trainer (TRL, ms-swift, verl) needs the vllm version it "
                 "pins, whose external_launcher runs one engine per TP group", ""}},
       "[rank1]: RuntimeError: world_size (8) is not equal to tensor_model_parallel_size (4) x "
       "pipeline_model_parallel_size (1)"},
      // vLLM's model loader (model_executor/models/interfaces.py SupportsPP): pipeline parallelism for a
      // model class that does not implement it in the installed release (vllm-project/vllm#16231:
      // Llama 4 gained it in 0.8.4).
      {"vllm_model_without_pp", "environment", primary, {"Pipeline parallelism is not supported for this model"}, "",
       {}, {},
       "The installed vLLM has no pipeline parallelism for this model class (it does not implement SupportsPP).", "",
       {{override_line, "actor_rollout_ref.rollout.pipeline_model_parallel_size=1  # vLLM's pipeline_parallel_size: "
                        "tensor or data parallelism instead", ""},
        {action, "or a vllm release whose model class implements SupportsPP (the model's page in vLLM's supported "
                 "models list)", ""}},
       "NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement the "
       "`SupportsPP` interface."},
      // SGLang's server arguments (srt/server_args.py): enable_memory_saver (verl turns it on for its
      // SGLang rollout's sleep mode) needs the torch_memory_saver package (sgl-project/sglang#4985).
      {"sglang_memory_saver_missing", "environment", primary, {"torch-memory-saver is not installed"}, "", {}, {},
       "SGLang's memory saver is on but the torch-memory-saver package is not installed.", "",
       {{action, "pip install torch-memory-saver (the version the installed SGLang pins), or run without "
                 "--enable-memory-saver (verl: actor_rollout_ref.rollout.free_cache_engine=False)", ""}},
       "enable_memory_saver is enabled, but torch-memory-saver is not installed. Please install it via `pip3 "
       "install torch-memory-saver`."},
      // Transformer Engine's cuDNN fused attention failing inside cuDNN (fused_attn_f16_arbitrary_seqlen.cu):
      // most often a cuDNN other than the one TE was built for found first (a pip nvidia-cudnn beside
      // the system's), NVIDIA/Megatron-LM#1882.
      {"te_fused_attention_cudnn_error", "environment", primary, {"fused_attn_f16_arbitrary_seqlen", "cuDNN Error"},
       "", {}, {},
       "cuDNN's fused attention failed inside cuDNN: the cuDNN loaded is most often not the one Transformer Engine "
       "was built against.",
       "",
       {{action, "check which libcudnn the process loads (a pip nvidia-cudnn package beside the system's) against "
                 "the one Transformer Engine was built with", ""},
        {override_line, "actor_rollout_ref.actor.megatron.override_transformer_config.attention_backend=flash  # "
                        "Megatron's --attention-backend flash; NVTE_FUSED_ATTN=0 elsewhere", "", "",
         "actor_rollout_ref.actor.megatron.override_transformer_config.attention_backend=flash"}},
       "fused_attn_f16_arbitrary_seqlen.cu:373 in function operator(): cuDNN Error"},
      // Megatron-core's learning-rate schedule (optimizer_param_scheduler.py) asserts it has steps to
      // decay over: a run whose training iterations came out as 0 (a global batch larger than the
      // samples the run produces: THUDM/slime PR #2366) or lr_decay_iters 0.
      {"megatron_no_lr_decay_steps", "batch_config", primary, {"assert self.lr_decay_steps > 0"}, "", {}, {},
       "Megatron's learning-rate schedule has no steps: the run's training iterations came out as 0 (a global batch "
       "larger than the samples it produces) or the decay length is 0.",
       "",
       {{action, "make the global batch size at most the samples a step produces (prompts x responses per prompt), "
                 "or set the total and lr-decay iterations explicitly", ""}},
       "    assert self.lr_decay_steps > 0"},
      // NCCL's InfiniBand / RoCE queue-pair setup (transport/net_ib.cc via ibvwrap.c) timing out: on
      // RoCE a wrong GID index, or on a rail-optimized fabric a connection between NICs of different
      // rails (NVIDIA/nccl#2013: NCCL_CROSS_NIC=0).
      {"nccl_ib_modify_qp_failed", "nccl_network", primary, {"NCCL WARN Call to ibv_modify_qp failed"},
       R"(failed with (\d+) ([^,]+), on dev ([^,]+))", {{"errno", number}, {"error", text}, {"device", text}}, {},
       "NCCL could not bring up an InfiniBand / RoCE connection (ibv_modify_qp): the two NICs cannot reach each "
       "other on the path NCCL chose.",
       "NCCL could not bring up an InfiniBand / RoCE connection on {n:device} ({n:error}): the two NICs cannot reach "
       "each other on the path NCCL chose.",
       {{env, "NCCL_CROSS_NIC=0  # rail-optimized fabrics: connect only NICs of the same rail", ""},
        {env, "NCCL_IB_GID_INDEX=<the RoCE v2 GID index, often 3>  # RoCE: show_gids lists them", ""}},
       "host-01:12345 [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev "
       "mlx5_1:1, curr state INIT, next state RTR, local GID index 3"},
      // SGLang's weight update (srt/model_executor/model_runner.py update_weights_from_distributed /
      // _from_tensor) wrapping what the model's load_weights raised: a name or a shape the engine's
      // model does not take from the trainer's converter (THUDM/slime#2280: expert shards sent without
      // their tensor-parallel gather by an older Megatron-LM).
      {"sglang_weight_update_failed", "environment", primary, {"Failed to update parameter online"},
       R"(Failed to update parameter online: (.+?)\.? The full weights)", {{"load_error", text}}, {},
       "The rollout engine refused a weight update from the trainer: a tensor name or shape its model does not "
       "take (the trainer's weight converter and the engine do not match).",
       "The rollout engine refused a weight update from the trainer ({n:load_error}): a tensor name or shape its "
       "model does not take.",
       {{action, "install the trainer side (Megatron-LM / Megatron-Bridge, the RL framework's converter) and the "
                 "engine at the versions the RL framework pins together; a new model family needs a converter "
                 "that knows its fused or sharded weights", ""}},
       "Failed to update parameter online: start (256) + length (256) exceeds dimension size (256).. The full "
       "weights of the ModelRunner are partially updated. Please discard the whole weights."},
      // SGLang's CUDA-graph capture (srt/model_executor/cuda_graph_runner.py) re-raises what capture
      // hit with its own remedies; an out-of-memory inside it is read by the memory signatures first
      // (same line, earlier table). The rest (a torch.compile incompatibility, a kernel fault, a JIT
      // build) is named by the error it wraps (sgl-project/sglang#1522).
      {"sglang_cuda_graph_capture_failed", "unclassified", consequence, {"Capture cuda graph failed"},
       R"(Capture cuda graph failed: (.+))", {{"capture_error", text}}, {},
       "SGLang failed to capture its CUDA graphs at start-up; the error it wraps is the cause.",
       "SGLang failed to capture its CUDA graphs at start-up: {n:capture_error}.",
       {{action, "SGLang's own remedies: a lower --mem-fraction-static, a smaller --cuda-graph-max-bs, no "
                 "--enable-torch-compile (not all quantized kernels trace); or no CUDA graphs at all (verl: "
                 "actor_rollout_ref.rollout.enforce_eager=True, SGLang's --disable-cuda-graph, slower decode)", ""}},
       "Exception: Capture cuda graph failed: Ninja build failed."},
      // NCCL's NVLink SHARP transport (src/transport/nvls.cc) failing a CUDA call while it sets up its
      // multicast buffers: processes that did not inherit the job's NCCL environment (NeMo RL PR #898:
      // async vLLM workers without NCCL_NVLS_ENABLE / NCCL_CUMEM_ENABLE; #1352: NCCL_NVLS_ENABLE=0 fixes
      // it), or a container without multicast support. Before "unhandled cuda error", its echo.
      {"nccl_nvls_cuda_failure", "nccl_network", primary, {"transport/nvls.cc", "Cuda failure"},
       R"(Cuda failure (\d+) '([^']+)')", {{"cuda_error", number}, {"cuda_message", text}}, {},
       "NCCL's NVLink SHARP (NVLS) transport failed a CUDA call while setting up its multicast buffers.",
       "NCCL's NVLink SHARP (NVLS) transport failed a CUDA call ({n:cuda_message}) while setting up its multicast "
       "buffers.",
       {{env, "NCCL_NVLS_ENABLE=0  # in every process of the group, the rollout engine's workers too (NCCL falls back "
              "to its other NVLink transports)", ""},
        {action, "set the job's NCCL variables where the engine's workers inherit them (Ray runtime_env env_vars): "
                 "NCCL_CUMEM_ENABLE must agree across the processes of a communicator", ""},
        kFabricManagerFix},
       "node-1:4121:4380 [3] transport/nvls.cc:598 NCCL WARN Cuda failure 1 'invalid argument'"},
      // NCCL 2.2x's own explanation when binding NVLS multicast memory fails (pytorch PR #177472: CUDA
      // error 401 on H100 CI machines; NCCL_NVLS_ENABLE=0 as the short-term workaround).
      {"nccl_nvls_multicast_bind", "nccl_network", primary, {"Failed to bind NVLink SHARP (NVLS) Multicast memory"},
       R"(CUDA error (\d+) '([^']+)')", {{"cuda_error", number}, {"cuda_message", text}}, {},
       "NCCL could not bind NVLink SHARP (NVLS) multicast memory: the NVSwitch fabric (Fabric Manager) is not in a "
       "state to serve it.",
       "NCCL could not bind NVLink SHARP (NVLS) multicast memory (CUDA error {n:cuda_error}, {n:cuda_message}): "
       "the NVSwitch fabric (Fabric Manager) is not in a state to serve it.",
       {{env, "NCCL_NVLS_ENABLE=0  # the workaround NCCL names: its other NVLink transports, without NVLS", ""},
        kFabricManagerFix},
       "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot "
       "be performed in the present state'."},
      // psutil's cpu_affinity refusing a CPU the process may not use: TensorRT-LLM's NUMA-aware worker
      // pinning picks CPUs that Ray's worker environment masked (verl#5083, PR #5085 sets
      // TLLM_NUMA_AWARE_WORKER_AFFINITY=0 for the TRT-LLM rollout).
      {"cpu_affinity_not_eligible", "environment", primary, {"is not eligible; "},
       R"(CPU number (\d+) is not eligible)", {{"cpu", number}}, {},
       "A process pinned itself to a CPU it may not use (the CPUs Ray or the container leave it do not include "
       "it): TensorRT-LLM's NUMA-aware worker affinity does this under Ray.",
       "A process pinned itself to CPU {n:cpu}, which it may not use (the CPUs Ray or the container leave it do not "
       "include it): TensorRT-LLM's NUMA-aware worker affinity does this under Ray.",
       {{env, "TLLM_NUMA_AWARE_WORKER_AFFINITY=0  # TensorRT-LLM rollout: no CPU pinning of its workers", ""}},
       "ValueError: CPU number 0 is not eligible; choose between [32, 33, 34, 35]"},
      {"cublaslt_symbol_missing", "environment", primary, {"Cannot load symbol cublasLt"},
       R"(Cannot load symbol (cublasLt\w+))", {{"symbol", text}}, {},
       "The process could not load cuBLASLt's symbols: the installed CUDA libraries do not match the ones torch "
       "(or the engine) was built against.",
       "The process could not load {n:symbol} from cuBLASLt: the installed CUDA libraries do not match the ones "
       "torch (or the engine) was built against.",
       {{action, "check which libcublasLt the process loads (ldd / LD_LIBRARY_PATH) against torch.version.cuda: "
                 "an older CUDA toolkit first on LD_LIBRARY_PATH shadows the one pip installed", ""}},
       "(WorkerDict pid=23189) Invalid handle. Cannot load symbol cublasLtGetVersion"},
      // NCCL's shared-memory transport (src/transport/shm.cc, include/shm.h) makes its segments in
      // /dev/shm; a container's default /dev/shm (Docker: 64 MB) is too small (NVIDIA/nccl#342).
      // Before no_space_left: NCCL's "No space left on device" is /dev/shm, not a disk.
      {"nccl_shm_full", "nccl_network", primary, {"No space left on device", "NCCL WARN"}, "", {}, {},
       kShmSummary, "", shm_fixes, "include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device"},
      {"nccl_shm_segment", "nccl_network", primary, {"Error while creating shared memory segment"},
       R"(segment (\S+) \(size (\d+)\))", {{"segment", text}, {"segment_bytes", number}}, {}, kShmSummary, "",
       shm_fixes,
       "include/shm.h:48 NCCL WARN Error while creating shared memory segment "
       "nccl-shm-recv-250a7cc850ba9298-0-1-3 (size 9637888)"},
      {"no_space_left", "resources", primary, {"No space left on device"}, "", {}, {},
       "A disk is full (checkpoints, Ray's object spilling or /dev/shm).", "",
       {{action, "free space in trainer.default_local_dir and /tmp/ray; limit checkpoints with "
                 "trainer.max_actor_ckpt_to_keep=<n>", ""}},
       "OSError: [Errno 28] No space left on device"},
      // Megatron-core dist_checkpointing: a tensor of the checkpoint has another global shape than the
      // model built (Megatron-Bridge PR #127: a provider config that lost num_query_groups).
      {"dist_checkpoint_shape_mismatch", "checkpoint_mismatch", primary, {"Global shape mismatch for loaded"},
       R"(for key ([\w.]+))", {{"key", text}}, {},
       "A tensor of the distributed checkpoint has another shape than the model built: the model's config (heads, "
       "query groups, hidden or FFN size, padded vocabulary) is not the one that saved it.",
       "The checkpoint's {n:key} has another shape than the model built: the model's config is not the one that "
       "saved it.",
       {{action, "build the model with the config that saved the checkpoint (num_query_groups / num_key_value_heads, "
                 "hidden and FFN sizes, make-vocab-size-divisible-by); a parallel layout change alone reshards", ""}},
       "megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch for loaded "
       "(torch.Size([32, 6144, 4096])) and expected ((32, 12288, 4096)) tensor for key "
       "decoder.layers.self_attention.linear_qkv.weight"},
      {"dist_checkpoint_list_mismatch", "checkpoint_mismatch", primary,
       {"Cannot merge two lists with different lengths"}, R"(encountered at level \('(\w+)')", {{"section", text}},
       {},
       "Megatron's distributed checkpoint holds state whose per-rank layout differs from this run's "
       "(megatron/core/dist_checkpointing/dict_utils.py merge): the parallel layout or the optimizer sharding changed.",
       "", {},
       "ValueError: Cannot merge two lists with different lengths (1 and N, encountered at level ('optimizer', 0, "
       "'param_state', 0))"},
      {"state_dict_size_mismatch", "checkpoint_mismatch", primary, {"size mismatch for "},
       R"(size mismatch for ([\w.]+): copying a param with shape torch\.Size\(\[([\d, ]*)\]\) from checkpoint, the shape in current model is torch\.Size\(\[([\d, ]*)\]\))",
       {{"parameter", text}, {"checkpoint_shape", text}, {"model_shape", text}}, {},
       "A checkpoint's tensor shapes differ from the model's: it was saved from another model config.",
       "Parameter {n:parameter} is [{n:checkpoint_shape}] in the checkpoint but [{n:model_shape}] in the model.",
       {}, "\tsize mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([151936, 3584]) "
           "from checkpoint, the shape in current model is torch.Size([152064, 3584])."},
      {"dcp_size_mismatch", "checkpoint_mismatch", primary, {"Size mismatch between saved"},
       R"(Size mismatch between saved torch\.Size\(\[([\d, ]*)\]\) and current: torch\.Size\(\[([\d, ]*)\]\) for (\S+))",
       {{"checkpoint_shape", text}, {"model_shape", text}, {"parameter", text}}, {},
       "A distributed checkpoint's tensor shapes differ from the model's (another model, or FSDP1 flat vs "
       "FSDP2 parameters).",
       "Parameter {n:parameter} is [{n:checkpoint_shape}] in the checkpoint but [{n:model_shape}] now.", {},
       "ValueError: Size mismatch between saved torch.Size([257152, 2048]) and current: torch.Size([131661824]) "
       "for model.embed_tokens.weight"},
      {"megatron_checkpoint_argument", "checkpoint_mismatch", primary,
       {"value from checkpoint", "is not equal to the input argument value"},
       R"((\w+) value from checkpoint \((\d+)\) is not equal to the input argument value \((\d+)\))",
       {{"argument", text}, {"checkpoint_value", number}, {"current_value", number}}, {},
       "The Megatron checkpoint was saved with another parallel layout.",
       "The checkpoint was saved with {n:argument}={n:checkpoint_value}, the run uses {n:current_value}.",
       {{override_line, "actor_rollout_ref.actor.megatron.use_dist_checkpointing=True  # layout-independent "
                        "checkpoints (convert the old one first)", ""}},
       "AssertionError: tensor_model_parallel_size value from checkpoint (1) is not equal to the input argument "
       "value (2)."},
      {"state_dict_missing_keys", "checkpoint_mismatch", primary, {"Error(s) in loading state_dict for"},
       R"(loading state_dict for (\w+))", {{"module", text}}, {},
       "The checkpoint's parameter names or shapes do not match the model.", "", {},
       "RuntimeError: Error(s) in loading state_dict for Qwen2ForCausalLM:"},
      {"fsdp_shard_missing", "checkpoint_mismatch", primary, {"No such file or directory", "model_world_size_"},
       R"(model_world_size_(\d+)_rank_(\d+)\.pt)", {{"world_size", number}, {"rank", number}}, {},
       "The FSDP checkpoint shard for this world size is missing: verl's FSDP checkpoints are saved per rank, so "
       "resuming needs the same world size.",
       "No shard model_world_size_{n:world_size}_rank_{n:rank}.pt: the checkpoint was saved with another world "
       "size.",
       {}, "FileNotFoundError: [Errno 2] No such file or directory: "
           "'/ckpt/global_step_100/actor/model_world_size_16_rank_3.pt'"},
  };
}

}  // namespace meshplan
