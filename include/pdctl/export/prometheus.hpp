#pragma once
// `pdctl export prometheus`: the deployment as Prometheus sees it (docs/prometheus.md). Pure: from the
// validated config and its plan to three YAML texts; touches no node.
//
//   config  prometheus.yml: one scrape job per kind (SGLang rank 0 of every group on its API port,
//           the router's metrics listener, the Mooncake master's metrics port), every target labelled
//           cluster / role / group / node / rank, and `rule_files` naming the rules file;
//   rules   alert rules: a target down, KV transfer or bootstrap failures rising, a queue growing, the
//           router with no healthy prefill or decode;
//   tests   a `promtool test rules` file for those rules, made for this cluster's own labels, so an
//           operator can prove the alerts fire before they need them.

#include <chrono>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::exporter {

struct PrometheusOptions {
    std::chrono::milliseconds scrape_interval{std::chrono::seconds(15)};
    std::chrono::milliseconds evaluation_interval{std::chrono::seconds(15)};
    // The range of the rules' increase() and deriv(): how long a failure keeps its alert firing.
    std::chrono::milliseconds window{std::chrono::minutes(5)};
    // `for:` of the alerts about a state (down, no healthy worker, a growing queue): how long it must
    // hold before it pages. Failures (a counter rising) fire at once.
    std::chrono::milliseconds hold{std::chrono::minutes(1)};
    std::string rules_file = "pdctl-alerts.yml";  // as `rule_files:` names it, beside prometheus.yml
};

// One scrape target, as the config lists it (also what `--json` and the tests read).
struct PrometheusTarget {
    std::string job;      // pd-<cluster>-sglang | -router | -mooncake-master
    std::string address;  // host:port
    std::string role;     // the `roles:` key
    std::string group;    // the stage ("decode-2")
    std::string node;
    int rank = 0;
};

struct PrometheusExport {
    std::string config;
    std::string rules;
    std::string tests;
    std::vector<PrometheusTarget> targets;
    // What the configuration cannot scrape as the cluster file stands (MiniLB has no metrics, an SGLang
    // group without --enable-metrics answers 404), each naming what to change.
    std::vector<std::string> notes;
};

PrometheusExport prometheus_export(const plan::Plan& plan, const PrometheusOptions& options);

}  // namespace pdctl::exporter
