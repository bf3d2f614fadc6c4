#pragma once
// start, stop, restart: the step from their flags (engine_flags.hpp) to the use case
// (ops/engine_run.hpp): the static doctor rules gate start and restart, --junit records the run.

#include <string>

#include "context.hpp"
#include "engine_flags.hpp"
#include "engine_verb_options.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

// The verb's use case (ops/engine_run.hpp), after the static doctor rules allowed it, with --junit's
// report written whatever its end.
ExitCode run_engine_verb(const GlobalOptions& global, const StartOptions& options, ops::EngineVerb verb);

}  // namespace pdctl::cli
