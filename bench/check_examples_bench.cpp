// Checking all of verl's example launches together (156 verl.trainer.main_ppo launches of
// ../shared/verl/examples_overrides.jsonl, rebuilt as scripts). Target: well under 2 s.
#include <benchmark/benchmark.h>

#include <filesystem>

// The script rebuilder is the examples test's; compiled in here so both use the same scripts.
#include "../tests/verl/verl_example_scripts.cpp"

namespace {

using namespace meshplan;

void BM_CheckAllExampleLaunches(benchmark::State& state) {
  const std::filesystem::path jsonl =
      std::filesystem::path(MESHPLAN_SOURCE_DIR).parent_path() / "shared" / "verl" / "examples_overrides.jsonl";
  if (!std::filesystem::exists(jsonl)) {
    state.SkipWithError("../shared/verl/examples_overrides.jsonl is absent");
    return;
  }
  const std::vector<test::ExampleLaunch> launches = test::example_launches(jsonl);
  std::size_t findings = 0;
  for (auto _ : state) {
    for (const test::ExampleLaunch& launch : launches) {
      auto report = check_launch({InputText{launch.source, launch.script}}, launch.options);
      if (report.ok()) findings += report->findings.size();
    }
    benchmark::DoNotOptimize(findings);
  }
  state.counters["launches"] = static_cast<double>(launches.size());
  state.counters["launches_per_s"] =
      benchmark::Counter(static_cast<double>(launches.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_CheckAllExampleLaunches)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
