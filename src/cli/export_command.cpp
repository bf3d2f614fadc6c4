// pdctl export k8s --format lws|rbg [-o FILE]: the deployment as Kubernetes manifests;
// pdctl export prometheus [-o DIR]: its scrape configuration, alert rules and their promtool tests,
// the blackbox exporter's modules and an Alertmanager configuration.
// Both touch no node.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "context.hpp"
#include "duration_flag.hpp"
#include "pdctl/ops/export.hpp"
#include "pdctl/report/export_view.hpp"
#include "pdctl/report/output.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode export_k8s_command(const GlobalOptions& global, const ops::K8sRequest& request,
                            const std::string& output) {
    // The manifests are YAML, which is what kubectl applies; YAML where --json was asked for would break
    // the script that asked, so it is refused rather than ignored.
    if (global.json)
        throw Failure(ExitCode::kUsage,
                      "export k8s writes Kubernetes YAML manifests; it has no --json output",
                      "leave out --json: `kubectl apply -f` takes the YAML as it is");
    const auto k8s = ops::k8s_options(request);
    const auto context = load_context(global, Purpose::kPlanOnly);
    const auto manifests = ops::export_k8s(context, k8s);
    for (const auto& note : manifests.notes) spdlog::info("note: {}", note);
    if (output.empty() || output == "-") {
        report::write_text(stdout, manifests.yaml);
        return ExitCode::kOk;
    }
    ops::write_export_file(output, manifests.yaml);
    report::write_text(stderr,
                       fmt::format("wrote {} ({} notes in its header)\n", output, manifests.notes.size()));
    return ExitCode::kOk;
}

struct K8sFlags {
    ops::K8sRequest request;
    std::string output;  // -o: a file instead of stdout
};

struct PrometheusFlags {
    std::string output_dir;  // -o: write the files there
    std::string print = "config";
    std::string scrape_interval = "15s";
    std::string evaluation_interval = "15s";
    std::string window = "5m";
    std::string hold = "1m";
    exporter::PrometheusOptions addresses;  // --blackbox, --alertmanager, --webhook
};

// Without -o: the one file --print names.
const std::string& printed_file(const exporter::PrometheusExport& exported, const std::string& print) {
    if (print == "config") return exported.config;
    if (print == "rules") return exported.rules;
    if (print == "tests") return exported.tests;
    if (print == "blackbox") return exported.blackbox;
    if (print == "alertmanager") return exported.alertmanager;
    throw Failure(ExitCode::kUsage,
                  "--print takes config, rules, tests, blackbox or alertmanager, not '" + print + "'");
}

ExitCode export_prometheus_command(const GlobalOptions& global, const PrometheusFlags& flags) {
    auto options = flags.addresses;
    options.scrape_interval = parse_duration_flag("--scrape-interval", flags.scrape_interval);
    options.evaluation_interval = parse_duration_flag("--evaluation-interval", flags.evaluation_interval);
    options.window = parse_duration_flag("--window", flags.window);
    options.hold = parse_duration_flag("--for", flags.hold, ZeroDuration::kAllowed);
    ops::check_prometheus_options(options);
    const auto context = load_context(global, Purpose::kPlanOnly);
    const auto exported = ops::export_prometheus(context, options);
    // What is not scraped, and why, is part of the answer (a /metrics that answers 404 is configuration,
    // not an outage), so it is printed whatever the verbosity; --json carries it as `notes`.
    if (!global.json)
        for (const auto& note : exported.notes) report::write_text(stderr, "note: " + note + "\n");
    if (global.json) report::write_text(stdout, report::prometheus_export_to_json(exported).dump(2) + "\n");
    if (flags.output_dir.empty()) {
        if (global.json) return ExitCode::kOk;
        report::write_text(stdout, printed_file(exported, flags.print));
        return ExitCode::kOk;
    }
    const auto files = ops::write_prometheus_files(flags.output_dir, exported, options);
    if (!global.json) report::write_text(stderr, report::render_prometheus_written(files, exported));
    return ExitCode::kOk;
}

}  // namespace

