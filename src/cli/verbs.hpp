#pragma once
// How a verb plugs into the app. Each verb's file (cli/<verb>_command.cpp) adds its subcommand, with
// its own flags, to the CLI11 app and records what runs when that subcommand is the one chosen;
// app.cpp lists the verbs, parses, and runs the chosen one. The run is recorded rather than set as a
// CLI11 callback: it must wait until logging and the log file are set up, and its errors are app.cpp's
// to print and turn into the exit code.

#include <functional>
#include <vector>

#include "context.hpp"
#include "pdctl/util/exit_code.hpp"

namespace CLI {
class App;
}

namespace pdctl::cli {

// Runs a verb with the options the parse filled in (its own, captured when it was added; the global
// ones passed in).
using VerbRun = std::function<ExitCode(const GlobalOptions&)>;

class Verbs {
  public:
    void add(const CLI::App* command, VerbRun run);
    // The verb whose subcommand was parsed (the app requires exactly one); kOk when none was.
    ExitCode run_chosen(const GlobalOptions& global) const;

  private:
    struct Entry {
        const CLI::App* command;
        VerbRun run;
    };
    std::vector<Entry> entries_;
};

// One per verb, each in its <verb>_command.cpp; app.cpp calls them in the order `pdctl --help` lists
// the verbs. `lock` adds its two subcommands, status and release.
void add_plan_verb(CLI::App& app, Verbs& verbs);
void add_start_verb(CLI::App& app, Verbs& verbs);
void add_stop_verb(CLI::App& app, Verbs& verbs);
void add_restart_verb(CLI::App& app, Verbs& verbs);
void add_rollout_verb(CLI::App& app, Verbs& verbs);
void add_rollback_verb(CLI::App& app, Verbs& verbs);
void add_heal_verb(CLI::App& app, Verbs& verbs);
void add_drill_verb(CLI::App& app, Verbs& verbs);
void add_doctor_verb(CLI::App& app, Verbs& verbs);
void add_status_verb(CLI::App& app, Verbs& verbs);
void add_logs_verb(CLI::App& app, Verbs& verbs);
void add_push_verb(CLI::App& app, Verbs& verbs);
void add_pull_verb(CLI::App& app, Verbs& verbs);
void add_cache_verb(CLI::App& app, Verbs& verbs);
void add_smoke_verb(CLI::App& app, Verbs& verbs);
void add_bench_verb(CLI::App& app, Verbs& verbs);
void add_exec_verb(CLI::App& app, Verbs& verbs);
void add_stack_verb(CLI::App& app, Verbs& verbs);
void add_lock_verb(CLI::App& app, Verbs& verbs);
void add_ssh_verb(CLI::App& app, Verbs& verbs);
void add_history_verb(CLI::App& app, Verbs& verbs);
void add_timeline_verb(CLI::App& app, Verbs& verbs);
void add_config_verb(CLI::App& app, Verbs& verbs);
void add_diff_verb(CLI::App& app, Verbs& verbs);
void add_export_verb(CLI::App& app, Verbs& verbs);
void add_completion_verb(CLI::App& app, Verbs& verbs);

}  // namespace pdctl::cli
