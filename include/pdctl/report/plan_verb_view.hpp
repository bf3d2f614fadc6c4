#pragma once
// What `pdctl plan` prints of ops::plan_verb's answer: the rolling steps, or the plan with where its
// learned deadlines come from, what moves along with the scope, and how each node is reached.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/plan_verb.hpp"

namespace pdctl::report {

// Ends with a newline. Secrets appear as they are: the caller redacts.
std::string render_planned_verb_text(const ops::PlannedVerb& planned, const std::string& verb);
nlohmann::json planned_verb_to_json(const ops::PlannedVerb& planned, const std::string& verb);

}  // namespace pdctl::report
