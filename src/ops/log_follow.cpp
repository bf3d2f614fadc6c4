#include "log_follow.hpp"

#include "pdctl/engine/clock.hpp"
#include "pdctl/exec/command.hpp"

namespace pdctl::ops {
namespace {

struct Followed {
    std::size_t index = 0;
    const LogTarget* target = nullptr;
    runtime::LogCursor cursor;
    bool started = false;  // the first read succeeded: the cursor is meaningful
    std::string partial;   // a line still being written: shown once it ends (or at exit)
    std::string trouble;   // the last error reported, so a failing node is reported once, not every poll
};

void take_lines(Followed& followed, const std::string& text, LogSink& sink) {
    followed.partial += text;
    std::size_t start = 0;
    for (auto end = followed.partial.find('\n'); end != std::string::npos;
         end = followed.partial.find('\n', start)) {
        sink.line(followed.index, followed.partial.substr(start, end - start));
        start = end + 1;
    }
    followed.partial.erase(0, start);
}

void report_trouble(Followed& followed, const std::string& trouble, LogSink& sink) {
    if (trouble == followed.trouble) return;
    followed.trouble = trouble;
    sink.trouble(followed.index, trouble);
}

std::string trouble_of(const exec::CommandResult& answer) {
    if (!answer.transport_error.empty()) return "unreachable: " + answer.transport_error;
    if (answer.timed_out) return "reading the log timed out";
    if (!answer.ok()) return "reading the log failed: " + exec::failure_reason(answer);
    return "";
}

// One read for one unit: the first read (with a cursor) until it succeeds, then the follow reads.
void poll(Followed& followed, exec::Executor& executor, const runtime::LogRequest& first_read,
          LogSink& sink) {
    const auto& target = *followed.target;
    const auto command =
        followed.started
            ? runtime::follow_log_command(target.runtime, target.node_dir, target.unit->name, followed.cursor)
            : runtime::read_log_command(target.runtime, target.node_dir, target.unit->name, first_read);
    const auto answer = executor.run(*target.node, command);
    const std::string trouble = trouble_of(answer);
    report_trouble(followed, trouble, sink);
    if (!trouble.empty()) return;
    const auto chunk = runtime::parse_log_chunk(target.runtime, answer.out, followed.cursor);
    if (chunk.restarted) {
        take_lines(followed, followed.partial.empty() ? "" : "\n", sink);
        sink.restarted(followed.index);
    }
    take_lines(followed, chunk.text, sink);
    followed.cursor = chunk.next;
    followed.started = true;
}

}  // namespace

ExitCode follow_logs(exec::Executor& executor, engine::Clock& clock, const std::vector<LogTarget>& targets,
                     runtime::LogRequest first_read, std::chrono::milliseconds poll_interval, LogSink& sink) {
    first_read.with_cursor = true;
    engine::install_interrupt_handlers();
    std::vector<Followed> followed(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) {
        followed[i].index = i;
        followed[i].target = &targets[i];
    }

    ExitCode code = ExitCode::kOk;
    for (auto& unit : followed) {
        poll(unit, executor, first_read, sink);
        if (unit.trouble.rfind("unreachable", 0) == 0) code = ExitCode::kUnreachable;
    }
    sink.flush();
    while (!engine::interrupted()) {
        clock.sleep_for(poll_interval);
        for (auto& unit : followed) {
            if (engine::interrupted()) break;
            poll(unit, executor, first_read, sink);
        }
        sink.flush();
    }
    // Ctrl-C is how a follow ends: what was read is shown, and the exit code says nothing failed.
    for (auto& unit : followed)
        if (!unit.partial.empty()) take_lines(unit, "\n", sink);
    sink.flush();
    return code;
}

}  // namespace pdctl::ops
