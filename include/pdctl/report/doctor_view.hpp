#pragma once
// The static doctor rules in front of start and restart (cli/doctor_gate.cpp): their errors and
// warnings as one JSON Lines event ahead of the run's own events, or as text for stderr; and, when
// errors refuse the start, why. `pdctl doctor`'s own report is doctor_report_view.hpp's.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/lint/rules.hpp"

namespace pdctl::report {

// lint::to_json's document plus "event": "doctor", "verb" and "refused" (any error).
nlohmann::json doctor_gate_event(const lint::Report& report, const std::string& verb);
// Errors and warnings only, without the closing summary lines.
std::string render_doctor_gate_text(const lint::Report& report);
// "pdctl: error: start refused: ..." and its hint, shaped like every other error pdctl prints.
std::string render_doctor_refusal(const lint::Report& report, const std::string& verb,
                                  const std::string& config_path);

}  // namespace pdctl::report
