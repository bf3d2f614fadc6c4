#pragma once
// `pdctl cache status` for people (a table per node and role) and for programs (JSON).

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/kernel_cache.hpp"

namespace pdctl::report {

std::string render_cache_status_text(const ops::CacheReport& report);
nlohmann::json cache_status_to_json(const ops::CacheReport& report);
std::string render_cache_spread_text(const ops::CacheSpreadResult& result);
nlohmann::json cache_spread_to_json(const ops::CacheSpreadResult& result);

}  // namespace pdctl::report
