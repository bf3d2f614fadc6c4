#pragma once
// The hidden verb the completion script calls: `pdctl __complete CWORD WORD...`. It is answered before
// CLI11 parses anything, since the words it completes are a half-typed line that would not parse.

namespace CLI {
class App;
}

namespace pdctl::cli {

constexpr const char* kCompleteVerb = "__complete";

bool is_completion_request(int argc, char** argv);
// Prints the protocol of completion.hpp (to_protocol); exit 0, or 2 for a malformed request.
int run_completion_request(const CLI::App& app, int argc, char** argv);

}  // namespace pdctl::cli
