#pragma once
// Internal to the config layer: `doctor:`, what the doctor must know about the site (acknowledged
// rules, the management NICs).

#include "pdctl/config/detail/loading.hpp"

namespace pdctl::config::detail {

// Reads `doctor: {ignore: [{rule, reason}], management_interfaces: [...]}`. Whether a rule ID names
// a real rule is checked above the config layer, which does not know the rules
// (doctor::check_acknowledged_rules).
void read_doctor_settings(const LoadContext& ctx, const MapReader& top, Cluster& cluster);

}  // namespace pdctl::config::detail
