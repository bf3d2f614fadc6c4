#pragma once
// The router's view of its workers: the prefill and decode URLs it was given and whether each
// answered its last health check, refreshed by a background thread.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sim/http_util.hpp"
#include "sim/process.hpp"
#include "sim/program_args.hpp"

namespace pdsim {

struct Worker {
    enum class Role { kPrefill, kDecode };

    Role role;
    std::string url;
    Url address;
    std::optional<int> bootstrap_port;  // prefill only: from "--prefill URL PORT"
    std::atomic<bool> healthy{false};
    // SMG's and the gateway's worker states: pending until the first passed check, then ready or
    // not_ready; failed (terminal) when still pending after --worker-startup-timeout-secs.
    enum class State { kPending, kReady, kNotReady, kFailed };
    std::atomic<State> state{State::kPending};
    bool registered = true;  // false: never registered (PDSIM_ROUTER_UNREGISTERED), absent from /workers

    const char* role_name() const { return role == Role::kPrefill ? "prefill" : "decode"; }
    const char* state_name() const;
};

class WorkerPool {
  public:
    // Throws UsageError for a URL that is not http://host[:port].
    // `unregistered`: a worker URL the router never registers (PDSIM_ROUTER_UNREGISTERED).
    WorkerPool(const RouterArgs& args, const std::string& unregistered);

    // Polls every registered worker's `endpoint` every `interval` on a detached thread; a worker still
    // pending after `startup_timeout` fails.
    void start_health_checks(Millis interval, std::string endpoint, Millis startup_timeout);

    const std::vector<std::unique_ptr<Worker>>& prefill() const { return prefill_; }
    const std::vector<std::unique_ptr<Worker>>& decode() const { return decode_; }
    int healthy_count(Worker::Role role) const;
    int registered_count() const;  // prefill and decode workers the router knows (in /workers)

    // A random worker of the list; only healthy ones when `healthy_only` (null if none).
    Worker* pick(const std::vector<std::unique_ptr<Worker>>& workers, bool healthy_only);
    std::uint64_t random_room();  // bootstrap_room: random in [0, 2^63)

  private:
    void check_all(const std::string& endpoint, Clock::time_point startup_deadline);

    std::vector<std::unique_ptr<Worker>> prefill_;
    std::vector<std::unique_ptr<Worker>> decode_;
    std::mutex rng_mutex_;
    std::mt19937_64 rng_{std::random_device{}()};
    bool all_healthy_logged_ = false;
};

}  // namespace pdsim
