#pragma once
// What `pdctl export prometheus` says besides the files themselves: its --json document (the targets,
// probes and notes, and each file's text) and the line after `-o DIR` wrote them.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/export/prometheus.hpp"
#include "pdctl/ops/export.hpp"

namespace pdctl::report {

nlohmann::json prometheus_export_to_json(const exporter::PrometheusExport& exported);
// "wrote DIR/{prometheus.yml, ...}: N targets scraped, M probed; check with `promtool ...`", a line.
std::string render_prometheus_written(const ops::PrometheusFiles& files,
                                      const exporter::PrometheusExport& exported);

}  // namespace pdctl::report
