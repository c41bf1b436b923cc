#include "strategy/moe_dispatcher.hpp"

namespace meshplan {

std::string_view moe_dispatcher_name(MoeDispatcher dispatcher) {
  return dispatcher == MoeDispatcher::flex ? "flex" : "alltoall";
}

std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view name) {
  if (name == "alltoall") return MoeDispatcher::alltoall;
  if (name == "flex") return MoeDispatcher::flex;
  return std::nullopt;
}

}  // namespace meshplan
