// pdctl export k8s --format lws|rbg [-o FILE]: the deployment as Kubernetes manifests;
// pdctl export prometheus [-o DIR]: its scrape configuration, alert rules and their promtool tests,
// the blackbox exporter's modules and an Alertmanager configuration.
// Both touch no node.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "context.hpp"
#include "duration_flag.hpp"
#include "pdctl/export/k8s_manifests.hpp"
#include "pdctl/export/prometheus.hpp"
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
    // The manifests are YAML, which is what kubectl applies; YAML where --json was asked for would break
    // the script that asked, so it is refused rather than ignored.
    if (global.json)
        throw Failure(ExitCode::kUsage,
                      "export k8s writes Kubernetes YAML manifests; it has no --json output",
                      "leave out --json: `kubectl apply -f` takes the YAML as it is");
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

struct PrometheusFlags {
    std::string output_dir;  // -o: write the three files there
    std::string print = "config";
    std::string scrape_interval = "15s";
    std::string evaluation_interval = "15s";
    std::string window = "5m";
    std::string hold = "1m";
    exporter::PrometheusOptions addresses;  // --blackbox, --alertmanager, --webhook
};

// The three files -o writes, by the names the config and the tests refer to each other with.
constexpr const char* kConfigFile = "prometheus.yml";
constexpr const char* kTestsFile = "pdctl-alerts.test.yml";
constexpr const char* kBlackboxFile = "blackbox.yml";
constexpr const char* kAlertmanagerFile = "alertmanager.yml";

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw Failure(ExitCode::kUsage, "cannot write " + path.string());
}

ExitCode export_prometheus_command(const GlobalOptions& global, const PrometheusFlags& flags) {
    auto options = flags.addresses;
    options.scrape_interval = parse_duration_flag("--scrape-interval", flags.scrape_interval);
    options.evaluation_interval = parse_duration_flag("--evaluation-interval", flags.evaluation_interval);
    options.window = parse_duration_flag("--window", flags.window);
    options.hold = parse_duration_flag("--for", flags.hold, ZeroDuration::kAllowed);
    if (options.window < options.scrape_interval * 2)
        throw Failure(ExitCode::kUsage, "--window must hold at least two scrapes (2 x --scrape-interval)",
                      "increase() and deriv() need two samples in their range");
    const auto context = load_context(global, Purpose::kPlanOnly);
    const auto exported = exporter::prometheus_export(context.plan, options);
    for (const auto& text :
         {exported.config, exported.rules, exported.tests, exported.blackbox, exported.alertmanager})
        if (context.redactor.redact(text) != text)
            throw Failure(ExitCode::kInternal,
                          "a secret value reached the Prometheus files; nothing was written");
    // What is not scraped, and why, is part of the answer (a /metrics that answers 404 is configuration,
    // not an outage), so it is printed whatever the verbosity; --json carries it as `notes`.
    if (!global.json)
        for (const auto& note : exported.notes) report::write_text(stderr, "note: " + note + "\n");
    if (global.json) {
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
        report::write_text(stdout, doc.dump(2) + "\n");
    }
    if (flags.output_dir.empty()) {
        if (global.json) return ExitCode::kOk;
        if (flags.print == "config")
            report::write_text(stdout, exported.config);
        else if (flags.print == "rules")
            report::write_text(stdout, exported.rules);
        else if (flags.print == "tests")
            report::write_text(stdout, exported.tests);
        else if (flags.print == "blackbox")
            report::write_text(stdout, exported.blackbox);
        else if (flags.print == "alertmanager")
            report::write_text(stdout, exported.alertmanager);
        else
            throw Failure(
                ExitCode::kUsage,
                "--print takes config, rules, tests, blackbox or alertmanager, not '" + flags.print + "'");
        return ExitCode::kOk;
    }
    const std::filesystem::path dir(flags.output_dir);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw Failure(ExitCode::kUsage, "cannot create " + dir.string() + ": " + error.message());
    write_file(dir / kConfigFile, exported.config);
    write_file(dir / options.rules_file, exported.rules);
    write_file(dir / kTestsFile, exported.tests);
    write_file(dir / kBlackboxFile, exported.blackbox);
    write_file(dir / kAlertmanagerFile, exported.alertmanager);
    if (!global.json)
        report::write_text(
            stderr, fmt::format("wrote {}/{{{}, {}, {}, {}, {}}}: {} targets scraped, {} probed; check with "
                                "`promtool check config {}/{}` and `promtool test rules {}/{}`\n",
                                dir.string(), kConfigFile, options.rules_file, kTestsFile, kBlackboxFile,
                                kAlertmanagerFile, exported.targets.size(), exported.probes.size(),
                                dir.string(), kConfigFile, dir.string(), kTestsFile));
    return ExitCode::kOk;
}

}  // namespace

void add_export_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand("export", "the deployment in another system's terms: k8s, prometheus");
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
