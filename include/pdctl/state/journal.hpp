#pragma once
// The journal: what every start/stop/restart did, as JSON Lines in <state_dir>/<cluster>/journal.jsonl
// on the coordinator node (one line per event, each carrying its run id), and the history read back
// from it. Pure: command builders and parsers; the recording is ops::JournalingReporter.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"

namespace pdctl::state::journal {

// <cluster_dir>/journal.jsonl
std::string journal_path(const std::string& cluster_dir);

// Appends `lines` (complete JSON Lines) to the journal. The text travels on stdin to a fixed
// `cat >>` script: no journal text is ever part of a command line.
exec::Command append_command(const std::string& cluster_dir, std::string lines);
// The last `max_bytes` of the journal (nothing when there is no journal yet). A cut first line is
// dropped by parse_history.
exec::Command read_command(const std::string& cluster_dir, std::size_t max_bytes);

// "20261129T081203Z-3f9c1e": sortable by time, unique enough across operators.
std::string new_run_id(std::chrono::system_clock::time_point now, unsigned random_bits);
// A new run's id: the wall clock now and fresh random bits.
std::string new_run_id();

// One past run, summarised from its lines.
struct RunRecord {
    std::string run;
    std::string started;  // UTC, 2026-11-29T08:12:03Z
    long long started_epoch_ms = 0;
    std::string verb;
    std::string who;  // user@host
    std::string config;
    std::string config_id;  // the config kept for it (state/config_store.hpp); "" for a run that kept none
    std::string version;
    std::string result;  // "success", "stage failed", ...; "unfinished" when the run left no end
    int exit_code = -1;
    long long duration_ms = 0;
    std::string message;
    // Where it failed, when a stage failed.
    std::string failed_role;
    std::string failed_node;
    int failed_rank = -1;
    std::string failed_reason;
    bool complete = false;  // the run's final line was found
};

// Runs in journal order (oldest first). Lines that are not JSON objects with a run id (a line cut by
// read_command, a damaged line) are skipped; runs whose first line was cut off are dropped.
std::vector<RunRecord> parse_history(const std::string& jsonl);

// The newest `limit` runs, newest first.
std::vector<RunRecord> newest(std::vector<RunRecord> runs, std::size_t limit);

// How a stage's gate last ended: its newest stage_ready or stage_failed line. For a router's stage,
// the last request a gate sent through it (start, restart, heal).
struct GateResult {
    std::string run;
    std::string verb;  // the run's: start, restart, heal, ...
    std::string at;    // UTC, 2026-11-29T08:12:03Z
    long long at_epoch_ms = 0;
    bool passed = false;
    std::string reason;  // why it failed: "n5 rank 0: KVTransferError ..." (the node and rank if named)
};
// Over the journal's lines in order; damaged lines are skipped. nullopt: no gate of `role` in `jsonl`.
std::optional<GateResult> last_gate_result(const std::string& jsonl, const std::string& role);

}  // namespace pdctl::state::journal
