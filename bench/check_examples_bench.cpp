// Checking all of verl's example launches together (156 verl.trainer.main_ppo launches of
// ../shared/verl/examples_overrides.jsonl, rebuilt as scripts; and the scripts of verl 1dda039b
// and v0.6.1 bundled in tests/fixtures). Target: well under 2 s.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

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

// Every example launch of one verl version, as the scripts themselves (tests/fixtures/verl/
// examples/*.bundle: 91 at main@1dda039b, 143 at v0.6.1). Target: under 2 s per version.
void BM_CheckVersionExamples(benchmark::State& state, const std::string& bundle, const std::string& version) {
  std::ifstream in(std::filesystem::path(MESHPLAN_SOURCE_DIR) / "tests" / "fixtures" / "verl" / "examples" / bundle);
  std::vector<InputText> scripts;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#### bundled: ", 0) == 0) {
      scripts.push_back(InputText{line.substr(14), ""});
    } else if (!scripts.empty()) {
      scripts.back().text += line + "\n";
    }
  }
  CheckOptions options;
  options.read.verl_version = version;
  std::size_t findings = 0;
  for (auto _ : state) {
    for (const InputText& script : scripts) {
      auto report = check_launch({script}, options);
      if (report.ok()) findings += report->findings.size();
    }
    benchmark::DoNotOptimize(findings);
  }
  state.counters["launches"] = static_cast<double>(scripts.size());
}
BENCHMARK_CAPTURE(BM_CheckVersionExamples, verl_1dda039b, std::string("verl_1dda039b.bundle"), std::string("main@1dda039b"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckVersionExamples, verl_v0_6_1, std::string("verl_v0.6.1.bundle"), std::string("0.6.1"))
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
