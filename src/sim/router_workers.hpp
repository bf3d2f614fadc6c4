#pragma once
// The router's view of its workers: the prefill and decode URLs it was given or that were added at run
// time (POST /workers), whether each answered its last health check (a background thread), and the
// ones being removed (DELETE /workers/{id}: draining, then gone), as SMG and the gateway keep them.

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

    std::string id;  // SMG's worker_id: a UUID given when the worker is registered
    Role role;
    std::string url;
    Url address;
    std::optional<int> bootstrap_port;  // prefill only: from "--prefill URL PORT" or the POST body
    std::atomic<bool> healthy{false};
    // SMG's and the gateway's worker states: pending until the first passed check, then ready or
    // not_ready; failed (terminal) when still pending after --worker-startup-timeout-secs; draining once
    // DELETE /workers/{id} asked for its removal (no new requests), until it is gone.
    enum class State { kPending, kReady, kNotReady, kFailed, kDraining };
    std::atomic<State> state{State::kPending};
    bool registered = true;  // false: never registered (PDSIM_ROUTER_UNREGISTERED), absent from /workers
    Clock::time_point startup_deadline = Clock::time_point::max();  // pending past it: failed

    const char* role_name() const { return role == Role::kPrefill ? "prefill" : "decode"; }
    const char* state_name() const;
    bool serving() const { return registered && state != State::kDraining; }
};

using WorkerList = std::vector<std::shared_ptr<Worker>>;

class WorkerPool {
  public:
    // Throws UsageError for a URL that is not http://host[:port].
    // `unregistered`: a worker URL the router never registers (PDSIM_ROUTER_UNREGISTERED).
    // `drain_settle`: how long a removed worker stays draining before it is dropped (SMG's
    // drain_settle_secs; PDSIM_ROUTER_DRAIN_MS).
    WorkerPool(const RouterArgs& args, const std::string& unregistered, Millis drain_settle);

    // Polls every registered worker's `endpoint` every `interval` on a detached thread; a worker still
    // pending after `startup_timeout` fails.
    void start_health_checks(Millis interval, std::string endpoint, Millis startup_timeout);

    // The current workers of a role (a copy: a request keeps the worker it picked alive while the list
    // changes under it).
    WorkerList prefill() const { return list(Worker::Role::kPrefill); }
    WorkerList decode() const { return list(Worker::Role::kDecode); }
    WorkerList list(Worker::Role role) const;
    WorkerList all() const;
    int healthy_count(Worker::Role role) const;
    int registered_count() const;  // prefill and decode workers the router knows (in /workers)

    // POST /workers: a new pending worker, or null when one with this URL is registered already.
    std::shared_ptr<Worker> add(Worker::Role role, const std::string& url, std::optional<int> bootstrap_port);
    // DELETE /workers/{id}: the worker (by id or URL) turns draining and is dropped after the settle
    // time; null if there is none.
    std::shared_ptr<Worker> remove(const std::string& id_or_url);
    std::shared_ptr<Worker> find(const std::string& id_or_url) const;

    // A random serving worker of the list; only healthy ones when `healthy_only` (null if none).
    std::shared_ptr<Worker> pick(const WorkerList& workers, bool healthy_only);
    std::uint64_t random_room();  // bootstrap_room: random in [0, 2^63)

  private:
    void check_all(const std::string& endpoint);
    std::string new_id();

    mutable std::mutex mutex_;  // guards the two lists and the startup timeout
    WorkerList prefill_;
    WorkerList decode_;
    std::optional<Millis> startup_timeout_;  // known once the health checks started
    Millis drain_settle_;
    std::mutex rng_mutex_;
    std::mt19937_64 rng_{std::random_device{}()};
    bool all_healthy_logged_ = false;
};

}  // namespace pdsim
