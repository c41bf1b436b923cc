#pragma once
// The embedded data tables of the verl checks (data/verl/*.json), parsed once per process.
#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace meshplan {

/// data/<path> parsed as JSON; an empty object when it is missing or malformed (the tests
/// of each table catch that).
const nlohmann::json& embedded_json(std::string_view path);

}  // namespace meshplan
