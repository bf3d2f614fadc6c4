#pragma once
// A start as a timeline: per stage and unit, when it was launched, when each start-up phase began
// (the journal's unit_phase lines, dated by the log line that entered the phase) and when the stage's
// gate passed. Read back from the journal (state/journal.hpp); pure: JSON Lines in, timelines out.
// `pdctl timeline` draws them (report/timeline_*), learned deadlines compare them (start_history.hpp).

#include <optional>
#include <string>
#include <vector>

namespace pdctl::timeline {

// Times are ms since the epoch, by the clock of the machine that ran pdctl.
struct PhaseSpan {
    std::string phase;  // runtime::phase_id: "loading-weights"
    long long begin_ms = 0;
    long long end_ms = 0;  // the next phase's begin, or the unit's end
};

struct UnitTimeline {
    std::string node;
    int rank = 0;
    long long launched_ms = 0;      // its start command returned
    std::string cache;              // its kernel cache at that start: "hit", "miss", "" (keeps none)
    std::vector<PhaseSpan> phases;  // in order, back to back, from launched_ms
    bool critical = false;          // on the critical path (critical_path.hpp)

    long long end_ms() const { return phases.empty() ? launched_ms : phases.back().end_ms; }
    // The phase's time (0 if the unit never entered it).
    long long phase_ms(const std::string& phase) const;
};

struct StageTimeline {
    std::string role;
    std::string kind;                   // "sglang", "router", "mooncake-master", "generic"
    std::string fingerprint;            // plan::Stage::fingerprint(): equal means comparable starts
    long long begin_ms = 0;             // stage_begin: before its units were launched
    long long end_ms = 0;               // its gate passed, it failed, or the run ended
    std::optional<long long> ready_ms;  // when its gate passed
    long long deadline_ms = 0;          // the gate deadline it ran with
    std::string failure;                // why it failed, if it did: "n3 rank 2: exited (code 1)"
    std::string failed_node;            // the unit it blamed
    int failed_rank = -1;
    std::vector<UnitTimeline> units;  // by rank
    bool critical = false;

    long long ready_after_ms() const { return ready_ms ? *ready_ms - begin_ms : -1; }
    // Its units' kernel caches: "hit" (every unit), "miss" (every unit), "hit on 3 of 4", or "" (none
    // keeps one).
    std::string cache_summary() const;
    // A start every unit of which found its compiled kernels: it teaches nothing of a cold start.
    bool warm() const { return cache_summary() == "hit"; }
};

struct RunTimeline {
    std::string run;  // run id
    std::string verb;
    std::string started;  // UTC, as the journal wrote it
    std::string who;
    std::string config;
    int exit_code = -1;  // -1: the run left no end (killed, or still running)
    std::string result;
    long long begin_ms = 0;
    long long end_ms = 0;
    std::vector<StageTimeline> stages;  // the stages it started, in start order

    bool succeeded() const { return exit_code == 0; }
    long long span_ms() const { return end_ms - begin_ms; }
};

// Every run of the journal that started at least one stage, oldest first. Lines that are not JSON
// objects with a run id are skipped (a cut first line, a damaged line).
std::vector<RunTimeline> read_timelines(const std::string& jsonl);

// The run `selector` names: "last" (the newest), a run id, or a unique prefix of one. nullptr with
// `error` set ("no run 2026…", "… names 2 runs: …") otherwise.
const RunTimeline* find_run(const std::vector<RunTimeline>& runs, const std::string& selector,
                            std::string& error);

}  // namespace pdctl::timeline
