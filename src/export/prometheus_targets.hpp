#pragma once
// Which endpoint of each stage Prometheus scrapes, read from the plan (export/prometheus.hpp).

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
    std::vector<std::string> prefill_groups;  // the stages, for MiniLB's rule on the groups' own scrapes
    std::vector<std::string> decode_groups;
};

struct ScrapePlan {
    std::vector<PrometheusTarget> targets;
    std::vector<std::string> notes;
    RouterWorkersView router;
};

ScrapePlan scrape_plan(const plan::Plan& plan);

// Job names: one per kind of target, prefixed by the cluster so that two clusters' exports can share
// one Prometheus (job names must be unique in it).
std::string sglang_job(const std::string& cluster);
std::string router_job(const std::string& cluster);
std::string master_job(const std::string& cluster);

}  // namespace pdctl::exporter
