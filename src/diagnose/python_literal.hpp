#pragma once
// Reads the Python literal that verl prints as its resolved config at start-up
// (verl/trainer/main_ppo.py: pprint(OmegaConf.to_container(config, resolve=True))): nested dicts,
// lists, quoted strings (pprint splits long ones into adjacent literals), numbers, True/False/None.
#include <map>
#include <string>
#include <string_view>

namespace meshplan {

/// The leaves of a printed dict as dotted keys: {'a': {'b': 1}} -> a.b = "1". Strings unquoted,
/// None -> "null", lists as "[x, y]". A malformed tail ends the reading; what was read is kept.
std::map<std::string, std::string, std::less<>> flatten_python_dict(std::string_view text);

}  // namespace meshplan
