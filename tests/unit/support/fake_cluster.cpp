#include "fake_cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

namespace pdctl::testing {
namespace {

bool has(const exec::Command& command, const std::string& word) {
    return std::find(command.argv.begin(), command.argv.end(), word) != command.argv.end();
}

// The runtime scripts take the state dir and unit name as the first positional parameters.
std::string unit_argument(const exec::Command& command) {
    return command.argv.at(5);
}

}  // namespace

const plan::Unit* FakeCluster::find_unit(const std::string& name) const {
    for (const auto& stage : plan_.stages)
        for (const auto& unit : stage.units)
            if (unit.name == name) return &unit;
    return nullptr;
}

bool FakeCluster::killed_at(const Deployed& deployed, engine::TimePoint when) const {
    return deployed.killed && when >= *deployed.killed && !(deployed.back && when >= *deployed.back);
}

bool FakeCluster::crashed_at(const Deployed& deployed, engine::TimePoint when) const {
    if (killed_at(deployed, when)) return true;
    auto it = behaviour.find(deployed.unit->name);
    if (it == behaviour.end() || it->second.crash_after.count() < 0) return false;
    return when >= deployed.started + it->second.crash_after;
}

void FakeCluster::preload_running(const plan::Unit& unit, const std::string& fingerprint) {
    deployed_[unit.name] = {&unit, fingerprint, clock_.now() - std::chrono::hours(1), {}, {}, {}};
}

void FakeCluster::crash_at(const std::string& unit, engine::TimePoint when, const std::string& exit_code) {
    std::lock_guard lock(mutex_);
    auto& deployed = deployed_.at(unit);
    deployed.killed = when;
    deployed.back.reset();
    deployed.killed_code = exit_code;
}

void FakeCluster::recover_at(const std::string& unit, engine::TimePoint when) {
    std::lock_guard lock(mutex_);
    deployed_.at(unit).back = when;
}

void FakeCluster::forget(const std::string& unit) {
    std::lock_guard lock(mutex_);
    deployed_.erase(unit);
}

bool FakeCluster::answer_state(const exec::Command& command, exec::CommandResult& result) {
    // The state scripts' argv: sh -c SCRIPT NAME ARGS...
    if (command.argv.size() < 4 || command.argv[0] != "sh") return false;
    const auto& name = command.argv[3];
    const auto holder_field = [](const std::string& holder, const std::string& key) {
        const auto at = holder.find(key + "=");
        if (at == std::string::npos) return std::string();
        const auto from = at + key.size() + 1;
        return holder.substr(from, holder.find('\n', from) - from);
    };
    if (name == "pdctl-lock-acquire") {
        if (!lock_holder.empty()) {
            result.out = "held\n" + lock_holder;
        } else {
            lock_holder = command.stdin_data;
            events.push_back("lock " + holder_field(lock_holder, "verb"));
            result.out = "acquired\n";
        }
    } else if (name == "pdctl-lock-release") {
        const auto token = command.argv.size() > 5 ? command.argv[5] : std::string();
        if (lock_holder.empty()) {
            result.out = "free\n";
        } else if (!token.empty() && holder_field(lock_holder, "token") != token) {
            result.out = "changed\n" + lock_holder;
        } else {
            lock_holder.clear();
            events.push_back("unlock");
            result.out = "released\n";
        }
    } else if (name == "pdctl-lock-status") {
        result.out = lock_holder.empty() ? "free\n" : "held\n" + lock_holder;
    } else if (name == "pdctl-journal-append") {
        journal += command.stdin_data;
        events.push_back("journal");
    } else if (name == "pdctl-journal-read") {
        result.out = journal;
    } else if (name == "pdctl-intent-read") {
        result.out = intent;
    } else if (name == "pdctl-intent-write") {
        intent = command.stdin_data;
        events.push_back("intent");
    } else {
        return false;
    }
    return true;
}

bool FakeCluster::is_running(const std::string& unit) const {
    auto it = deployed_.find(unit);
    return it != deployed_.end() && !crashed(it->second);
}

std::size_t FakeCluster::count(const std::string& prefix) const {
    return static_cast<std::size_t>(std::count_if(
        events.begin(), events.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }));
}

