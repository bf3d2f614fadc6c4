#pragma once
// `pdctl status`: a table for people, one JSON document for programs.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/engine/status.hpp"

namespace pdctl::report {

std::string render_status_text(const engine::ClusterStatus& status);
nlohmann::json status_to_json(const engine::ClusterStatus& status);
// "2h13m", "41s", "-"
std::string format_uptime(long long seconds);

}  // namespace pdctl::report
