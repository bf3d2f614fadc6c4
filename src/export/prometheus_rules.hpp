#pragma once
// The alert rules of `export prometheus`, each with the promtool test that proves it fires on its
// fault and stays silent before it (export/prometheus.hpp).

#include <chrono>
#include <string>
#include <string_view>
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
    // A series whose own fault silences the rule (a scrape that fails because the rank's port is closed
    // is PDRankDown's to say): good in the rule's test, faulty too in a second test that expects
    // silence. Down-shaped, like the rules that have one.
    bool masks = false;
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

// The rules on the blackbox probes (prometheus_probe_rules.cpp): a rank's port closed, the router
// gone or not serving; MiniLB's no-healthy-worker rules, read from the groups' rank-0 ports; the
// probes themselves blind.
void add_probe_rules(const ScrapePlan& scrape, const std::string& cluster, const PrometheusOptions& options,
                     std::vector<AlertRule>& rules);
void add_minilb_worker_rules(const ScrapePlan& scrape, const std::string& cluster,
                             const PrometheusOptions& options, std::vector<AlertRule>& rules);
void add_blackbox_down_rule(const ScrapePlan& scrape, const std::string& cluster,
                            const PrometheusOptions& options, std::vector<AlertRule>& rules);

// PromQL pieces both rule files use.
std::string promql_text(std::string_view text);              // a string literal's content, escaped
std::string any_of(const std::vector<std::string>& values);  // a regex matching exactly one of them
LabelList target_labels(const PrometheusTarget& target, const std::string& cluster);  // as scraped
LabelList probe_labels(const ProbeTarget& probe, const std::string& cluster);         // as probed
LabelList with(LabelList labels, const LabelList& more);

// `{{ $labels.NAME }}` replaced by the label's value, as Prometheus renders an annotation.
std::string render_annotation(const std::string& text, const LabelList& labels);

}  // namespace pdctl::exporter