void add_export_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand("export", "the deployment in another system's terms: k8s, prometheus");
    command->require_subcommand(1);
    auto options = std::make_shared<K8sFlags>();
    auto* k8s = command->add_subcommand(
        "k8s",
        "Kubernetes manifests: a LeaderWorkerSet per SGLang group, or one RoleBasedGroup; touches no node");
    k8s->add_option(
           "--format", options->request.format,
           "lws: LeaderWorkerSets + Deployments + Services; rbg: one RoleBasedGroup with dependencies")
        ->required()
        ->type_name("lws|rbg");
    k8s->add_option("-o,--output", options->output, "write the manifests to FILE instead of stdout")
        ->type_name("FILE");
    k8s->add_option("--image", options->request.images,
                    "IMAGE: the image of roles that run as processes (they have none in the config); "
                    "ROLE=IMAGE: that role's image (repeatable)")
        ->type_name("IMAGE");
    k8s->add_option("--secret-name", options->request.secret_name,
                    "the Secret the secret env values are read from (default: <cluster>-secrets)")
        ->type_name("NAME");
    k8s->add_option("-n,--namespace", options->request.kube_namespace,
                    "metadata.namespace of every object (default: none)")
        ->type_name("NAMESPACE");
    k8s->fallthrough();
    verbs.add(k8s, [options](const GlobalOptions& global) {
        return export_k8s_command(global, options->request, options->output);
    });

    auto flags = std::make_shared<PrometheusFlags>();
    auto* prometheus = command->add_subcommand(
        "prometheus",
        "a Prometheus scrape configuration (the metrics that answer, blackbox probes of the router and every "
        "rank), alert rules, their promtool tests, blackbox exporter modules and an Alertmanager "
        "configuration; touches no node");
    prometheus
        ->add_option("-o,--output-dir", flags->output_dir,
                     "write prometheus.yml, pdctl-alerts.yml, pdctl-alerts.test.yml, blackbox.yml and "
                     "alertmanager.yml into DIR")
        ->type_name("DIR");
    prometheus->add_option("--print", flags->print, "without -o: which file to print (default config)")
        ->type_name("config|rules|tests|blackbox|alertmanager");
    prometheus
        ->add_option("--scrape-interval", flags->scrape_interval, "global scrape_interval (default 15s)")
        ->type_name("DURATION");
    prometheus
        ->add_option("--evaluation-interval", flags->evaluation_interval,
                     "global evaluation_interval (default 15s)")
        ->type_name("DURATION");
    prometheus
        ->add_option(
            "--window", flags->window,
            "range of the rules' increase() and deriv(): how long a failure keeps its alert (default 5m)")
        ->type_name("DURATION");
    prometheus
        ->add_option("--for", flags->hold,
                     "how long a state (down, no healthy worker, a growing queue) holds before its alert "
                     "fires (default 1m)")
        ->type_name("DURATION");
    prometheus
        ->add_option("--blackbox", flags->addresses.blackbox_address,
                     "where Prometheus reaches prometheus-blackbox-exporter (default 127.0.0.1:9115)")
        ->type_name("HOST:PORT");
    prometheus
        ->add_option("--alertmanager", flags->addresses.alertmanager_address,
                     "where Prometheus sends alerts (default 127.0.0.1:9093)")
        ->type_name("HOST:PORT");
    prometheus
        ->add_option("--webhook", flags->addresses.webhook_url,
                     "the URL alertmanager.yml delivers every alert to (default http://127.0.0.1:5001/)")
        ->type_name("URL");
    prometheus->fallthrough();
    verbs.add(prometheus,
              [flags](const GlobalOptions& global) { return export_prometheus_command(global, *flags); });
}

}  // namespace pdctl::cli
