#pragma once
// --role R (repeatable) and --group G (repeatable): the part of the cluster a verb acts on
// (plan/scope.hpp).

#include "pdctl/plan/scope.hpp"

namespace CLI {
class App;
}

namespace pdctl::cli {

void add_scope_flags(CLI::App& command, plan::Scope& scope);

}  // namespace pdctl::cli
