#pragma once
// <regex>, included once for the project: GCC 12 reports false -Wmaybe-uninitialized positives
// inside libstdc++'s <regex> when built with -fsanitize (std::function moved in
// _NFA::_M_insert_*); they are silenced for that header only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
