#pragma once
// Python 3.9 and older print a constructor's TypeError without its class:
// `TypeError: __init__() got an unexpected keyword argument 'limit_mm_per_prompt'`, where 3.10+
// prints `AsyncEngineArgs.__init__() ...` (PEP 3155 qualified names in the message, bpo-44232).
// The traceback's code line just above names the class being built
// (`AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**engine_args))`): the error is read as 3.10+
// would print it, so the signatures that tell an engine's arguments from a config class's apply.
#include <string>
#include <string_view>

namespace meshplan {

/// `line` with `__init__()` qualified by the last class called on `previous` (a name starting with
/// an upper-case letter followed by '('), written into `out`; `line` itself when it has no bare
/// `__init__()` error or `previous` calls no class.
std::string_view qualify_bare_init_error(std::string_view line, std::string_view previous, std::string& out);

}  // namespace meshplan
