#pragma once
// `pdctl logs --since` and `--follow`: reading a unit's log from a moment on, and following it by
// polling. The executor returns a command's output only when it ends, so following is a sequence of
// short reads, each continuing where the previous one stopped: a byte offset into the process
// runtime's log file, a timestamp for `docker logs --since`. Pure command builders and parsers.

#include <optional>
#include <string>

#include "pdctl/exec/command.hpp"
#include "pdctl/runtime/unit_spec.hpp"

namespace pdctl::runtime {

// A moment on the node's clock, so the operator's clock and time zone never matter.
struct Since {
    long long seconds_ago = -1;  // relative (--since 10m); -1 when absolute
    std::string local_time;  // absolute, "2026-11-29 08:12:03": the node's local time, like SGLang's stamps
};

// "90s", "10m", "2h" (config durations) or "YYYY-MM-DD HH:MM[:SS]" / "YYYY-MM-DDTHH:MM[:SS]".
std::optional<Since> parse_since(const std::string& text);
inline constexpr const char* kSinceForms =
    "a duration (90s, 10m, 2h) or a time on the node (2026-11-29 08:12[:03])";

struct LogRequest {
    int tail_lines = 50;  // -1: every line
    std::optional<Since> since;
    // The first line of the answer is a cursor for follow_log_command().
    bool with_cursor = false;
};

// Where a follow continues: a byte offset (process) or the last timestamp seen (docker, RFC 3339).
struct LogCursor {
    long long offset = 0;
    std::string timestamp;
};

// The process runtime keeps lines without a timestamp with the stamp before them (tracebacks stay
// whole); a file without any stamp is shown whole if it changed after `since`, else not at all.
// Recognised stamps: SGLang's `[YYYY-MM-DD HH:MM:SS` and glog's `I1129 08:12:03` (Mooncake).
exec::Command read_log_command(const RuntimeSpec& runtime, const std::string& node_dir,
                               const std::string& unit, const LogRequest& request);
// `pdctl logs --previous`: the log the unit left when pdctl last stopped or replaced it, kept on its node as
// NODE_DIR/previous/UNIT.log (runtime/scripts/_keep_log.sh), read like a process log whatever the runtime.
exec::Command previous_log_command(const std::string& node_dir, const std::string& unit,
                                   const LogRequest& request);
// Where that file is, for messages and `logs --bundle`.
std::string previous_log_file(const std::string& node_dir, const std::string& unit);

// What the log gained after `cursor`; at most `max_bytes` per call for the process runtime.
exec::Command follow_log_command(const RuntimeSpec& runtime, const std::string& node_dir,
                                 const std::string& unit, const LogCursor& cursor,
                                 long long max_bytes = 4 << 20);

struct LogChunk {
    std::string text;  // log text, cursor lines removed (docker: timestamps removed too)
    LogCursor next;
    bool restarted = false;  // the process log is shorter than the cursor: the unit started again
};
// Parses the answer of read_log_command (with a cursor) or follow_log_command.
LogChunk parse_log_chunk(const RuntimeSpec& runtime, const std::string& output, const LogCursor& previous);

// Docker timestamps trim trailing zeros (…03.12Z); padded to nanoseconds they compare as strings.
std::string normalize_rfc3339(const std::string& timestamp);

}  // namespace pdctl::runtime
