#include "pdctl/report/status_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pdctl/util/bytes.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::report {

using nlohmann::json;

std::string format_uptime(long long seconds) {
    if (seconds < 0) return "-";
    if (seconds < 60) return fmt::format("{}s", seconds);
    if (seconds < 3600) return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
    if (seconds < 86400) return fmt::format("{}h{:02}m", seconds / 3600, (seconds % 3600) / 60);
    return fmt::format("{}d{:02}h", seconds / 86400, (seconds % 86400) / 3600);
}

namespace {

std::string state_text(const engine::UnitStatus& unit) {
    if (unit.state == "exited" && !unit.exit_code.empty()) return "exited(" + unit.exit_code + ")";
    // A rank that runs but does not move is not "running" to an operator (engine/stall.hpp).
    if (unit.state == "running" && (unit.progress == "stalled" || unit.progress == "waiting"))
        return unit.progress;
    return unit.state;
}

std::string or_dash(const std::string& text) {
    return text.empty() ? "-" : text;
}

// One line of numbers for a role: the ones it exported, in the order operators read them.
std::string metrics_line(const engine::RoleMetrics& metrics) {
    if (!metrics.error.empty()) return "no metrics from " + metrics.url + ": " + metrics.error;
    std::vector<std::string> parts;
    auto add = [&](const char* name, const char* label, const char* unit = "") {
        if (const auto value = metrics.find(name))
            parts.push_back(fmt::format("{}{:.0f}{}", label, *value, unit));
    };
    add("sglang:num_running_reqs", "running ");
    add("sglang:num_queue_reqs", "queued ");
    if (const auto usage = metrics.find("sglang:token_usage"))
        parts.push_back(fmt::format("KV {:.1f}%", *usage * 100));
    add("sglang:gen_throughput", "", " tok/s");
    add("sglang:num_prefill_inflight_queue_reqs", "awaiting transfer ");
    add("sglang:num_decode_transfer_queue_reqs", "receiving KV ");
    add("sglang:num_bootstrap_failed_reqs_total", "bootstrap failures ");
    add("sglang:num_transfer_failed_reqs_total", "transfer failures ");
    add("sglang:num_requests_total", "", " requests served");
    add("master_key_count", "keys ");
    if (const auto used = metrics.find("master_allocated_bytes")) {
        const auto total = metrics.find("master_total_capacity_bytes");
        parts.push_back(
            "allocated " + util::format_bytes(static_cast<std::uint64_t>(*used)) +
            (total ? " of " + util::format_bytes(static_cast<std::uint64_t>(*total)) : std::string()));
    }
    add("master_active_clients", "clients ");
    return util::join(parts, " · ");
}

// What the journal says of the last request a gate sent through a MiniLB router.
std::string last_request_text(const engine::LastGateRequest& last) {
    if (!last.error.empty()) return last.error;
    if (!last.found) return "the journal holds no request through it";
    const auto when = last.age_seconds >= 0 ? format_uptime(last.age_seconds) + " ago" : "at " + last.at;
    if (last.passed) return fmt::format("the last one, by {} {}, passed {}", last.verb, last.run, when);
    return fmt::format("its last request, by {} {}, failed {}: {}", last.verb, last.run, when, last.failure);
}

json last_request_json(const std::optional<engine::LastGateRequest>& last) {
    if (!last) return nullptr;
    if (!last->error.empty()) return {{"error", last->error}};
    if (!last->found) return {{"found", false}};
    return {{"found", true},
            {"run", last->run},
            {"verb", last->verb},
            {"at", last->at},
            {"age_seconds", last->age_seconds},
            {"passed", last->passed},
            {"failure", last->passed ? json(nullptr) : json(last->failure)}};
}

}  // namespace

