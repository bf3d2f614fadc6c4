#pragma once
// The alert rules of `export prometheus`, each with the promtool test that proves it fires on its
// fault and stays silent before it (export/prometheus.hpp).

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "prometheus_targets.hpp"

namespace pdctl::exporter {

using LabelList = std::vector<std::pair<std::string, std::string>>;

// How a test series moves once its fault begins: 1 then 0 (down), 0 then 1 (a counter rising by one),
// 0 then growing by one per sample (a queue).
enum class FaultShape { Down, Rise, Grow };

struct TestSeries {
    std::string metric;
    LabelList labels;
    bool faulty = true;  // false: stays as it was (another worker that keeps working)
};

struct AlertRule {
    std::string name;
    std::string expr;
    std::chrono::milliseconds hold{0};  // `for:`
    std::string severity;               // critical | warning
    std::string summary;                // may hold {{ $labels.NAME }}
    std::string description;
    // Its promtool test.
    FaultShape shape = FaultShape::Down;
    std::vector<TestSeries> series;
    LabelList expected;  // the alert's labels when it fires (severity included)
};

std::vector<AlertRule> alert_rules(const ScrapePlan& scrape, const std::string& cluster,
                                   const PrometheusOptions& options);

// `{{ $labels.NAME }}` replaced by the label's value, as Prometheus renders an annotation.
std::string render_annotation(const std::string& text, const LabelList& labels);

}  // namespace pdctl::exporter
