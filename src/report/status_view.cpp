#include "pdctl/report/status_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

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
               fmt::format("{:<8}{:<16}{:<6}{:<9}{:<8}{:<16}{:<8}{:<8}{}\n", node, address, rank, state,
                           health, phase, log, uptime, config);
    };
    out += row("ROLE", "GROUP", "NODE", "ADDRESS", "RANK", "STATE", "HEALTH", "PHASE", "LOG", "UPTIME",
               "CONFIG");
    for (const auto& role : status.roles) {
        const std::string group = fmt::format("{}/{}", role.group, role.groups);
        for (const auto& unit : role.units) {
            const auto& name = grouped && !role.config_role.empty() ? role.config_role : unit.role;
            out += row(name, group, unit.node, unit.address, std::to_string(unit.rank), state_text(unit),
                       unit.health, or_dash(unit.phase), format_uptime(unit.log_quiet_seconds),
                       format_uptime(unit.uptime_seconds), unit.config);
        }
    }
    for (const auto& stray : status.strays)
        out += row(stray.role, "-", stray.node, "", "", state_text(stray), "-", "-", "-", "-", stray.config);
    for (const auto& role : status.roles) {
        for (const auto& unit : role.units) {
            if (!unit.stalled()) continue;
            out += fmt::format(
                "{}: rank {} on {} {}; see `pdctl stack --group {}` and `pdctl logs {} --rank {}`\n",
                role.role, unit.rank, unit.node, unit.stall, role.role, role.role, unit.rank);
        }
    }
    for (const auto& role : status.roles) {
        if (!role.ready && !role.gate_answer.empty() && !role.units.empty() &&
            role.units.front().state == "running")
            out += fmt::format("{}: {} answers {}\n", role.role, role.gate_url, role.gate_answer);
    }
    for (const auto& [node, why] : status.unreachable)
        out += fmt::format("{}: unreachable, state unknown: {}\n", node, why);
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
                             {"stall", unit.stall.empty() ? json(nullptr) : json(unit.stall)}});
        }
        json group = nullptr;  // null for a role of one group, as in the plan
        if (role.groups > 1)
            group = {{"role", role.config_role}, {"index", role.group}, {"count", role.groups}};
        roles.push_back({{"role", role.role},
                         {"group", group},
                         {"kind", role.kind},
                         {"healthy", role.ready},
                         {"gate_url", role.gate_url},
                         {"gate_answer", role.gate_answer},
                         {"units", units}});
    }
    json unreachable = json::array();
    for (const auto& [node, why] : status.unreachable)
        unreachable.push_back({{"node", node}, {"error", why}});
    json strays = json::array();
    for (const auto& stray : status.strays)
        strays.push_back(
            {{"node", stray.node}, {"unit", stray.unit}, {"role", stray.role}, {"state", stray.state}});
    return json{{"cluster", status.cluster},
                {"state", status.state},
                {"roles", roles},
                {"strays", strays},
                {"unreachable", unreachable}};
}

}  // namespace pdctl::report
