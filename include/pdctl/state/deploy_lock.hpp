#pragma once
// The deploy lock held by one start/stop/restart: taken in the constructor (or a Failure with exit
// code 6 naming the holder), released by release() or, at the latest, by the destructor, so an
// exception or an interrupted run never leaves it behind. Only a second Ctrl-C (the default action:
// the process dies at once) or SIGKILL can; `pdctl lock status` then shows it as stale.

#include <string>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/state/operator_identity.hpp"

namespace pdctl::state {

// "n1:/var/lib/pdctl/kimi3/lock"
std::string lock_location(const config::Cluster& cluster);
std::string lock_directory(const config::Cluster& cluster);

// What a verb does when the coordinator cannot be reached at all (a lock held by someone else always
// refuses): refuse with exit 3, or go on without the lock (`stop`, so an emergency stop never depends on
// one node).
enum class WhenCoordinatorUnreachable { kRefuse, kGoOnUnlocked };

class DeployLock {
  public:
    DeployLock(exec::Executor& executor, const config::Cluster& cluster, const OperatorIdentity& me,
               const std::string& verb, const std::string& token,
               WhenCoordinatorUnreachable unreachable = WhenCoordinatorUnreachable::kRefuse);
    ~DeployLock();
    DeployLock(const DeployLock&) = delete;
    DeployLock& operator=(const DeployLock&) = delete;

    // Idempotent. Reports (does not throw) when the lock could not be removed or changed hands.
    void release();
    // False only under kGoOnUnlocked, when the coordinator could not be reached; then why.
    bool held() const { return held_; }
    const std::string& why_not_held() const { return why_not_held_; }

  private:
    exec::Executor& executor_;
    const config::Cluster& cluster_;
    std::string token_;
    bool held_ = false;
    std::string why_not_held_;
};

}  // namespace pdctl::state
