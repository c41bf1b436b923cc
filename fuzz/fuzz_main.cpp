// The libFuzzer entry: one executable, `meshplan_fuzz`, for every target of fuzz_targets.cpp;
// the environment variable MESHPLAN_FUZZ_TARGET picks the parser (MESHPLAN_FUZZ_TARGET=list
// prints their names). scripts/fuzz.sh runs each in turn with its own corpus.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_targets.hpp"

namespace {
const meshplan::fuzz::Target* selected = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("MESHPLAN_FUZZ_TARGET");
  for (const auto& target : meshplan::fuzz::targets()) {
    if (name != nullptr && target.name == name) selected = &target;
  }
  if (selected != nullptr) return 0;
  const bool list = name != nullptr && std::string_view(name) == "list";
  if (!list) std::fprintf(stderr, "set MESHPLAN_FUZZ_TARGET to one of:\n");
  for (const auto& target : meshplan::fuzz::targets()) {
    std::fprintf(list ? stdout : stderr, "%.*s\n", static_cast<int>(target.name.size()), target.name.data());
  }
  std::exit(list ? 0 : 2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  selected->run({reinterpret_cast<const char*>(data), size});
  return 0;
}
