#pragma once
// Internal to status: `status --metrics` scrapes each role's Prometheus page (an sglang group's rank
// 0, the Mooncake master's metrics port) and keeps the numbers operators watch, by SGLang's and
// Mooncake's own names.

#include <optional>

#include "pdctl/engine/status.hpp"
#include "pdctl/health/http_prober.hpp"

namespace pdctl::engine {

// The page's URL for a stage, or nothing for the kinds pdctl does not scrape (routers, generic).
std::optional<std::string> metrics_url(const plan::Stage& stage);

RoleMetrics scrape_metrics(const plan::Stage& stage, const std::string& url, health::HttpProber& prober);

}  // namespace pdctl::engine
