#pragma once
// Megatron-LM `pretrain_*.py --tensor-model-parallel-size ...` argument lists: the Megatron
// subset of the layout rules (megatron/training/arguments.py validate_args and Megatron-core's
// TransformerConfig.__post_init__ checks that need no world size).
#include <vector>

#include "verl/shell/launch.hpp"

namespace meshplan {

std::vector<Finding> check_megatron_arguments(const Launch& launch);

}  // namespace meshplan
