#include <doctest/doctest.h>

#include <string>

#include "diagnose/constructor_error.hpp"

namespace meshplan {
namespace {

TEST_CASE("a Python <=3.9 constructor error is read with the class its code line builds") {
  std::string out;
  // hiyouga/LlamaFactory#6654 (vLLM 0.5.0 under Python 3.9): the class is on the line above.
  CHECK(qualify_bare_init_error("TypeError: __init__() got an unexpected keyword argument 'limit_mm_per_prompt'",
                                "    self.model = AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**engine_args))",
                                out) ==
        "TypeError: AsyncEngineArgs.__init__() got an unexpected keyword argument 'limit_mm_per_prompt'");
  // A prefix before the error (a Ray actor's) is kept; the last class called on the line wins.
  CHECK(qualify_bare_init_error("(pid=7) TypeError: __init__() missing 1 required positional argument: 'x'",
                                "cfg = FSDPActorConfig(**omega_conf_to_dataclass(Config(a)))", out) ==
        "(pid=7) TypeError: Config.__init__() missing 1 required positional argument: 'x'");
  // Python 3.10+ already names the class; a frame header or a call of a function names none.
  const std::string_view named = "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'a'";
  CHECK(qualify_bare_init_error(named, "engine_args = EngineArgs(", out) == named);
  const std::string_view bare = "TypeError: __init__() got an unexpected keyword argument 'a'";
  CHECK(qualify_bare_init_error(bare, "  File \"vllm/entrypoints/llm.py\", line 91, in __init__", out) == bare);
  CHECK(qualify_bare_init_error(bare, "    model = build_model(**kwargs)", out) == bare);
  CHECK(qualify_bare_init_error(bare, "", out) == bare);
}

}  // namespace
}  // namespace meshplan