int FakeCluster::index_of(const std::string& event) const {
    auto it = std::find(events.begin(), events.end(), event);
    return it == events.end() ? -1 : static_cast<int>(it - events.begin());
}

exec::CommandResult FakeCluster::run(const config::Node& node, const exec::Command& command) {
    std::unique_lock lock(mutex_);
    exec::CommandResult result;
    if (unreachable_nodes.count(node.name)) {
        result.transport_error = "connect to " + node.address + ":22: timed out";
        return result;
    }
    result.exit_code = 0;
    if (answer_state(command, result)) {
        // the coordinator's lock, journal or intent
    } else if (has(command, "pdctl-start")) {
        const auto name = unit_argument(command);
        events.push_back("start " + name);
        const auto* unit = find_unit(name);
        deployed_[name] = {unit, unit->fingerprint, clock_.now(), {}, {}, {}};
        result.out = "started " + name;
    } else if (has(command, "pdctl-stop")) {
        const auto name = unit_argument(command);
        events.push_back("stop " + name);
        deployed_.erase(name);
        result.out = "stopped " + name;
    } else if (has(command, "pdctl-inspect")) {
        events.push_back("inspect " + node.name);
        clock_.advance(inspect_takes);
        if (auto slow = inspect_timeouts.find(node.name);
            slow != inspect_timeouts.end() && slow->second > 0) {
            --slow->second;
            result.exit_code = -1;
            result.timed_out = true;
            return result;
        }
        if (auto silent = inspect_silent_failures.find(node.name);
            silent != inspect_silent_failures.end() && silent->second > 0) {
            --silent->second;
            result.exit_code = 1;
            return result;
        }
        const auto lag = inspect_lag.count(node.name) ? inspect_lag.at(node.name) : engine::Duration{0};
        for (const auto& [name, deployed] : deployed_) {
            if (deployed.unit->node != node.name) continue;
            const bool killed = killed_at(deployed, clock_.now() - lag);
            const bool dead = killed || crashed_at(deployed, clock_.now() - lag);
            // Units start at 1000 on the nodes' clock; one that crashed ended crash_after later.
            const auto lived = killed ? *deployed.killed - deployed.started
                               : dead ? behaviour.at(name).crash_after
                                      : engine::Duration{0};
            const auto ended = 1000 + std::chrono::duration_cast<std::chrono::seconds>(lived).count();
            const auto exit_code = killed ? deployed.killed_code : dead ? behaviour.at(name).exit_code : "";
            result.out +=
                fmt::format("unit={}\nstate={}\npid=100\nexit_code={}\nnow=2000\nstarted=1000\nfinished={}\n",
                            name, dead ? "exited" : "running", exit_code, dead ? std::to_string(ended) : "");
            result.out += fmt::format("pdctl.role={}\npdctl.node={}\npdctl.config={}\n\n",
                                      deployed.unit->role, deployed.unit->node, deployed.fingerprint);
        }
    } else if (command.argv.at(0) == "tail") {
        events.push_back("logs " + command.argv.back());
        result.out = log_of(command.argv.back());
    } else {
        // Unlocked: the hook may crash units or bring them back (crash_at, recover_at take the lock).
        lock.unlock();
        auto answered = on_command ? on_command(node, command) : std::nullopt;
        lock.lock();
        if (answered) {
            events.push_back("command " + command.argv.at(0) + " on " + node.name);
            return *answered;
        }
        result.exit_code = 127;
        result.err = "fake cluster: unknown command";
    }
    return result;
}

