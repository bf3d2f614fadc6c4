#pragma once
// Every ID the doctor reports, static rules and live checks alike; what `doctor: ignore:` may name.

#include <string>
#include <string_view>
#include <vector>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/model.hpp"

namespace pdctl::doctor {

// The static rules' IDs (lint::static_rules) then the live checks' (live_checks()).
std::vector<std::string> rule_ids();

// One diagnostic, at the entry's `rule:`, for each `doctor: ignore:` entry that names no rule: a typo
// there would otherwise acknowledge nothing and leave the operator wondering why the warnings stay.
std::vector<config::Diagnostic> check_acknowledged_rules(const config::Cluster& cluster);

}  // namespace pdctl::doctor
