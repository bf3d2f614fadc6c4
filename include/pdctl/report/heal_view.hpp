#pragma once
// What `pdctl heal` says after a pass: one line per action with its outcome (a group left alone also
// with its last log lines), or that everything runs as configured; and the same as JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/heal.hpp"

namespace pdctl::report {

std::string render_heal_text(const ops::HealReport& report);
nlohmann::json heal_to_json(const ops::HealReport& report);

}  // namespace pdctl::report
