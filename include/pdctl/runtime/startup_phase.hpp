#pragma once
// Start-up phases of a unit, read from the last lines of its log against the patterns of what SGLang,
// the Mooncake transfer engine and master, and the routers write while they start
// (src/runtime/log_patterns.cpp). Pure: lines in, phase out.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/config/model.hpp"

namespace pdctl::runtime {

// In start-up order: a unit only moves forward, so a later phase wins over an earlier one.
// kJoined is where ranks >= 1 of a group end (their dummy /health is up); rank 0 goes on to
// kHttpUp, kWarmup and kReady. kFailed wins over everything.
enum class Phase {
    kStarting,        // launched, no recognised line yet (BOOTSTRAP, image start, imports)
    kInitialising,    // args parsed, transfer engine, torch distributed rendezvous
    kLoadingWeights,  //
    kKvCache,         // sizing and allocating the KV pool
    kCudaGraphs,      //
    kJoined,          // rank >= 1: scheduler up, dummy health server answering
    kHttpUp,          // rank 0: API port bound
    kWarmup,          // rank 0: warm-up request (PD: fake-transfer request)
    kReady,
    kFailed,
};

// Stable identifier for CI lines and JSON: "loading-weights".
std::string_view phase_id(Phase phase);
// For people: "loading weights".
std::string_view phase_label(Phase phase);
// Where space is short (the live view's phase history): "weights".
std::string_view phase_short_label(Phase phase);

// A log line's wall-clock time as written (the node's local time, no zone). Only ever compared with
// other lines of the same log, so the zone never matters.
using LogTime = std::chrono::sys_seconds;

// The time a line starts with, in the formats pdctl meets:
//   SGLang / uvicorn  "[2025-03-12 08:52:39 DP0 TP1] ..." or "[2025-03-12 08:52:39] ..."
//   glog (Mooncake)   "I0312 08:52:39.123456 4242 file.cpp:12] ..."   (no year: `glog_year`)
//   Rust router       "2025-03-12T08:52:39.123456Z  INFO ..." or "2025-03-12 08:52:39 ..."
std::optional<LogTime> parse_log_time(std::string_view line, int glog_year);

struct Classification {
    Phase phase = Phase::kStarting;
    bool phase_done = false;        // a line that ends `phase` came after it ("Memory pool end")
    std::optional<LogTime> since;   // time of the line that entered `phase`, if it carries one
    std::optional<LogTime> newest;  // newest time of any line
    std::string phase_line;         // the line that entered `phase` (for kFailed: the failure)
    std::string last_line;          // newest non-empty line
    // Every phase the lines went through, in order, with the time of the line that entered it (if
    // it carries one); the last is `phase`. A poll that comes late still sees each phase begin.
    struct Entry {
        Phase phase = Phase::kStarting;
        std::optional<LogTime> since;
    };
    std::vector<Entry> entered;
    // Facts worth an operator's attention that do not stop the start (e.g. Mooncake's TCP fallback),
    // each once, in order of first appearance.
    std::vector<std::string> warnings;
};

// `kind` says which program wrote the lines: a uvicorn "running on" line means "HTTP up" for SGLang
// but "ready" for the MiniLB router.
Classification classify(const std::vector<std::string>& lines,
                        config::RoleKind kind = config::RoleKind::Sglang);

}  // namespace pdctl::runtime
