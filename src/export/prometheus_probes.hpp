#pragma once
// The blackbox probes of `export prometheus` (export/prometheus.hpp): what cannot be scraped (MiniLB,
// SGLang without --enable-metrics) or what a scrape cannot tell (whether the router serves) is
// watched by Debian's prometheus-blackbox-exporter, which Prometheus asks to probe each target.

#include <string>
#include <vector>

#include "pdctl/export/prometheus.hpp"
#include "pdctl/export/yaml_text.hpp"

namespace pdctl::exporter {

// The modules blackbox.yml defines and the probe jobs name.
inline constexpr const char* kPortModule = "pd_tcp_connect";          // a rank's port accepts connections
inline constexpr const char* kHealthModule = "pd_http_health";        // GET answers 2xx
inline constexpr const char* kGenerateModule = "pd_router_generate";  // POST of one token answers text

// One job per module (a job's params name one module), prefixed by the cluster like the scrape jobs.
std::string rank_probe_job(const std::string& cluster);
std::string router_health_job(const std::string& cluster);
std::string router_generate_job(const std::string& cluster);

// Every rank's port, ranks >= 1 included: their dummy health server is the only sign they live.
ProbeTarget rank_probe(const plan::Plan& plan, const plan::Stage& stage, const plan::Unit& unit,
                       const std::string& address);
// The router's /health (is it there) and a one-token /generate through it (does the PD path serve).
std::vector<ProbeTarget> router_probes(const plan::Plan& plan, const plan::Stage& stage);

// What a probe job adds to a scrape job: the exporter's /probe path, the module, and the standard
// relabelling (the target becomes ?target= and the instance; the exporter becomes the address).
void make_probe_job(Tree& job, const std::string& module, const PrometheusOptions& options);

// blackbox.yml: the three modules. `header` heads it (comment lines).
std::string blackbox_config(const std::string& header);

// alertmanager.yml: every alert to one webhook receiver, resolved ones too. `header` heads it.
std::string alertmanager_config(const std::string& header, const std::string& cluster,
                                const PrometheusOptions& options);

}  // namespace pdctl::exporter
