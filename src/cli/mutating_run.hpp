#pragma once
// What every verb that changes the cluster (start, stop, restart) does around its engine call: take
// the deploy lock before anything touches a unit, journal every event, write the journal record, and
// release the lock — after success, failure, an exception or Ctrl-C alike.

#include <functional>
#include <string>

#include "context.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

ExitCode run_mutating_verb(const Context& context, exec::Executor& executor, engine::Reporter& reporter,
                           const std::string& verb, const std::function<ExitCode(engine::Reporter&)>& action);

}  // namespace pdctl::cli
