#include <doctest/doctest.h>

#include <string>

#include "approx.hpp"
#include "diagnose/log_line.hpp"

namespace meshplan {

TEST_CASE("clean_line removes ANSI colours and keeps the last redraw of a progress bar") {
  std::string scratch;
  CHECK(clean_line("\x1b[36m(WorkerDict pid=1)\x1b[0m hello", scratch) == "(WorkerDict pid=1) hello");
  CHECK(clean_line("Progress: 10%\rProgress: 20%\rProgress: 30%", scratch) == "Progress: 30%");
  CHECK(clean_line("Progress: 30%\r   \r", scratch) == "Progress: 30%");  // trailing blank redraw
  CHECK(clean_line("windows line\r", scratch) == "windows line");
  CHECK(clean_line("plain", scratch) == "plain");
}

TEST_CASE("parse_prefix peels Ray, rank and glog prefixes and reads the glog time") {
  const LinePrefix p = parse_prefix(
      "(WorkerDict pid=3144, ip=10.0.0.14) [rank3]:[E1127 18:02:10.550123 ProcessGroupNCCL.cpp:607] [Rank 3] msg");
  CHECK(p.source == "WorkerDict");
  CHECK(p.pid == 3144);
  CHECK(p.ip == "10.0.0.14");
  CHECK(p.rank == 3);
  CHECK(p.body == "[Rank 3] msg");
  // 27 November, 18:02:10.550123: ((11 * 31) + 27) days * 86400 + 18*3600 + 2*60 + 10.550123.
  REQUIRE(p.time_seconds.has_value());
  CHECK(*p.time_seconds == test::approx((11.0 * 31 + 27) * 86400 + 64930.550123));
}

TEST_CASE("parse_prefix reads Python, vLLM, torch elastic and dmesg stamps to the same clock") {
  const double nov27_18h02m10s = (11.0 * 31 + 27) * 86400 + 64930;
  const LinePrefix python = parse_prefix("2026-11-27 18:02:10,000\tWARNING worker.py:2302 -- A worker died");
  REQUIRE(python.time_seconds.has_value());
  CHECK(*python.time_seconds == test::approx(nov27_18h02m10s));
  const LinePrefix vllm = parse_prefix("INFO 11-27 18:02:10 [core.py:12] Loading");
  CHECK(*vllm.time_seconds == test::approx(nov27_18h02m10s));
  CHECK(vllm.body == "Loading");  // the source location is part of the prefix
  CHECK(vllm.level == LogLevel::info);
  const LinePrefix elastic = parse_prefix("E1127 18:02:10.000000 23 torch/distributed/elastic/api.py:869] failed");
  CHECK(*elastic.time_seconds == test::approx(nov27_18h02m10s));
  CHECK(elastic.body == "failed");
  const LinePrefix dmesg = parse_prefix("[Wed Nov 27 18:02:10 2026] Out of memory: Killed process 1");
  CHECK(*dmesg.time_seconds == test::approx(nov27_18h02m10s));
  CHECK(dmesg.body == "Out of memory: Killed process 1");
  const LinePrefix uptime = parse_prefix("[12345.678901] python invoked oom-killer");
  CHECK_FALSE(uptime.time_seconds.has_value());  // seconds since boot: another clock
  CHECK(uptime.body == "python invoked oom-killer");
  const LinePrefix sglang = parse_prefix("(WorkerDict pid=7) [2026-11-27 18:02:10 TP0] Load weight end.");
  CHECK(*sglang.time_seconds == test::approx(nov27_18h02m10s));
  CHECK(sglang.body == "Load weight end.");
}

TEST_CASE("parse_prefix reads every rank form: Ray rank=, worker[rank=], SGLang TP, srun and mpirun labels") {
  const LinePrefix vllm = parse_prefix("(VllmWorker rank=2 pid=1234) ERROR 11-27 18:02:10 [multiproc_executor.py:1] x");
  CHECK(vllm.rank == 2);
  CHECK(vllm.pid == 1234);
  CHECK(vllm.source == "VllmWorker");
  CHECK(vllm.level == LogLevel::error);
  CHECK(vllm.body == "x");
  const LinePrefix nemo = parse_prefix("(MegatronPolicyWorker[rank=8] pid=3294808, ip=10.109.19.209)   File \"a.py\"");
  CHECK(nemo.rank == 8);
  CHECK(nemo.source == "MegatronPolicyWorker");
  CHECK(parse_prefix("[2025-02-24 14:09:34 DP1 TP14] Scheduler hit an exception").rank == 14);
  const LinePrefix srun = parse_prefix("15: [rank15]: AssertionError: x");
  CHECK(srun.rank == 15);
  CHECK(srun.body == "AssertionError: x");
  const LinePrefix mpi = parse_prefix("[1,3]<stdout>:host:29881:30401 [0] NCCL INFO init.cc:903 -> 5");
  CHECK(mpi.rank == 3);
  CHECK(mpi.body == "host:29881:30401 [0] NCCL INFO init.cc:903 -> 5");
}

TEST_CASE("parse_prefix reads log levels and strips box borders") {
  const LinePrefix fastchat = parse_prefix("2024-01-22 14:32:27 | ERROR | stderr | ValueError: x");
  CHECK(fastchat.level == LogLevel::error);
  CHECK(fastchat.body == "ValueError: x");
  const LinePrefix python = parse_prefix("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1)");
  CHECK(python.level == LogLevel::error);
  CHECK(python.body == "torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1)");
  const LinePrefix boxed = parse_prefix("\u2502 ERROR 09-27 06:46:46 engine.py:157] RuntimeError: x   \u2502");
  CHECK(boxed.level == LogLevel::error);
  CHECK(boxed.body == "RuntimeError: x");
  CHECK(parse_prefix("  | [2025-03-10T15:07:20Z] INFO 03-10 08:07:20 [gpu_model_runner.py:1067] Model").body == "Model");
  CHECK(parse_prefix("E1127 18:02:10.000000 23 api.py:869] failed").level == LogLevel::error);
}

TEST_CASE("parse_prefix leaves ordinary text alone") {
  const LinePrefix p = parse_prefix("(this is a remark) and [brackets] too");
  CHECK(p.pid == -1);
  CHECK(p.rank == -1);
  CHECK_FALSE(p.time_seconds.has_value());
  CHECK(p.body == "(this is a remark) and [brackets] too");
  CHECK(parse_prefix("(raylet) A worker died").source == "raylet");
  CHECK(parse_prefix("[default5]:RuntimeError: x").rank == 5);
}

}  // namespace meshplan
