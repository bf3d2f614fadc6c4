#pragma once
// An in-memory stand-in for the nodes, driven by a FakeClock: it answers the runtime's start, inspect,
// stop and logs commands like the process runtime's scripts would, the gate probes like the servers
// would, and the coordinator's deploy lock, journal and intent commands like the state scripts would
// (one coordinator, in memory), so a whole use case runs against it. Every call is recorded in order,
// so tests can assert what ran when.

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pdctl/backend/node_backend.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::testing {

struct FakeUnitBehaviour {
    engine::Duration ready_after{std::chrono::seconds(5)};  // gate passes this long after start
    engine::Duration crash_after{-1};                       // < 0: never crashes
    std::string exit_code{"1"};                             // what its crash records (0: it was stopped)
    // Prefill rank 0: its bootstrap server answers /health this long after start (before ready_after,
    // as the real one starts before the weights load).
    engine::Duration bootstrap_after{std::chrono::seconds(1)};
    // The unit's log as lines that appear this long after its start (answers the logs command);
    // empty: a fixed two-line log that ends in a Mooncake registration failure.
    std::vector<std::pair<engine::Duration, std::string>> log;
};

class FakeCluster : public exec::Executor, public health::HttpProber {
  public:
    FakeCluster(const plan::Plan& plan, engine::FakeClock& clock) : plan_(plan), clock_(clock) {}

    // Behaviour of a unit, by unit name.
    std::map<std::string, FakeUnitBehaviour> behaviour;
    std::set<std::string> unreachable_nodes;
    // Nodes whose next N inspect commands time out (a node too slow to list its units in time).
    std::map<std::string, int> inspect_timeouts;
    // Nodes whose next N inspect commands exit 1 and print nothing (a tool that dies without a word).
    std::map<std::string, int> inspect_silent_failures;
    // Nodes whose listing shows their units as they were this long ago: a round of inspects is not one
    // instant (each node answers its own command), so one node's look can predate another's.
    std::map<std::string, engine::Duration> inspect_lag;
    // Fake time each inspect takes (a slow node, a slow link): a round of N nodes takes N times this.
    engine::Duration inspect_takes{0};
    // Called on every probe (lets a test raise an interrupt mid-wait).
    std::function<void()> on_probe;
    // Probes of a URL this returns true for get no answer ("Read"), as when a server stalls; the
    // function may advance the clock, as a probe that waits out its timeout does.
    std::function<bool(const std::string& url)> stall_probe;
    // These nodes as an engine backend sees them: each unit its own start and stop command, as under
    // `executor: ssh`; no preflight or GPU query unless a test sets them (set_checks).
    backend::NodeBackend backend{*this};

    // Any other command (a drill's `kill`) is offered to this; unanswered (nullopt, or no hook), it
    // exits 127 as an unknown command. An answered one is recorded as "command ARGV0 on NODE".
    std::function<std::optional<exec::CommandResult>(const config::Node&, const exec::Command&)> on_command;

    // The coordinator's state, as the state scripts keep it in the cluster's directory: the lock's
    // holder text (empty: free), the journal's JSON Lines, intent.json.
    std::string lock_holder;
    std::string journal;
    std::string intent;

    // Every executor call and successful probe, in order: "start pd-demo-prefill-0", "stop ...",
    // "inspect n1", "logs ...", "ready prefill", "bootstrap prefill" (its bootstrap server answered),
    // "lock heal" (the deploy lock taken for a verb), "unlock", "journal" (lines appended).
    std::vector<std::string> events;

    exec::CommandResult run(const config::Node& node, const exec::Command& command) override;
    health::ProbeResult get(const std::string& url, std::chrono::milliseconds timeout) override;
    // The engine only probes with GET; a POST (smoke's) gets no answer here.
    health::ProbeResult post(const std::string& url, const std::string& body, const std::string& content_type,
                             const health::PostTimeouts& timeouts) override;

    // Puts a unit in the running state as if an earlier pdctl had started it.
    void preload_running(const plan::Unit& unit, const std::string& fingerprint);
    bool is_running(const std::string& unit) const;
    // The running unit's processes end at `when` (as a SIGKILL ends them), now or later: from then it
    // reads as exited with `exit_code`, until `recover_at` or a new start of it.
    void crash_at(const std::string& unit, engine::TimePoint when, const std::string& exit_code = "137");
    void crash_now(const std::string& unit, const std::string& exit_code = "137") {
        crash_at(unit, clock_.now(), exit_code);
    }
    // A unit crash_at ended comes back at `when`, running and ready (its supervisor restarted it).
    void recover_at(const std::string& unit, engine::TimePoint when);
    // The unit's record is gone from its node (as after `pdctl stop`): it reads as absent.
    void forget(const std::string& unit);
    std::size_t count(const std::string& prefix) const;
    // Index of the first event equal to `event`, or -1.
    int index_of(const std::string& event) const;

  private:
    // The state scripts (lock, journal, intent); false when `command` is none of them.
    bool answer_state(const exec::Command& command, exec::CommandResult& result);
    health::ProbeResult answer_check(const std::string& url, bool post);
    struct Deployed {
        const plan::Unit* unit = nullptr;
        std::string fingerprint;
        engine::TimePoint started;
        // crash_at / recover_at: down from `killed` until `back` (for good without one).
        std::optional<engine::TimePoint> killed;
        std::optional<engine::TimePoint> back;
        std::string killed_code;
    };
    bool killed_at(const Deployed& deployed, engine::TimePoint when) const;
    bool crashed(const Deployed& deployed) const { return crashed_at(deployed, clock_.now()); }
    bool crashed_at(const Deployed& deployed, engine::TimePoint when) const;
    const plan::Unit* find_unit(const std::string& name) const;
    // Answers a probe of some stage's bootstrap /health; false when `url` is not one.
    bool probe_bootstrap(const std::string& url, health::ProbeResult& result);
    std::string log_of(const std::string& log_path) const;  // what `tail` prints for that file

    const plan::Plan& plan_;
    engine::FakeClock& clock_;
    std::map<std::string, Deployed> deployed_;  // by unit name
    std::mutex mutex_;                          // the engine calls run() from one thread per node
};

}  // namespace pdctl::testing
