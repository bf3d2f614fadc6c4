#include "pdctl/report/export_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {

nlohmann::json prometheus_export_to_json(const exporter::PrometheusExport& exported) {
    nlohmann::json doc;
    doc["targets"] = nlohmann::json::array();
    for (const auto& target : exported.targets)
        doc["targets"].push_back({{"job", target.job},
                                  {"address", target.address},
                                  {"role", target.role},
                                  {"group", target.group},
                                  {"node", target.node},
                                  {"rank", target.rank}});
    doc["probes"] = nlohmann::json::array();
    for (const auto& probe : exported.probes)
        doc["probes"].push_back({{"job", probe.job},
                                 {"module", probe.module},
                                 {"target", probe.target},
                                 {"role", probe.role},
                                 {"group", probe.group},
                                 {"node", probe.node},
                                 {"rank", probe.rank}});
    doc["notes"] = exported.notes;
    doc["config"] = exported.config;
    doc["rules"] = exported.rules;
    doc["tests"] = exported.tests;
    doc["blackbox"] = exported.blackbox;
    doc["alertmanager"] = exported.alertmanager;
    return doc;
}

std::string render_prometheus_written(const ops::PrometheusFiles& files,
                                      const exporter::PrometheusExport& exported) {
    return fmt::format(
        "wrote {}/{{{}, {}, {}, {}, {}}}: {} targets scraped, {} probed; check with "
        "`promtool check config {}/{}` and `promtool test rules {}/{}`\n",
        files.dir, files.config, files.rules, files.tests, files.blackbox, files.alertmanager,
        exported.targets.size(), exported.probes.size(), files.dir, files.config, files.dir, files.tests);
}

}  // namespace pdctl::report
