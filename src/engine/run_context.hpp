#pragma once
// Internal to the engine: what one run (start, stop, a rolling restart) works with, shared by the
// starter, the stopper and the rolling restart that carry it out (engine.hpp is their front).

#include <string>
#include <vector>

#include "pdctl/engine/engine.hpp"

namespace pdctl::engine {

struct RunContext {
    const plan::Plan& plan;
    Backend& backend;
    exec::Executor& executor;  // the backend's
    health::HttpProber& prober;
    Clock& clock;
    Reporter& reporter;
    const EngineOptions& options;
    std::string verb;  // what the run's end is reported as (restart for a rolling restart)

    const config::Node& node(const std::string& name) const;
    // The unit's log as its logs command reads it (stdout, then stderr), line by line.
    std::vector<std::string> log_lines(const plan::Unit& unit);
    // The last options.log_tail_lines of those, for a failure.
    std::vector<std::string> log_tail(const plan::Unit& unit);
    // Reports the run's end and returns `code`.
    ExitCode end_run(ExitCode code, const std::string& message, TimePoint began);
};

}  // namespace pdctl::engine
