// pdctl lock status | release [--force]: the deploy lock on the coordinator node.
#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/lock.hpp"
#include "pdctl/report/lock_view.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct LockReleaseOptions {
    bool force = false;
};

ExitCode lock_status_command(const GlobalOptions& global) {
    auto context = load_context(global);
    const auto lock = ops::look_at_lock(context);
    print_result(
        global, context.redactor, [&] { return report::lock_status_to_json(lock, lock.read_at); },
        [&] { return report::render_lock_status_text(lock, lock.read_at); });
    return ExitCode::kOk;
}

ExitCode lock_release_command(const GlobalOptions& global, const LockReleaseOptions& options) {
    auto context = load_context(global);
    const auto release = ops::release_lock(context, options.force);
    const auto& lock = release.lock;
    std::string message = release.broken;
    if (release.what == ops::LockReleased::kAlreadyFree) message = report::lock_already_free_message(lock);
    if (release.what == ops::LockReleased::kOwn)
        message = report::lock_released_own_message(lock, release.at);
    const bool released = release.what != ops::LockReleased::kAlreadyFree;
    const bool broken = release.what == ops::LockReleased::kBroken;
    print_result(
        global, context.redactor,
        [&] { return report::lock_release_to_json(lock, message, released, broken, release.at); },
        [&] { return message + "\n"; });
    return ExitCode::kOk;
}

}  // namespace

void add_lock_verb(CLI::App& app, Verbs& verbs) {
    auto* lock = app.add_subcommand("lock", "the deploy lock on the coordinator node: status, release");
    lock->require_subcommand(1);
    auto* status = lock->add_subcommand("status", "who holds the deploy lock, since when, for which verb");
    auto options = std::make_shared<LockReleaseOptions>();
    auto* release =
        lock->add_subcommand("release", "remove the deploy lock: your own, or anyone's with --force");
    release->add_flag("--force", options->force, "break a lock held by another operator, or a stale one");
    status->fallthrough();
    release->fallthrough();
    verbs.add(status, lock_status_command);
    verbs.add(release,
              [options](const GlobalOptions& global) { return lock_release_command(global, *options); });
}

}  // namespace pdctl::cli
