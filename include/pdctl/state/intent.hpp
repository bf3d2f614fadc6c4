#pragma once
// What the operators meant, as opposed to what runs: the groups they stopped on purpose and a heal
// pause (a maintenance window). Kept on the coordinator in <state_dir>/<cluster>/intent.json, a small
// document rewritten whole under the deploy lock, so that `heal` (run by a timer, maybe from another
// machine) and `status` read the same answer as the operator who acted; the journal keeps each change
// as an `intent` line. Pure: the document, its changes and the commands that move it.
//
// A whole `stop`, `stop --role R` and `stop --group G` mark the stages they stopped; a `start` or
// `restart` clears the marks of the stages it starts (a whole start clears every mark). `heal pause`
// holds every heal pass until it expires or `heal resume`.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"

namespace pdctl::state::intent {

// Who acted, when, in which run.
struct Act {
    std::string who;  // user@host
    std::string at;   // UTC, 2026-12-06T10:00:00Z
    long long epoch_ms = 0;
    std::string run;
};

struct DeliberateStop {
    Act act;
    std::string command;     // "pdctl stop --group decode-2"
    std::string bring_back;  // "pdctl start --group decode-2"
};

struct HealPause {
    Act act;
    long long until_epoch_ms = 0;
    std::string reason;
    bool expired(long long now_ms) const { return now_ms >= until_epoch_ms; }
};

// `rollout --pause-after-canary`: the canary passed and the rest waits for `rollout resume|abort`.
struct PausedRollout {
    Act act;
    std::string config_id;           // the config rolled out (resume refuses another)
    std::string previous_config_id;  // where `abort` goes back to
    std::string previous_run;
    std::string canary;
};

struct Intent {
    std::map<std::string, DeliberateStop> stopped;  // stage -> its deliberate stop
    std::optional<HealPause> pause;                 // may have expired: ask active_pause
    std::optional<PausedRollout> rollout;
    const DeliberateStop* stopped_on_purpose(const std::string& stage) const;
    const HealPause* active_pause(long long now_ms) const;
};

// The document as the file holds it, and back. An empty or damaged text reads as no intent: a
// deliberate stop then looks like an absent unit, never the other way round.
Intent parse(const std::string& text);
std::string to_text(const Intent& intent);

// The acts. Each returns whether it changed anything.
bool mark_stopped(Intent& intent, const std::vector<std::string>& stages, const DeliberateStop& stop);
bool clear_stopped(Intent& intent, const std::vector<std::string>& stages);

// `pdctl stop` / `pdctl start` with the scope's words: "--role R" / "--group G" for each, or nothing.
std::string scope_words(const std::vector<std::string>& roles, const std::vector<std::string>& groups);

// What the journal keeps of a change: its stages (for a stop or start) and the act.
struct Change {
    std::string kind;  // stopped | started | paused | resumed
    std::vector<std::string> stages;
    long long epoch_ms = 0;
};
// The `intent` lines of a journal text, oldest first: heal's back-off reads which of its past restarts
// undid a deliberate stop (those never count as crashes).
std::vector<Change> journal_changes(const std::string& journal_jsonl);

// The document is written whole (a temporary file, then a rename) and read whole; its text travels on
// stdin, never on a command line.
exec::Command write_command(const std::string& cluster_dir, std::string text);
exec::Command read_command(const std::string& cluster_dir);

}  // namespace pdctl::state::intent
