#pragma once
// `pdctl config show|restore`: a run's kept config, as text or JSON.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/ops/config_history.hpp"

namespace pdctl::report {

// Each file under a `# PATH` line, after a header naming the run and the config's ID.
std::string render_kept_config_text(const ops::KeptConfig& kept, const std::vector<ops::ShownFile>& files);
nlohmann::json kept_config_to_json(const ops::KeptConfig& kept, const std::vector<ops::ShownFile>& files);

std::string render_restored_text(const ops::KeptConfig& kept, const std::string& entry);
nlohmann::json restored_to_json(const ops::KeptConfig& kept, const std::string& entry);

}  // namespace pdctl::report
