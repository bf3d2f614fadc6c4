// blackbox.yml of `export prometheus` (export/prometheus_probes.hpp).
#include "prometheus_probes.hpp"

namespace pdctl::exporter {

std::string blackbox_config(const std::string& header) {
    Tree modules;
    // A closed port is what a dead rank leaves; ranks >= 1 serve nothing but a dummy /health.
    modules[kPortModule]["prober"] = "tcp";
    modules[kPortModule]["timeout"] = "5s";
    modules[kHealthModule]["prober"] = "http";
    modules[kHealthModule]["timeout"] = "5s";
    modules[kHealthModule]["http"]["method"] = "GET";
    modules[kHealthModule]["http"]["valid_status_codes"] = Tree::array({200});
    // MiniLB's /health is 200 while it has no worker to send to: only a generation says it serves. One
    // output token keeps the probe's cost to one short request per scrape.
    auto& generate = modules[kGenerateModule];
    generate["prober"] = "http";
    generate["timeout"] = "10s";
    generate["http"]["method"] = "POST";
    generate["http"]["headers"]["Content-Type"] = "application/json";
    generate["http"]["body"] = R"({"text":"ping","sampling_params":{"max_new_tokens":1}})";
    generate["http"]["valid_status_codes"] = Tree::array({200});
    generate["http"]["fail_if_body_not_matches_regexp"] = Tree::array({R"("text")"});
    Tree document;
    document["modules"] = std::move(modules);
    return header + to_yaml(document);
}

}  // namespace pdctl::exporter
