#pragma once
// What `history`, `timeline` and `plan` ask of the journal: past runs, their timelines, and the start
// history that gate deadlines are learned from. Each answer names where it was read.

#include <cstddef>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/timeline/run_timeline.hpp"
#include "pdctl/timeline/start_history.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct PastRuns {
    std::vector<state::journal::RunRecord> runs;  // newest first
    std::string source;                           // the journal_source.hpp wording
    ExitCode code = ExitCode::kOk;                // kUnreachable when this machine's copy stood in
};
// The newest `limit` runs (0: all) from the coordinator's journal.
PastRuns read_past_runs(const Deployment& deployment, std::size_t limit);

struct PastTimelines {
    std::vector<timeline::RunTimeline> runs;
    std::string source;
    ExitCode code = ExitCode::kOk;
};
PastTimelines read_past_timelines(const Deployment& deployment);

// What `timeline` shows: the run `run` names (last, a run id or a unique prefix of one), then the one `vs`
// names when it is not empty. Throws Failure (usage) for a name that finds no run, or more than one.
PastTimelines read_timelines_to_show(const Deployment& deployment, const std::string& run,
                                     const std::string& vs);

struct LearnedHistory {
    timeline::StartHistory history;
    std::string source;
};
// From this machine's copy of the journal only: `plan` touches no node.
LearnedHistory local_start_history(const config::Cluster& cluster);

}  // namespace pdctl::ops
