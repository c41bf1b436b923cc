#include <vector>

#include "diagnose/signature_tables.hpp"

namespace meshplan {

std::span<const Signature> signatures() {
  static const std::vector<Signature> kAll = [] {
    std::vector<Signature> all = memory_signatures();
    for (auto part : {transport_signatures(), runtime_signatures(), config_signatures(), kernel_signatures(), version_signatures(), launch_size_signatures(), model_bridge_signatures(), shape_signatures()}) {
      all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
    return all;
  }();
  return kAll;
}

}  // namespace meshplan