std::string render_status_text(const engine::ClusterStatus& status) {
    std::size_t units = 0;
    for (const auto& role : status.roles) units += role.units.size();
    std::set<std::string> entries;  // `roles:` entries; a role of several groups has several RoleStatus
    for (const auto& role : status.roles)
        entries.insert(role.config_role.empty() ? role.role : role.config_role);
    const std::string groups =
        entries.size() == status.roles.size() ? "" : fmt::format(" ({} groups)", status.roles.size());
    std::string out = fmt::format("cluster {} · {} · {} roles{} · {} units\n", status.cluster, status.state,
                                  entries.size(), groups, units);
    // A GROUP column ("2/3") only when some role has several groups: the ROLE column then names the
    // `roles:` entry and GROUP which of its groups (the unit names carry the group's own name).
    const bool grouped = std::any_of(status.roles.begin(), status.roles.end(),
                                     [](const engine::RoleStatus& role) { return role.groups > 1; });
    // PHASE and LOG (the age of the last log line) only for sglang ranks: the other kinds are one
    // process with an HTTP check of its own.
    auto row = [&](const std::string& role, const std::string& group, const std::string& node,
                   const std::string& address, const std::string& rank, const std::string& state,
                   const std::string& health, const std::string& phase, const std::string& log,
                   const std::string& uptime, const std::string& config) {
        return fmt::format("{:<17}", role) + (grouped ? fmt::format("{:<7}", group) : std::string()) +
               fmt::format("{:<8}{:<16}{:<6}{:<12}{:<8}{:<16}{:<8}{:<8}{}\n", node, address, rank, state,
                           health, phase, log, uptime, config);
    };
    out += row("ROLE", "GROUP", "NODE", "ADDRESS", "RANK", "STATE", "HEALTH", "PHASE", "LOG", "UPTIME",
               "CONFIG");
    for (const auto& role : status.roles) {
        const std::string group = fmt::format("{}/{}", role.group, role.groups);
        for (const auto& unit : role.units) {
            const auto& name = grouped && !role.config_role.empty() ? role.config_role : unit.role;
            const auto state = role.stopped_on_purpose.empty() ? state_text(unit) : std::string("stopped*");
            out += row(name, group, unit.node, unit.address, std::to_string(unit.rank), state, unit.health,
                       or_dash(unit.phase), format_uptime(unit.log_quiet_seconds),
                       format_uptime(unit.uptime_seconds), unit.config);
        }
    }
    for (const auto& stray : status.strays)
        out += row(stray.role, "-", stray.node, "", "", state_text(stray), "-", "-", "-", "-", stray.config);
    for (const auto& role : status.roles)
        if (!role.stopped_on_purpose.empty())
            out += fmt::format("{}: stopped* on purpose {}; `{}` brings it back\n", role.role,
                               role.stopped_on_purpose, role.bring_back);
    for (const auto& role : status.roles) {
        for (const auto& unit : role.units) {
            if (!unit.stalled()) continue;
            out += fmt::format(
                "{}: rank {} on {} {}; see `pdctl stack --group {}` and `pdctl logs {} --rank {}`\n",
                role.role, unit.rank, unit.node, unit.stall, role.role, role.role, unit.rank);
        }
    }
    // executor: slurm: each group's job as SLURM sees it (every rank's is the same).
    for (const auto& role : status.roles)
        if (!role.units.empty() && !role.units.front().scheduler.empty())
            out += fmt::format("{}: SLURM {}\n", role.role, role.units.front().scheduler);
    for (const auto& role : status.roles) {
        const auto& last = role.last_request;
        const bool running = !role.units.empty() && role.units.front().state == "running";
        if (!role.ready && running && last && last->found && !last->passed)
            out += fmt::format("{}: {}; `--probe` sends a new one\n", role.role, last_request_text(*last));
        else if (!role.ready && running && !role.gate_answer.empty())
            out += fmt::format("{}: {} answers {}\n", role.role, role.gate_url, role.gate_answer);
        // Ready without a request: say what it rests on, and how to send one.
        if (role.ready && role.kind == "router" && !status.probed)
            out += fmt::format("{}: ready by its own account ({}); no request sent, `--probe` sends one{}\n",
                               role.role, role.gate_answer, last ? "; " + last_request_text(*last) : "");
    }
    for (const auto& [node, why] : status.unreachable)
        out += fmt::format("{}: unreachable, state unknown: {}\n", node, why);
    const bool any_metrics =
        std::any_of(status.roles.begin(), status.roles.end(),
                    [](const engine::RoleStatus& role) { return role.metrics.has_value(); });
    if (any_metrics) {
        out += "METRICS (rank 0's /metrics, the master's metrics port)\n";
        for (const auto& role : status.roles)
            if (role.metrics) out += fmt::format("{:<17}{}\n", role.role, metrics_line(*role.metrics));
    }
    return out;
}

json status_to_json(const engine::ClusterStatus& status) {
    json roles = json::array();
    for (const auto& role : status.roles) {
        json units = json::array();
        for (const auto& unit : role.units) {
            units.push_back({{"node", unit.node},
                             {"address", unit.address},
                             {"unit", unit.unit},
                             {"rank", unit.rank},
                             {"state", unit.state},
                             {"health", unit.health},
                             {"config", unit.config},
                             {"uptime_seconds", unit.uptime_seconds},
                             {"exit_code", unit.exit_code},
                             {"pid", unit.pid},
                             {"phase", unit.phase.empty() ? json(nullptr) : json(unit.phase)},
                             {"log_quiet_seconds",
                              unit.log_quiet_seconds < 0 ? json(nullptr) : json(unit.log_quiet_seconds)},
                             {"progress", unit.progress.empty() ? json(nullptr) : json(unit.progress)},
                             {"stall", unit.stall.empty() ? json(nullptr) : json(unit.stall)},
                             {"scheduler", unit.scheduler.empty() ? json(nullptr) : json(unit.scheduler)}});
        }
        json group = nullptr;  // null for a role of one group, as in the plan
        if (role.groups > 1)
            group = {{"role", role.config_role}, {"index", role.group}, {"count", role.groups}};
        json metrics = nullptr;
        if (role.metrics) {
            json values = json::object();
            for (const auto& [name, value] : role.metrics->values) values[name] = value;
            metrics = {{"url", role.metrics->url},
                       {"error", role.metrics->error.empty() ? json(nullptr) : json(role.metrics->error)},
                       {"values", values}};
        }
        roles.push_back({{"role", role.role},
                         {"metrics", metrics},
                         {"group", group},
                         {"kind", role.kind},
                         {"healthy", role.ready},
                         {"gate_url", role.gate_url},
                         {"gate_answer", role.gate_answer},
                         {"last_request", last_request_json(role.last_request)},
                         {"stopped_on_purpose",
                          role.stopped_on_purpose.empty()
                              ? json(nullptr)
                              : json{{"by", role.stopped_on_purpose}, {"bring_back", role.bring_back}}},
                         {"units", units}});
    }
    json unreachable = json::array();
    for (const auto& [node, why] : status.unreachable)
        unreachable.push_back({{"node", node}, {"error", why}});
    json strays = json::array();
    for (const auto& stray : status.strays)
        strays.push_back(
            {{"node", stray.node}, {"unit", stray.unit}, {"role", stray.role}, {"state", stray.state}});
    return json{{"cluster", status.cluster}, {"state", status.state},
                {"probed", status.probed},   {"roles", roles},
                {"strays", strays},          {"unreachable", unreachable}};
}

}  // namespace pdctl::report
