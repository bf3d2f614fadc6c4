#pragma once
// A command for a node and what came back: the vocabulary between the pure command builders (runtime/,
// plan/, push/, doctor/ ...) and the executors that run them (exec/). A header of its own so that the
// builders need nothing of exec/ for two structs.

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::exec {

// Called with each piece of a command's output as it arrives (`pdctl exec --stream`), on the thread
// that runs the command; the result still holds all of it.
using OutputSink = std::function<void(bool standard_error, std::string_view chunk)>;

struct Command {
    std::vector<std::string> argv;
    // Written to the command's stdin, then stdin is closed. Carries env files (which may hold secrets)
    // so that values never appear on a command line, in `ps` or in logs.
    std::string stdin_data;
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};
    OutputSink on_output = nullptr;  // empty: nothing streams
};

struct CommandResult {
    int exit_code = -1;  // -1 when the command did not finish (timeout, transport error)
    std::string out;
    std::string err;
    bool timed_out = false;
    std::string signal;           // name of the signal that ended the command, if any
    std::string transport_error;  // non-empty: the node could not be reached; nothing ran

    bool ok() const { return transport_error.empty() && !timed_out && exit_code == 0; }
};

// Why a command did not succeed, in words, and never empty: an error that carries no reason cannot be
// acted on, wherever it shows. "unreachable: <transport error>"; "timed out", "killed by SIGKILL" or
// "exit 3", each followed by the first non-blank line of its stderr (else of its stdout) when there
// is one. A command that succeeded reads "exit 0".
inline std::string failure_reason(const CommandResult& result) {
    if (!result.transport_error.empty()) return "unreachable: " + result.transport_error;
    std::string reason = result.timed_out         ? std::string("timed out")
                         : !result.signal.empty() ? "killed by " + result.signal
                                                  : "exit " + std::to_string(result.exit_code);
    for (const std::string* text : {&result.err, &result.out}) {
        for (std::size_t begin = 0; begin < text->size();) {
            auto end = text->find('\n', begin);
            if (end == std::string::npos) end = text->size();
            const auto line = std::string_view(*text).substr(begin, end - begin);
            if (line.find_first_not_of(" \t\r") != std::string_view::npos)
                return reason + ": " + std::string(line);
            begin = end + 1;
        }
    }
    return reason;
}

}  // namespace pdctl::exec
