#pragma once
// What `pdctl drill` says at the end: the fault, the requests that failed and when, time to detect and
// to recover and by what, whether a person was needed; the same as JSON and as a JUnit case.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/drill.hpp"
#include "pdctl/report/junit.hpp"

namespace pdctl::report {

std::string render_drill_text(const ops::DrillResult& result);
nlohmann::json drill_to_json(const ops::DrillResult& result);
JunitSuite drill_suite(const ops::DrillResult& result, double seconds);

}  // namespace pdctl::report
