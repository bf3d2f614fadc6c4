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

}  // namespace pdctl::exec
