#include "verbs.hpp"

#include <CLI/CLI.hpp>

namespace pdctl::cli {

void Verbs::add(const CLI::App* command, VerbRun run) {
    entries_.push_back({command, std::move(run)});
}

ExitCode Verbs::run_chosen(const GlobalOptions& global) const {
    for (const auto& entry : entries_)
        if (entry.command->parsed()) return entry.run(global);
    return ExitCode::kOk;
}

}  // namespace pdctl::cli
