#include "log_follower.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "pdctl/engine/clock.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/report/logs_view.hpp"

namespace pdctl::cli {
namespace {

struct Followed {
    const FollowTarget* target = nullptr;
    runtime::LogCursor cursor;
    bool started = false;  // the first read succeeded: the cursor is meaningful
    std::string partial;   // a line still being written: printed once it ends (or at exit)
    std::string trouble;   // the last error reported, so a failing node is reported once, not every poll
};

void print_lines(Followed& followed, const std::string& text, const util::Redactor& redactor) {
    followed.partial += text;
    std::size_t start = 0;
    for (auto end = followed.partial.find('\n'); end != std::string::npos;
         end = followed.partial.find('\n', start)) {
        fmt::print("{}{}\n", followed.target->prefix,
                   redactor.redact(followed.partial.substr(start, end - start)));
        start = end + 1;
    }
    followed.partial.erase(0, start);
}

void report_trouble(Followed& followed, const std::string& trouble) {
    if (trouble == followed.trouble) return;
    followed.trouble = trouble;
    fmt::print(stderr, "{}\n",
               report::log_trouble_line(followed.target->unit->node, followed.target->unit->name, trouble));
}

std::string trouble_of(const exec::CommandResult& answer) {
    if (!answer.transport_error.empty()) return "unreachable: " + answer.transport_error;
    if (answer.timed_out) return "reading the log timed out";
    if (!answer.ok()) return "reading the log failed: " + exec::failure_reason(answer);
    return "";
}

// One read for one unit: the first read (with a cursor) until it succeeds, then the follow reads.
void poll(Followed& followed, exec::Executor& executor, const runtime::LogRequest& first_read,
          const util::Redactor& redactor) {
    const auto& target = *followed.target;
    const auto command =
        followed.started
            ? runtime::follow_log_command(target.runtime, target.node_dir, target.unit->name, followed.cursor)
            : runtime::read_log_command(target.runtime, target.node_dir, target.unit->name, first_read);
    const auto answer = executor.run(*target.node, command);
    const std::string trouble = trouble_of(answer);
    report_trouble(followed, trouble);
    if (!trouble.empty()) return;
    const auto chunk = runtime::parse_log_chunk(target.runtime, answer.out, followed.cursor);
    if (chunk.restarted) {
        print_lines(followed, followed.partial.empty() ? "" : "\n", redactor);
        fmt::print("{}\n", report::log_restarted_line(target.prefix));
    }
    print_lines(followed, chunk.text, redactor);
    followed.cursor = chunk.next;
    followed.started = true;
}

}  // namespace

ExitCode follow_logs(const Context& context, exec::Executor& executor,
                     const std::vector<FollowTarget>& targets, runtime::LogRequest first_read,
                     std::chrono::milliseconds poll_interval) {
    first_read.with_cursor = true;
    engine::install_interrupt_handlers();
    std::vector<Followed> followed(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) followed[i].target = &targets[i];

    ExitCode code = ExitCode::kOk;
    for (auto& unit : followed) {
        poll(unit, executor, first_read, context.redactor);
        if (unit.trouble.rfind("unreachable", 0) == 0) code = ExitCode::kUnreachable;
    }
    std::fflush(stdout);
    engine::RealClock clock;
    while (!engine::interrupted()) {
        clock.sleep_for(poll_interval);
        for (auto& unit : followed) {
            if (engine::interrupted()) break;
            poll(unit, executor, first_read, context.redactor);
        }
        std::fflush(stdout);
    }
    // Ctrl-C is how a follow ends: what was read is printed, and the exit code says nothing failed.
    for (auto& unit : followed)
        if (!unit.partial.empty()) print_lines(unit, "\n", context.redactor);
    std::fflush(stdout);
    return code;
}

}  // namespace pdctl::cli
