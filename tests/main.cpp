// The test runner: doctest's own main, plus honest skips. A test case that cannot run because
// ../shared is absent (test::shared_file) is listed as skipped, never counted as passed: the
// summary names how many were skipped, and a run in which every selected case skipped exits
// 77, which ctest reports as "Skipped" (SKIP_RETURN_CODE in CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>
#include <set>
#include <string>

#include "test_support.hpp"

namespace meshplan::test {
namespace {

struct SkipLedger {
  std::string current;
  std::set<std::string> skipped;
  int cases_run = 0;
};

SkipLedger& ledger() {
  static SkipLedger instance;
  return instance;
}

// Remembers which test case is running, so that shared_file() can mark it skipped.
struct CaseTracker : doctest::IReporter {
  explicit CaseTracker(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData& data) override {
    ledger().current = data.m_name;
    ++ledger().cases_run;
  }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

void mark_skipped() { ledger().skipped.insert(ledger().current); }

}  // namespace meshplan::test

DOCTEST_REGISTER_LISTENER("skips", 1, meshplan::test::CaseTracker);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int failed = context.run();
  if (context.shouldExit()) return failed;
  const auto& ledger = meshplan::test::ledger();
  if (!ledger.skipped.empty()) {
    std::cout << "[doctest] skipped: " << ledger.skipped.size() << " of " << ledger.cases_run
              << " test cases ran without ../shared (not counted as passed):\n";
    for (const std::string& name : ledger.skipped) std::cout << "  " << name << "\n";
  }
  if (failed == 0 && ledger.cases_run > 0 && static_cast<int>(ledger.skipped.size()) == ledger.cases_run) return 77;
  return failed;
}
