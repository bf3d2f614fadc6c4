#pragma once
// Documented exit codes (docs/exit-codes.md, `pdctl --help`). CI jobs branch on these, so they never change
// meaning once released.

#include <stdexcept>
#include <string>

namespace pdctl {

enum class ExitCode : int {
    kOk = 0,
    kInternal = 1,             // a bug or an unexpected library failure
    kDiffers = 1,              // diff: what runs differs from the config (as diff(1) and kubectl diff)
    kUsage = 2,                // bad command line or invalid config (every problem is listed)
    kUnreachable = 3,          // a node could not be reached or authenticated
    kStageFailed = 4,          // a role's process/container failed to start or exited while its stage waited
    kGateTimeout = 5,          // a readiness gate did not pass before its deadline
    kLocked = 6,               // another operator holds the deploy lock (`pdctl lock status`)
    kDegraded = 7,             // status: something runs but not every role is running and healthy
    kStopped = 8,              // status: nothing of the cluster is running
    kSmokeFailed = 9,          // smoke: the end-to-end request did not return text
    kNodeCheckFailed = 10,     // doctor: a live check found an error on a reachable node
    kStopFailed = 11,          // stop/restart: a unit still runs after its grace period and SIGKILL
    kGpusBusy = 12,            // stop/restart: every unit stopped, but a node's GPUs are still in use
    kCommandFailed = 13,       // exec/stack: the command (py-spy) failed or timed out on a reachable node
    kStoppedWithoutLock = 14,  // stop: the coordinator was unreachable; every reachable unit stopped unlocked
    kBenchFailed = 15,  // bench: requests failed, or a soak saw a KV transfer/bootstrap failure counter rise
    kBenchRegressed = 16,  // bench --vs/--baseline: a metric got worse than --max-regress allows
    kHealGaveUp = 17,      // heal: a group failed again after --max-tries heals within --window; left alone
    kRolledBack = 18,    // rollout: the canary or a later group failed its gate; what changed was rolled back
    kInterrupted = 130,  // SIGINT/SIGTERM; what this run started was stopped (unless --keep-on-failure)
    // The reader of stdout closed it (`pdctl plan --json | head`): pdctl ends quietly, with the code a
    // shell gives a program that SIGPIPE ended (128 + 13), as `git log | head` does.
    kOutputClosed = 141,
};

inline int to_int(ExitCode code) {
    return static_cast<int>(code);
}
const char* describe(ExitCode code);

// An error that ends the command with a specific exit code. Messages name the node and the stage.
class Failure : public std::runtime_error {
  public:
    // std::runtime_error copies its message whatever we pass, so a const reference saves one copy.
    Failure(ExitCode code, const std::string& message, std::string hint = {})
        : std::runtime_error(message), code_(code), hint_(std::move(hint)) {}
    ExitCode code() const { return code_; }
    const std::string& hint() const { return hint_; }

  private:
    ExitCode code_;
    std::string hint_;
};

}  // namespace pdctl
