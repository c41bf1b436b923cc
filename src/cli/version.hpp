#pragma once
// What `meshplan --version` prints: the program's version and the versions of the framework
// data compiled into it (verl schema, Megatron-core fields, rollout engine options).
#include <string>

namespace meshplan {

std::string version_text();

}  // namespace meshplan
