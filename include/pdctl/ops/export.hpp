#pragma once
// `pdctl export k8s` and `pdctl export prometheus`: the deployment in another system's terms (export/),
// checked to hold no secret value before anything is printed or written, and the files written. Touch
// no node.

#include <string>
#include <vector>

#include "pdctl/export/k8s_manifests.hpp"
#include "pdctl/export/prometheus.hpp"
#include "pdctl/ops/deployment.hpp"

namespace pdctl::ops {

struct K8sRequest {
    std::string format;               // lws | rbg
    std::vector<std::string> images;  // IMAGE (the default) | ROLE=IMAGE
    std::string secret_name;
    std::string kube_namespace;
};
// Throws Failure (usage) for another format, an --image that is neither IMAGE nor ROLE=IMAGE, or a
// second default image.
exporter::K8sOptions k8s_options(const K8sRequest& request);
// Throws Failure (internal) when a secret value reached the manifests: the builder writes Secret
// references only, so the manifests are wrong, and printing them redacted would hide that.
exporter::K8sManifests export_k8s(const Deployment& deployment, const exporter::K8sOptions& options);

// Throws Failure (usage) for a window that holds fewer than two scrapes: increase() and deriv() need two.
void check_prometheus_options(const exporter::PrometheusOptions& options);
// Throws Failure (internal) when a secret value reached any of the files.
exporter::PrometheusExport export_prometheus(const Deployment& deployment,
                                             const exporter::PrometheusOptions& options);

// The files `export prometheus -o DIR` writes, by the names the config and the tests refer to each other
// with.
struct PrometheusFiles {
    std::string dir;
    std::string config = "prometheus.yml";
    std::string rules;  // PrometheusOptions::rules_file
    std::string tests = "pdctl-alerts.test.yml";
    std::string blackbox = "blackbox.yml";
    std::string alertmanager = "alertmanager.yml";
};
// Creates `dir` when missing. Throws Failure (usage) for a directory or file it cannot write.
PrometheusFiles write_prometheus_files(const std::string& dir, const exporter::PrometheusExport& exported,
                                       const exporter::PrometheusOptions& options);

// `text` as the whole of `path`. Throws Failure (usage) when it cannot be written.
void write_export_file(const std::string& path, const std::string& text);

}  // namespace pdctl::ops
