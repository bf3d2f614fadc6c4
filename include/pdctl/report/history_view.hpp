#pragma once
// `pdctl history`: past runs from the journal, as a table or a JSON document.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/state/journal.hpp"

namespace pdctl::report {

// `runs` newest first; `source` says where the journal was read ("n1:/var/lib/pdctl/x/journal.jsonl").
std::string render_history_text(const std::vector<state::journal::RunRecord>& runs,
                                const std::string& source);
nlohmann::json history_to_json(const std::vector<state::journal::RunRecord>& runs, const std::string& cluster,
                               const std::string& source);

}  // namespace pdctl::report
