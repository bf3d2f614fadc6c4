#include "pdctl/ops/export.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

exporter::K8sOptions k8s_options(const K8sRequest& request) {
    exporter::K8sOptions k8s;
    const auto format = exporter::parse_k8s_format(request.format);
    if (!format) throw Failure(ExitCode::kUsage, "--format takes lws or rbg, not '" + request.format + "'");
    k8s.format = *format;
    for (const auto& image : request.images) {
        const auto eq = image.find('=');
        // An image reference never holds `=`, so ROLE=IMAGE is unambiguous.
        if (eq == std::string::npos) {
            if (!k8s.image.empty() && k8s.image != image)
                throw Failure(ExitCode::kUsage,
                              "--image " + image + ": a default image was already given (" + k8s.image + ")",
                              "give one --image IMAGE, and --image ROLE=IMAGE for the roles that differ");
            k8s.image = image;
        } else if (eq == 0 || eq + 1 == image.size()) {
            throw Failure(ExitCode::kUsage, "--image " + image + ": expected IMAGE or ROLE=IMAGE");
        } else {
            k8s.role_images[image.substr(0, eq)] = image.substr(eq + 1);
        }
    }
    k8s.secret_name = request.secret_name;
    k8s.kube_namespace = request.kube_namespace;
    return k8s;
}

exporter::K8sManifests export_k8s(const Deployment& deployment, const exporter::K8sOptions& options) {
    auto manifests = exporter::k8s_manifests(deployment.cluster, deployment.plan, options);
    if (deployment.redactor.redact(manifests.yaml) != manifests.yaml)
        throw Failure(ExitCode::kInternal, "a secret value reached the manifests; nothing was written");
    return manifests;
}

void check_prometheus_options(const exporter::PrometheusOptions& options) {
    if (options.window < options.scrape_interval * 2)
        throw Failure(ExitCode::kUsage, "--window must hold at least two scrapes (2 x --scrape-interval)",
                      "increase() and deriv() need two samples in their range");
}

exporter::PrometheusExport export_prometheus(const Deployment& deployment,
                                             const exporter::PrometheusOptions& options) {
    auto exported = exporter::prometheus_export(deployment.plan, options);
    for (const auto& text :
         {exported.config, exported.rules, exported.tests, exported.blackbox, exported.alertmanager})
        if (deployment.redactor.redact(text) != text)
            throw Failure(ExitCode::kInternal,
                          "a secret value reached the Prometheus files; nothing was written");
    return exported;
}

void write_export_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw Failure(ExitCode::kUsage, "cannot write " + path);
}

PrometheusFiles write_prometheus_files(const std::string& dir, const exporter::PrometheusExport& exported,
                                       const exporter::PrometheusOptions& options) {
    PrometheusFiles files;
    files.dir = dir;
    files.rules = options.rules_file;
    const std::filesystem::path root(dir);
    std::error_code error;
    std::filesystem::create_directories(root, error);
    if (error) throw Failure(ExitCode::kUsage, "cannot create " + root.string() + ": " + error.message());
    write_export_file((root / files.config).string(), exported.config);
    write_export_file((root / files.rules).string(), exported.rules);
    write_export_file((root / files.tests).string(), exported.tests);
    write_export_file((root / files.blackbox).string(), exported.blackbox);
    write_export_file((root / files.alertmanager).string(), exported.alertmanager);
    return files;
}

}  // namespace pdctl::ops
