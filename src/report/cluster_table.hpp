#pragma once
// A cluster as a terminal table: each group's effective links, with "(catalog)" where a value
// is the GPU's catalog default rather than something the input set.
#include <string>

#include "hardware/cluster.hpp"

namespace meshplan {

std::string render_cluster(const Cluster& cluster);

}  // namespace meshplan
