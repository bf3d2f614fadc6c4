#pragma once
// `pdctl plan restart --role R --rolling`: the steps of a rolling restart, in order, as text and JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/plan/rolling.hpp"

namespace pdctl::report {

std::string render_rolling_text(const plan::RollingPlan& rolling);
nlohmann::json rolling_to_json(const plan::RollingPlan& rolling);

}  // namespace pdctl::report
