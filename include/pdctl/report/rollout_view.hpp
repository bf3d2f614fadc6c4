#pragma once
// `pdctl rollout` and `rollback`: the plan (`--dry-run`) and how the run ended, as text or JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/rollout.hpp"
#include "pdctl/report/junit.hpp"

namespace pdctl::report {

std::string render_rollout_plan_text(const ops::RolloutPreview& preview, const ops::RolloutRequest& request);
nlohmann::json rollout_plan_to_json(const ops::RolloutPreview& preview);

std::string render_rollout_text(const ops::RolloutResult& result);
nlohmann::json rollout_to_json(const ops::RolloutResult& result);

// `--junit`: one case per step taken (failed when the step did), the canary's gate (failed with the
// metric, the values and the interval), the rollback when there was one, or the downtime.
JunitSuite rollout_suite(const ops::RolloutResult& result, const std::string& verb, double seconds);

}  // namespace pdctl::report
