#pragma once
// `pdctl diff`: per group, what runs against what the config says; secrets as changed/unchanged only.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/diff.hpp"

namespace pdctl::report {

std::string render_diff_text(const ops::DiffResult& result, const std::string& config_path);
nlohmann::json diff_to_json(const ops::DiffResult& result, const std::string& config_path);

}  // namespace pdctl::report
