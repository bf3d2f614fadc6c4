#pragma once
// The tables of log lines (log_patterns.cpp), private to runtime/: the rest of pdctl sees them through
// classify() (startup_phase.hpp) and hint_from_log() (failure_hint.hpp).

#include <span>
#include <string_view>

#include "pdctl/runtime/startup_phase.hpp"

namespace pdctl::runtime::log_patterns {

// Which programs a phase rule applies to: the same uvicorn line means different things for SGLang and
// MiniLB.
enum class Only { kAny, kRouter, kNotRouter };

struct PhaseRule {
    Phase phase;
    // Lower-case text the line must contain. Checked before the regex: std::regex is slow, and every
    // unit's tail is classified every couple of seconds.
    std::string_view needle;
    const char* pattern;
    bool icase = false;
    Only only = Only::kAny;
    // The line ends its phase ("Memory pool end"): the unit finished that phase's work and is on its
    // way to the next. Tells a rank that moved past a phase from one still in it (engine/stall.hpp).
    bool ends = false;
};

struct WarningRule {
    std::string_view needle;
    const char* pattern;
    const char* message;
};

struct FailureHint {
    const char* needle;  // plain text, found anywhere in a line
    const char* hint;
};

// What the surviving ranks of a group log when another rank died ("Rank 2 scheduler is dead"): a
// failure whose cause is elsewhere.
inline constexpr std::string_view kPeerDeathNeedle = "scheduler is dead";

// First matching rule wins.
std::span<const PhaseRule> phase_rules();
// Each warning once per unit.
std::span<const WarningRule> warning_rules();
// By priority: fatal causes before warnings such as a TCP fallback.
std::span<const FailureHint> failure_hints();

}  // namespace pdctl::runtime::log_patterns
