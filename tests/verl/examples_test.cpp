// Every verl.trainer.main_ppo launch in verl's own examples (../shared/verl/examples_overrides.jsonl,
// verl b178a3cd + verl-recipe 21892b92) is turned back into a script and checked: no errors,
// except the launches listed below, which are really broken.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "test_support.hpp"
#include "verl/check.hpp"
#include "verl_example_scripts.hpp"

namespace meshplan {

TEST_CASE("verl's example launches check clean, except the really broken ones") {
  const auto path = test::shared_file("verl/examples_overrides.jsonl");
  if (!path) return;
  // source -> the rule that must fire, and why the launch is really broken.
  const std::map<std::string, std::pair<std::string, std::string>> broken = test::broken_example_launches();
  const std::map<std::string, std::string> unrebuildable = test::unrebuildable_example_launches();
  int checked = 0, clean = 0, flagged = 0;
  for (const test::ExampleLaunch& example : test::example_launches(*path)) {
    ++checked;
    if (unrebuildable.count(example.source)) continue;
    auto report = check_launch({InputText{example.source, example.script}}, example.options);
    REQUIRE_MESSAGE(report.ok(), example.source << ": " << (report.ok() ? "" : report.error().to_string()));
    std::set<std::string> error_rules;
    std::string errors;
    for (const Finding& f : report->findings) {
      if (f.severity != Severity::error) continue;
      error_rules.insert(f.rule);
      errors += "\n  " + f.location.file + ":" + std::to_string(f.location.line) + " [" + f.rule + "] " + f.message;
    }
    const auto known = broken.find(example.source);
    if (known == broken.end()) {
      CHECK_MESSAGE(error_rules.empty(), example.source << errors << "\n--- script ---\n" << example.script);
      clean += error_rules.empty() ? 1 : 0;
    } else {
      CHECK_MESSAGE(error_rules.count(known->second.first) == 1,
                    example.source << " should trip " << known->second.first << " (" << known->second.second << ")"
                                   << errors);
      flagged += 1;
    }
  }
  MESSAGE(checked << " example launches: " << clean << " clean, " << flagged << " really broken, "
                  << unrebuildable.size() << " not rebuildable from their record");
  CHECK(clean + flagged + static_cast<int>(unrebuildable.size()) == checked);
  CHECK(checked == 156);  // examples_overrides.README.md: 156 verl.trainer.main_ppo launches
}

}  // namespace meshplan
