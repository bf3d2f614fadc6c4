#pragma once
// `pdctl export prometheus`: the deployment as Prometheus sees it (docs/prometheus.md). Pure: from the
// validated config and its plan to five YAML texts; touches no node.
//
//   config        prometheus.yml: one scrape job per kind of metrics endpoint that answers (every rank
//                 of an SGLang group run with --enable-metrics, the router's metrics listener, the
//                 Mooncake master), one job per blackbox probe (the router's /health and a one-token
//                 /generate, every rank's port), every target labelled cluster / role / group / node /
//                 rank; `rule_files` and the Alertmanager to send to;
//   rules         alert rules: a rank's port or the router gone, the router not serving, a scrape
//                 failing while its process answers, KV transfer or bootstrap failures rising, a queue
//                 growing, the router with no healthy prefill or decode;
//   tests         a `promtool test rules` file for those rules, made for this cluster's own labels, so
//                 an operator can prove the alerts fire before they need them;
//   blackbox      the modules of Debian's prometheus-blackbox-exporter that the probe jobs name;
//   alertmanager  an Alertmanager configuration that sends every alert to one webhook.

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
    // Where Prometheus reaches the blackbox exporter and the Alertmanager (both usually beside it), and
    // where the Alertmanager delivers.
    std::string blackbox_address = "127.0.0.1:9115";
    std::string alertmanager_address = "127.0.0.1:9093";
    std::string webhook_url = "http://127.0.0.1:5001/";
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

// One blackbox probe: what the exporter checks for Prometheus, for what cannot be scraped (MiniLB, an
// SGLang group without --enable-metrics) and for what a scrape cannot tell (the router serving).
struct ProbeTarget {
    std::string job;     // pd-<cluster>-probe-ranks | -probe-router-health | -probe-router-generate
    std::string module;  // the blackbox module (blackbox.yml)
    std::string target;  // host:port for a TCP connect, the URL for an HTTP probe
    std::string role;
    std::string group;
    std::string node;
    int rank = 0;
};

struct PrometheusExport {
    std::string config;
    std::string rules;
    std::string tests;
    std::string blackbox;
    std::string alertmanager;
    std::vector<PrometheusTarget> targets;
    std::vector<ProbeTarget> probes;
    // What the configuration cannot scrape as the cluster file stands (one line naming every endpoint
    // whose /metrics answers 404 or does not exist, and what watches it instead), and what else to
    // change; each heads the files.
    std::vector<std::string> notes;
};

PrometheusExport prometheus_export(const plan::Plan& plan, const PrometheusOptions& options);

}  // namespace pdctl::exporter
