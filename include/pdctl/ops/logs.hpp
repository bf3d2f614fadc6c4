#pragma once
// `pdctl logs`: the selected units' log lines, the last ones, --since a moment, or --follow until
// Ctrl-C. A follow asks every unit for the bytes after its cursor (runtime/log_query.hpp), so lines of
// several units interleave in the order they arrive, one poll apart at most.

#include <chrono>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct LogsRequest {
    std::string role;                // a role (every group) or one group; "" when the scope says
    plan::Scope scope;               // --role / --group
    std::vector<std::string> nodes;  // --node (repeatable); empty = every node
    int rank = -1;                   // -1 = every rank
    int tail = -1;                   // -1: 50 lines, or every line with --since
    std::string since;               // runtime::parse_since
    bool follow = false;
    bool previous = false;  // the log each unit left when pdctl last stopped or replaced it
    std::chrono::milliseconds poll_interval{500};  // --follow
};

// A unit whose log is read.
struct LogTarget {
    const plan::Unit* unit = nullptr;
    const config::Node* node = nullptr;
    runtime::RuntimeSpec runtime;
    std::string node_dir;
};

// Where the lines go (report::LogPrinter). Lines come whole, one unit's in order.
class LogSink {
  public:
    virtual ~LogSink() = default;
    virtual void begin(const std::vector<LogTarget>& targets) = 0;
    virtual void line(std::size_t target, const std::string& text) = 0;
    virtual void unreachable(std::size_t target, const std::string& transport_error) = 0;
    // --follow: the unit's log could not be read (said once per new reason).
    virtual void trouble(std::size_t target, const std::string& trouble) = 0;
    // --follow: the unit's log started over (the unit restarted).
    virtual void restarted(std::size_t target) = 0;
    virtual void flush() = 0;
};

// Throws Failure (usage) for a selection that names no unit or a --since it cannot read. Exit code 3
// when a node could not be read (at the start, with --follow); a follow ends with Ctrl-C, exit 0.
ExitCode show_logs(const Deployment& deployment, const LogsRequest& request, LogSink& sink);

}  // namespace pdctl::ops
