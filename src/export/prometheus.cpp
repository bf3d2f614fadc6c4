#include "pdctl/export/prometheus.hpp"

#include <fmt/format.h>

#include "pdctl/config/duration.hpp"
#include "pdctl/export/yaml_text.hpp"
#include "pdctl/util/strings.hpp"
#include "prometheus_probes.hpp"
#include "prometheus_rules.hpp"
#include "prometheus_targets.hpp"

namespace pdctl::exporter {
namespace {

using std::chrono::milliseconds;

Tree label_tree(const LabelList& labels) {
    Tree tree = Tree::object();
    for (const auto& [name, value] : labels) tree[name] = value;
    return tree;
}

std::string header(const plan::Plan& plan, const std::string& what, const std::vector<std::string>& notes) {
    auto text = fmt::format("# {} for cluster {} ({}), by `pdctl export prometheus`.\n", what, plan.cluster,
                            plan.config_path);
    for (const auto& note : notes) text += "# note: " + note + "\n";
    return text;
}

Tree labels_of(const std::string& cluster, const std::string& role, const std::string& group,
               const std::string& node, int rank) {
    return label_tree({{"cluster", cluster},
                       {"role", role},
                       {"group", group},
                       {"node", node},
                       {"rank", std::to_string(rank)}});
}

Tree static_entry(const std::string& address, Tree labels) {
    Tree entry;
    entry["targets"] = Tree::array({address});
    entry["labels"] = std::move(labels);
    return entry;
}

std::string config_text(const plan::Plan& plan, const ScrapePlan& scrape, const PrometheusOptions& options) {
    Tree config;
    config["global"]["scrape_interval"] = config::format_duration(options.scrape_interval);
    config["global"]["evaluation_interval"] = config::format_duration(options.evaluation_interval);
    config["rule_files"] = Tree::array({options.rules_file});
    Tree alertmanager;
    alertmanager["static_configs"] =
        Tree::array({Tree{{"targets", Tree::array({options.alertmanager_address})}}});
    config["alerting"]["alertmanagers"] = Tree::array({std::move(alertmanager)});
    Tree jobs = Tree::array();
    for (const auto& job : {sglang_job(plan.cluster), router_job(plan.cluster), master_job(plan.cluster)}) {
        Tree targets = Tree::array();
        for (const auto& target : scrape.targets)
            if (target.job == job)
                targets.push_back(static_entry(
                    target.address,
                    labels_of(plan.cluster, target.role, target.group, target.node, target.rank)));
        if (targets.empty()) continue;
        Tree scrape_job;
        scrape_job["job_name"] = job;
        scrape_job["metrics_path"] = "/metrics";
        scrape_job["static_configs"] = std::move(targets);
        jobs.push_back(std::move(scrape_job));
    }
    for (const auto& [job, module] : {std::pair{rank_probe_job(plan.cluster), kPortModule},
                                      std::pair{router_health_job(plan.cluster), kHealthModule},
                                      std::pair{router_generate_job(plan.cluster), kGenerateModule}}) {
        Tree targets = Tree::array();
        for (const auto& probe : scrape.probes)
            if (probe.job == job)
                targets.push_back(static_entry(
                    probe.target, labels_of(plan.cluster, probe.role, probe.group, probe.node, probe.rank)));
        if (targets.empty()) continue;
        Tree probe_job;
        probe_job["job_name"] = job;
        make_probe_job(probe_job, module, options);
        probe_job["static_configs"] = std::move(targets);
        jobs.push_back(std::move(probe_job));
    }
    config["scrape_configs"] = std::move(jobs);
    return header(plan, "Scrape configuration", scrape.notes) + to_yaml(config);
}

Tree annotations(const AlertRule& rule, const LabelList* labels) {
    Tree tree;
    tree["summary"] = labels ? render_annotation(rule.summary, *labels) : rule.summary;
    tree["description"] = labels ? render_annotation(rule.description, *labels) : rule.description;
    return tree;
}

std::string rules_text(const plan::Plan& plan, const std::vector<AlertRule>& rules) {
    Tree list = Tree::array();
    for (const auto& rule : rules) {
        Tree entry;
        entry["alert"] = rule.name;
        entry["expr"] = rule.expr;
        if (rule.hold.count() > 0) entry["for"] = config::format_duration(rule.hold);
        entry["labels"]["severity"] = rule.severity;
        entry["annotations"] = annotations(rule, nullptr);
        list.push_back(std::move(entry));
    }
    Tree group;
    group["name"] = "pdctl-" + plan.cluster;
    group["rules"] = std::move(list);
    Tree document;
    document["groups"] = Tree::array({std::move(group)});
    return header(plan, "Alert rules", {}) + to_yaml(document);
}

std::string series_text(const TestSeries& series) {
    std::vector<std::string> matchers;
    for (const auto& [name, value] : series.labels) matchers.push_back(fmt::format("{}=\"{}\"", name, value));
    return series.metric + "{" + util::join(matchers, ",") + "}";
}

// The test's series: ten good samples (0 s to 9 s, one a second), then the fault from 10 s for
// longer than the rule's hold and window together.
constexpr long long kGoodSamples = 10;

std::string values_text(const AlertRule& rule, bool faulty, long long fault_samples) {
    const auto good = rule.shape == FaultShape::Down ? "1" : "0";
    if (!faulty) return fmt::format("{}x{}", good, kGoodSamples + fault_samples);
    switch (rule.shape) {
        case FaultShape::Down:
            return fmt::format("1x{} 0x{}", kGoodSamples - 1, fault_samples);
        case FaultShape::Rise:
            return fmt::format("0x{} 1x{}", kGoodSamples - 1, fault_samples);
        case FaultShape::Grow:
            return fmt::format("0x{} 1+1x{}", kGoodSamples - 1, fault_samples);
    }
    return "";
}

Tree rule_test(const AlertRule& rule, const PrometheusOptions& options, bool masked) {
    using std::chrono::duration_cast;
    using std::chrono::seconds;
    const auto hold_s = duration_cast<seconds>(rule.hold).count();
    const auto fault_samples = hold_s + duration_cast<seconds>(options.window).count() + 30;
    Tree inputs = Tree::array();
    for (const auto& series : rule.series) {
        Tree input;
        input["series"] = series_text(series);
        input["values"] = values_text(rule, series.masks ? masked : series.faulty, fault_samples);
        inputs.push_back(std::move(input));
    }
    Tree before;
    before["eval_time"] = "5s";
    before["alertname"] = rule.name;
    before["exp_alerts"] = Tree::array();
    Tree after;
    after["eval_time"] = fmt::format("{}s", kGoodSamples + hold_s + 5);
    after["alertname"] = rule.name;
    if (masked) {
        after["exp_alerts"] = Tree::array();
    } else {
        Tree expected;
        expected["exp_labels"] = label_tree(rule.expected);
        expected["exp_annotations"] = annotations(rule, &rule.expected);
        after["exp_alerts"] = Tree::array({std::move(expected)});
    }
    Tree test;
    test["name"] = rule.name + (masked ? ": silent when what masks it fails too"
                                       : ": silent before its fault, firing after it");
    test["interval"] = "1s";  // promtool 2.42 has no default for it
    test["input_series"] = std::move(inputs);
    test["alert_rule_test"] = Tree::array({std::move(before), std::move(after)});
    return test;
}

std::string tests_text(const plan::Plan& plan, const std::vector<AlertRule>& rules,
                       const PrometheusOptions& options) {
    Tree tests = Tree::array();
    for (const auto& rule : rules) {
        tests.push_back(rule_test(rule, options, false));
        bool masked = false;
        for (const auto& series : rule.series) masked = masked || series.masks;
        if (masked) tests.push_back(rule_test(rule, options, true));
    }
    Tree document;
    document["rule_files"] = Tree::array({options.rules_file});
    document["evaluation_interval"] = "1s";
    document["tests"] = std::move(tests);
    return header(plan, "promtool tests of the alert rules (`promtool test rules` on this file)", {}) +
           to_yaml(document);
}

}  // namespace

PrometheusExport prometheus_export(const plan::Plan& plan, const PrometheusOptions& options) {
    const auto scrape = scrape_plan(plan);
    const auto rules = alert_rules(scrape, plan.cluster, options);
    PrometheusExport exported;
    exported.config = config_text(plan, scrape, options);
    exported.rules = rules_text(plan, rules);
    exported.tests = tests_text(plan, rules, options);
    exported.blackbox = blackbox_config(header(plan, "prometheus-blackbox-exporter modules", {}));
    exported.alertmanager =
        alertmanager_config(header(plan, "Alertmanager configuration", {}), plan.cluster, options);
    exported.targets = scrape.targets;
    exported.probes = scrape.probes;
    exported.notes = scrape.notes;
    return exported;
}

}  // namespace pdctl::exporter
