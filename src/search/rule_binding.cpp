#include "search/rule_binding.hpp"

#include <map>
#include <memory>

#include "search/sized_cluster.hpp"
#include "strategy/validate.hpp"

namespace meshplan {

RuleCheck validate_rule_check(const ModelSpec& model, const Cluster& cluster) {
  auto parts = std::make_shared<std::map<int, Cluster>>();
  return [&model, &cluster, parts](const Strategy& strategy, const Workload& workload) {
    const int gpus = strategy.world_size();
    if (gpus == cluster.total_gpus()) return first_violation(strategy, model, cluster, workload);
    auto part = parts->find(gpus);
    if (part == parts->end()) part = parts->emplace(gpus, first_gpus(cluster, gpus)).first;
    return first_violation(strategy, model, part->second, workload);
  };
}

}  // namespace meshplan
