// alertmanager.yml of `export prometheus` (export/prometheus_probes.hpp).
#include "pdctl/config/duration.hpp"
#include "prometheus_probes.hpp"

namespace pdctl::exporter {

std::string alertmanager_config(const std::string& header, const std::string& cluster,
                                const PrometheusOptions& options) {
    const auto receiver = "pd-" + cluster + "-webhook";
    Tree route;
    route["receiver"] = receiver;
    // One notification per alert and rank: a second rank failing must not wait for the first one's
    // group to come round again (group_interval).
    route["group_by"] = Tree::array({"alertname", "cluster", "group", "node", "rank"});
    // Batching longer than one rule evaluation only delays the page: a group's other alerts arrive
    // within one evaluation of the first.
    route["group_wait"] = config::format_duration(options.evaluation_interval);
    route["group_interval"] = "1m";
    route["repeat_interval"] = "4h";
    Tree webhook;
    webhook["url"] = options.webhook_url;
    webhook["send_resolved"] = true;
    Tree entry;
    entry["name"] = receiver;
    entry["webhook_configs"] = Tree::array({std::move(webhook)});
    Tree document;
    document["route"] = std::move(route);
    document["receivers"] = Tree::array({std::move(entry)});
    return header + to_yaml(document);
}

}  // namespace pdctl::exporter
