#pragma once
// `pdctl smoke`: one line per check for people ("✓ health_generate prefill rank0 on n1: 200 in 812 ms"),
// one JSON document for programs.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/ops/smoke.hpp"
#include "pdctl/report/junit.hpp"

namespace pdctl::report {

using ops::SmokeCheck;

std::string render_smoke_check_line(const SmokeCheck& check);
// {"ok", "checks": [...]}, and the last check (the /generate through the router) at the top level too,
// as the document was before the health checks were added.
nlohmann::json smoke_to_json(const std::vector<SmokeCheck>& checks);
// One JUnit test case per check, its latency as its time (smoke --junit).
JunitSuite smoke_to_junit(const std::vector<SmokeCheck>& checks, const std::string& timestamp,
                          double seconds);

}  // namespace pdctl::report
