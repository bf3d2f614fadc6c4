#pragma once
// What every verb that changes the cluster (start, stop, restart) does around its engine call: take
// the deploy lock before anything touches a unit, journal every event, write the journal record, and
// release the lock — after success, failure, an exception or Ctrl-C alike.

#include <functional>
#include <string>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

ExitCode run_mutating_verb(const Deployment& deployment, engine::Reporter& reporter, const std::string& verb,
                           const std::function<ExitCode(engine::Reporter&)>& action);

// A run of one line, for an act that is not a verb's run but must be audited (`lock release --force`):
// its record, with `message` as the outcome, appended to the journal.
void journal_audit(const Deployment& deployment, const std::string& verb, const std::string& message);

}  // namespace pdctl::ops
