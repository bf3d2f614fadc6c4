// pdctl ssh close: ends the OpenSSH masters that stay between runs (docs/ssh.md). Needs no cluster
// file: it is for the operator's machine, whichever clusters its masters reach.
#include <CLI/CLI.hpp>

#include "pdctl/ops/ssh_close.hpp"
#include "pdctl/report/ssh_masters_view.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode ssh_close_command(const GlobalOptions& global) {
    const auto answer = ops::close_ssh_masters();
    // No cluster is read, so there are no secrets to redact.
    print_result(
        global, util::Redactor{},
        [&] { return report::closed_masters_to_json(answer.control_dir, answer.closed); },
        [&] { return report::render_closed_masters_text(answer.control_dir, answer.closed); });
    return ExitCode::kOk;
}

}  // namespace

void add_ssh_verb(CLI::App& app, Verbs& verbs) {
    auto* ssh = app.add_subcommand("ssh", "the OpenSSH connections pdctl keeps between runs: close");
    ssh->require_subcommand(1);
    auto* close = ssh->add_subcommand(
        "close", "end every OpenSSH master pdctl left for the next run (PDCTL_SSH_PERSIST), on any cluster");
    close->fallthrough();
    verbs.add(close, ssh_close_command);
}

}  // namespace pdctl::cli
