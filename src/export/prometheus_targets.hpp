#pragma once
// What Prometheus watches of each stage, read from the plan (export/prometheus.hpp): the metrics
// endpoints that answer, scraped; the blackbox probes, for what has none and for what a scrape cannot
// tell; and what is left unscraped, with the reason.

#include <string>
#include <vector>

#include "pdctl/export/prometheus.hpp"

namespace pdctl::exporter {

// What the rules need to know of the router: which worker URLs are prefill and which decode, and
// which metrics (if any) say whether the router counts them healthy.
struct RouterWorkersView {
    std::string router_role;                // the router's stage, "" when the plan has no router
    std::string health_metric;              // smg_worker_health | sgl_router_worker_health | "" (MiniLB)
    std::vector<std::string> prefill_urls;  // as the router was given them
    std::vector<std::string> decode_urls;
    std::vector<std::string> prefill_groups;  // the stages, for MiniLB's rule on the groups' own probes
    std::vector<std::string> decode_groups;
};

struct ScrapePlan {
    std::vector<PrometheusTarget> targets;
    std::vector<ProbeTarget> probes;
    // Each endpoint with no /metrics to scrape, and why: "prefill (SGLang without --enable-metrics:
    // /metrics answers 404)". One note says them all.
    std::vector<std::string> unscraped;
    bool sglang_unscraped = false;  // a group's KV transfer and queue metrics cannot be read
    std::vector<std::string> notes;
    RouterWorkersView router;
};

ScrapePlan scrape_plan(const plan::Plan& plan);

// Job names: one per kind of target, prefixed by the cluster so that two clusters' exports can share
// one Prometheus (job names must be unique in it).
std::string sglang_job(const std::string& cluster);
std::string router_job(const std::string& cluster);
std::string master_job(const std::string& cluster);

// http://host:port/path -> host:port; host:port -> host, port.
std::string host_port(const std::string& url);
std::string host_of(const std::string& host_port_text);
std::string port_of(const std::string& host_port_text);

}  // namespace pdctl::exporter
