// pdctl ssh close: ends the OpenSSH masters that stay between runs (docs/ssh.md). Needs no cluster
// file: it is for the operator's machine, whichever clusters its masters reach.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "pdctl/exec/openssh_masters.hpp"
#include "pdctl/report/ssh_masters_view.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode ssh_close_command(const GlobalOptions& global) {
    const std::string dir = exec::control_dir_from_environment();
    std::vector<exec::ClosedMaster> closed;
    try {
        closed = exec::close_masters_in(dir);
    } catch (const std::runtime_error& error) {
        throw Failure(ExitCode::kUsage, error.what());
    }
    fmt::print("{}", global.json ? report::closed_masters_to_json(dir, closed).dump(2) + "\n"
                                 : report::render_closed_masters_text(dir, closed));
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
