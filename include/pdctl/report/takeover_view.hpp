#pragma once
// `pdctl start --take-over --dry-run`: what would be stopped before pdctl starts its own units.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/take_over.hpp"

namespace pdctl::report {

std::string render_takeover_text(const ops::TakeoverScan& scan);
// {"holders": [{"node", "kind", "id", "name", "image", "pid", "reasons"}], "unprobed": [{"node", "error"}]}
nlohmann::json takeover_to_json(const ops::TakeoverScan& scan);

}  // namespace pdctl::report
