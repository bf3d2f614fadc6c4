#include "pdctl/config/detail/doctor_loader.hpp"

#include <algorithm>
#include <regex>

namespace pdctl::config::detail {
namespace {

// Rule and check IDs: letters then three digits (PD014, NET003, RDMA001, FILE001).
bool looks_like_rule_id(const std::string& id) {
    static const std::regex pattern("[A-Z]{2,4}[0-9]{3}");
    return std::regex_match(id, pattern);
}

// What the kernel accepts as an interface name (IFNAMSIZ is 16 with the final NUL).
bool is_interface_name(const std::string& name) {
    return !name.empty() && name.size() <= 15 && name != "." && name != ".." &&
           std::none_of(name.begin(), name.end(),
                        [](unsigned char c) { return c <= ' ' || c == '/' || c == ':'; });
}

void read_ignore(const YamlContext& yaml, const MapReader& doctor, DoctorSettings& settings) {
    const auto* entry = doctor.find("ignore");
    if (!entry) return;
    const std::string path = doctor.child_path("ignore");
    if (!entry->value.IsSequence()) {
        yaml.error(entry->value_where, path, "expected a list, got " + describe(entry->value),
                   "e.g. ignore: [{rule: PD014, reason: \"checked on site 2026-11\"}]");
        return;
    }
    std::size_t index = 0;
    for (const auto& element : entry->value) {
        const std::string item_path = path + "[" + std::to_string(index++) + "]";
        MapReader map(yaml, element, item_path, yaml.at(element, entry->value_where));
        if (!map.is_map()) continue;
        map.check_keys({"rule", "reason"});
        AcknowledgedRule ack;
        ack.where = map.where();
        const bool has_rule = map.require("rule", "the rule's ID, e.g. PD014");
        map.require("reason",
                    "why the rule's findings are safe on this site; doctor shows it beside the rule");
        if (has_rule && map.string("rule", ack.rule)) {
            ack.where = map.find("rule")->value_where;
            if (!looks_like_rule_id(ack.rule)) {
                yaml.error(ack.where, item_path + ".rule", "`" + ack.rule + "` is not a rule ID",
                           "IDs look like PD014 or NET003; docs/doctor.md lists them");
                continue;
            }
            const auto first =
                std::find_if(settings.ignore.begin(), settings.ignore.end(),
                             [&](const AcknowledgedRule& other) { return other.rule == ack.rule; });
            if (first != settings.ignore.end()) {
                yaml.error(ack.where, item_path + ".rule", ack.rule + " is acknowledged twice",
                           "first at line " + std::to_string(first->where.line) + "; keep one entry");
                continue;
            }
        }
        if (map.string("reason", ack.reason) && ack.reason.find_first_not_of(" \t") == std::string::npos) {
            yaml.error(map.find("reason")->value_where, item_path + ".reason", "must not be empty",
                       "say why the rule's findings are safe on this site");
            continue;
        }
        if (!ack.rule.empty() && !ack.reason.empty()) settings.ignore.push_back(std::move(ack));
    }
}

void read_management_interfaces(const YamlContext& yaml, const MapReader& doctor, DoctorSettings& settings) {
    std::vector<Item> names;
    if (!doctor.items("management_interfaces", names, true)) return;
    settings.management_where = doctor.find("management_interfaces")->value_where;
    settings.management_interfaces.clear();
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (is_interface_name(names[i].value)) {
            settings.management_interfaces.push_back(names[i].value);
        } else {
            yaml.error(names[i].where,
                       doctor.child_path("management_interfaces") + "[" + std::to_string(i) + "]",
                       "`" + names[i].value + "` is not an interface name",
                       "a NIC name as `ip link` shows it, e.g. bond0");
        }
    }
}

}  // namespace

void read_doctor_settings(const LoadContext& ctx, const MapReader& top, Cluster& cluster) {
    const auto* entry = top.find("doctor");
    if (!entry) return;
    MapReader doctor(ctx.yaml, entry->value, "doctor", entry->value_where);
    if (!doctor.is_map()) return;
    doctor.check_keys({"ignore", "management_interfaces"});
    read_ignore(ctx.yaml, doctor, cluster.doctor);
    read_management_interfaces(ctx.yaml, doctor, cluster.doctor);
}

}  // namespace pdctl::config::detail
