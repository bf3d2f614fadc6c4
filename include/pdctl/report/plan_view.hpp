#pragma once
// `pdctl plan start|stop|restart`: the stages, and for every node the exact command, env and gate.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/plan/plan.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

// verb: start | stop | restart. Secrets appear as [REDACTED] in both forms.
std::string render_plan_text(const plan::Plan& plan, const std::string& verb);
nlohmann::json plan_to_json(const plan::Plan& plan, const std::string& verb);

}  // namespace pdctl::report
