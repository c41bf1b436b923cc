#include "strategy/moe_dispatcher.hpp"

namespace meshplan {

std::string_view moe_dispatcher_name(MoeDispatcher dispatcher) {
  switch (dispatcher) {
    case MoeDispatcher::flex: return "flex";
    case MoeDispatcher::allgather: return "allgather";
    case MoeDispatcher::alltoall: break;
  }
  return "alltoall";
}

std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view name) {
  if (name == "alltoall") return MoeDispatcher::alltoall;
  if (name == "flex") return MoeDispatcher::flex;
  if (name == "allgather") return MoeDispatcher::allgather;
  return std::nullopt;
}

}  // namespace meshplan