std::string FakeCluster::log_of(const std::string& log_path) const {
    // The process runtime's log file is <state dir>/<unit>.log.
    const auto file = log_path.substr(log_path.rfind('/') + 1);
    const auto name = file.substr(0, file.rfind(".log"));
    auto it = behaviour.find(name);
    if (it == behaviour.end() || it->second.log.empty())
        return "[2026-11-29 08:15:10 TP16] Load weight begin. avail mem=78.21 GB\n"
               "[2026-11-29 08:15:14 TP16] Scheduler hit an exception: Mooncake memory registration failed\n";
    auto deployed = deployed_.find(name);
    if (deployed == deployed_.end()) return "";
    std::string out;
    for (const auto& [after, line] : it->second.log)
        if (clock_.now() >= deployed->second.started + after) out += line + "\n";
    return out;
}

// Every check of a gate answers as its stage's rank 0 does: 200 once ready (a router's /workers lists
// its workers healthy, its /generate returns text), 503 before, nothing once it crashed.
health::ProbeResult FakeCluster::answer_check(const std::string& url, bool post) {
    std::lock_guard lock(mutex_);
    health::ProbeResult result;
    for (const auto& stage : plan_.stages) {
        // effective_checks() returns a new vector: keep the match by value, not a pointer into it.
        std::optional<plan::GateCheck> matched;
        for (const auto& check : stage.gate.effective_checks())
            if (check.url == url && (check.kind == plan::CheckKind::Generate) == post) matched = check;
        if (!matched) continue;
        const auto& rank0 = stage.units.front();
        auto it = deployed_.find(rank0.name);
        if (it == deployed_.end() || crashed(it->second)) break;
        auto behaviour_it = behaviour.find(rank0.name);
        const auto ready_after = behaviour_it == behaviour.end() ? FakeUnitBehaviour{}.ready_after
                                                                 : behaviour_it->second.ready_after;
        if (clock_.now() < it->second.started + ready_after) {
            result.status = 503;
            return result;
        }
        result.status = 200;
        if (matched->kind == plan::CheckKind::Workers) {
            nlohmann::json workers = nlohmann::json::array();
            for (const auto& worker : matched->workers)
                workers.push_back({{"url", worker}, {"is_healthy", true}});
            result.body = nlohmann::json{{"workers", workers}}.dump();
        } else if (matched->kind == plan::CheckKind::Generate) {
            result.body = R"({"text":"fake"})";
        }
        // One event per gate round: its first check.
        if (url == stage.gate.url) events.push_back("ready " + stage.role);
        return result;
    }
    if (!post && probe_bootstrap(url, result)) return result;
    result.error = "Connection refused";
    return result;
}

health::ProbeResult FakeCluster::get(const std::string& url, std::chrono::milliseconds /*timeout*/) {
    if (on_probe) on_probe();
    if (stall_probe && stall_probe(url)) {
        health::ProbeResult stalled;
        stalled.error = "Read";
        return stalled;
    }
    return answer_check(url, false);
}

health::ProbeResult FakeCluster::post(const std::string& url, const std::string& /*body*/,
                                      const std::string& /*content_type*/,
                                      const health::PostTimeouts& /*timeouts*/) {
    return answer_check(url, true);
}

bool FakeCluster::probe_bootstrap(const std::string& url, health::ProbeResult& result) {
    for (const auto& stage : plan_.stages) {
        for (const auto& edge : stage.edges) {
            if (edge.kind != plan::GateKind::Bootstrap || edge.gate.url != url) continue;
            const auto& rank0 = plan_.find_stage(edge.role)->units.front();
            auto it = deployed_.find(rank0.name);
            if (it == deployed_.end() || crashed(it->second)) return false;
            auto behaviour_it = behaviour.find(rank0.name);
            const auto after = behaviour_it == behaviour.end() ? FakeUnitBehaviour{}.bootstrap_after
                                                               : behaviour_it->second.bootstrap_after;
            if (clock_.now() < it->second.started + after) return false;
            result.status = 200;
            events.push_back("bootstrap " + edge.role);
            return true;
        }
    }
    return false;
}

}  // namespace pdctl::testing
