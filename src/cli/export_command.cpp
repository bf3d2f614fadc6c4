// pdctl export k8s --format lws|rbg [-o FILE]: the deployment as Kubernetes manifests; touches no node.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>

#include "context.hpp"
#include "pdctl/export/k8s_manifests.hpp"
#include "pdctl/report/output.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct ExportOptions {
    std::string format;
    std::string output;               // -o: a file instead of stdout
    std::vector<std::string> images;  // --image IMAGE | --image ROLE=IMAGE
    std::string secret_name;
    std::string kube_namespace;
};

exporter::K8sOptions k8s_options(const ExportOptions& options) {
    exporter::K8sOptions k8s;
    const auto format = exporter::parse_k8s_format(options.format);
    if (!format) throw Failure(ExitCode::kUsage, "--format takes lws or rbg, not '" + options.format + "'");
    k8s.format = *format;
    for (const auto& image : options.images) {
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
    k8s.secret_name = options.secret_name;
    k8s.kube_namespace = options.kube_namespace;
    return k8s;
}

ExitCode export_k8s_command(const GlobalOptions& global, const ExportOptions& options) {
    const auto k8s = k8s_options(options);
    const auto context = load_context(global, Purpose::kPlanOnly);
    const auto manifests = exporter::k8s_manifests(context.cluster, context.plan, k8s);
    // The builder never writes a secret value (Secret references only); should one ever get through,
    // the manifests are wrong, and printing them redacted would hide that.
    if (context.redactor.redact(manifests.yaml) != manifests.yaml)
        throw Failure(ExitCode::kInternal, "a secret value reached the manifests; nothing was written");
    for (const auto& note : manifests.notes) spdlog::info("note: {}", note);
    if (options.output.empty() || options.output == "-") {
        report::write_text(stdout, manifests.yaml);
        return ExitCode::kOk;
    }
    std::ofstream out(options.output, std::ios::binary | std::ios::trunc);
    out << manifests.yaml;
    out.close();
    if (!out) throw Failure(ExitCode::kUsage, "cannot write " + options.output);
    report::write_text(
        stderr, fmt::format("wrote {} ({} notes in its header)\n", options.output, manifests.notes.size()));
    return ExitCode::kOk;
}

}  // namespace

void add_export_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand("export", "the deployment in another system's terms: k8s");
    command->require_subcommand(1);
    auto options = std::make_shared<ExportOptions>();
    auto* k8s = command->add_subcommand(
        "k8s",
        "Kubernetes manifests: a LeaderWorkerSet per SGLang group, or one RoleBasedGroup; touches no node");
    k8s->add_option(
           "--format", options->format,
           "lws: LeaderWorkerSets + Deployments + Services; rbg: one RoleBasedGroup with dependencies")
        ->required()
        ->type_name("lws|rbg");
    k8s->add_option("-o,--output", options->output, "write the manifests to FILE instead of stdout")
        ->type_name("FILE");
    k8s->add_option("--image", options->images,
                    "IMAGE: the image of roles that run as processes (they have none in the config); "
                    "ROLE=IMAGE: that role's image (repeatable)")
        ->type_name("IMAGE");
    k8s->add_option("--secret-name", options->secret_name,
                    "the Secret the secret env values are read from (default: <cluster>-secrets)")
        ->type_name("NAME");
    k8s->add_option("-n,--namespace", options->kube_namespace,
                    "metadata.namespace of every object (default: none)")
        ->type_name("NAMESPACE");
    k8s->fallthrough();
    verbs.add(k8s, [options](const GlobalOptions& global) { return export_k8s_command(global, *options); });
}

}  // namespace pdctl::cli
