#include "prometheus_rules.hpp"

#include <fmt/format.h>

#include <tuple>

#include "pdctl/config/duration.hpp"
#include "pdctl/util/strings.hpp"
#include "prometheus_probes.hpp"

namespace pdctl::exporter {
namespace {

// A regular expression that matches exactly `text` (RE2 syntax), for a `=~` matcher.
std::string regex_literal(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

LabelList only(const LabelList& labels, const std::vector<std::string>& names) {
    LabelList kept;
    for (const auto& name : names)
        for (const auto& [key, value] : labels)
            if (key == name) kept.emplace_back(key, value);
    return kept;
}

const PrometheusTarget* first_of(const ScrapePlan& scrape, const std::string& job) {
    for (const auto& target : scrape.targets)
        if (target.job == job) return &target;
    return nullptr;
}

// The probe that says whether a scraped target's process is there at all: its rank's port, or the
// router's /health.
const ProbeTarget* liveness_probe(const ScrapePlan& scrape, const PrometheusTarget& target,
                                  const std::string& cluster) {
    for (const auto& probe : scrape.probes)
        if ((probe.job == rank_probe_job(cluster) || probe.job == router_health_job(cluster)) &&
            probe.group == target.group && probe.node == target.node && probe.rank == target.rank)
            return &probe;
    return nullptr;
}

const std::vector<std::string> kByGroup = {"cluster", "role", "group", "node"};

// A scrape fails: a process that answers its probe but not its scrape is hung or its metrics broke.
// When the probe fails too, PDRankDown or PDRouterDown says so, and this rule stays silent.
AlertRule target_down_rule(const ScrapePlan& scrape, const std::string& cluster,
                           const PrometheusOptions& options) {
    const auto hold = config::format_duration(options.hold);
    AlertRule down;
    down.name = "PDTargetDown";
    const auto scraped = any_of({sglang_job(cluster), router_job(cluster), master_job(cluster)});
    const auto liveness = any_of({rank_probe_job(cluster), router_health_job(cluster)});
    down.expr = fmt::format(
        "(up{{cluster=\"{0}\",job=~\"{1}\"}} == 0) unless on (cluster, group, node, rank) "
        "(probe_success{{cluster=\"{0}\",job=~\"{2}\"}} == 0)",
        promql_text(cluster), promql_text(scraped), promql_text(liveness));
    down.hold = options.hold;
    down.severity = "critical";
    down.summary =
        "{{ $labels.group }} on {{ $labels.node }} does not answer its scrape ({{ $labels.instance }})";
    down.description = fmt::format(
        "Its metrics scrape failed for {}: the process is hung or unreachable, or its /metrics broke (a "
        "rank whose port is closed is PDRankDown's). `pdctl status --role {{{{ $labels.group }}}}` says "
        "which; `pdctl heal` restarts what is down.",
        hold);
    down.shape = FaultShape::Down;
    // The test's target: one whose probe can mask it, so that the masking is tested too.
    const auto* sample = &scrape.targets.front();
    for (const auto& target : scrape.targets)
        if (liveness_probe(scrape, target, cluster)) {
            sample = &target;
            break;
        }
    const auto labels = target_labels(*sample, cluster);
    down.series = {{"up", labels, true}};
    if (const auto* probe = liveness_probe(scrape, *sample, cluster))
        down.series.push_back({"probe_success", probe_labels(*probe, cluster), false, true});
    down.expected = with(labels, {{"severity", "critical"}});
    return down;
}

// A counter that SGLang's rank 0 exports rising within the window: every increase is a failed request.
AlertRule counter_rule(const std::string& name, const std::string& metric, const std::string& what,
                       const std::string& severity, const PrometheusTarget& sample,
                       const std::string& cluster, const PrometheusOptions& options) {
    AlertRule rule;
    rule.name = name;
    rule.expr = fmt::format("sum by (cluster, role, group, node) (increase({}{{cluster=\"{}\"}}[{}])) > 0",
                            metric, promql_text(cluster), config::format_duration(options.window));
    rule.severity = severity;
    rule.summary = what + " on {{ $labels.group }} ({{ $labels.node }})";
    rule.description = fmt::format(
        "{} rose within the last {}: requests failed. `pdctl logs --role {{{{ $labels.group }}}}` names "
        "the error; `pdctl bench --soak` reproduces it under load.",
        metric, config::format_duration(options.window));
    rule.shape = FaultShape::Rise;
    // SGLang's own labels come along with the target's; the rule sums them away.
    const auto labels = with(target_labels(sample, cluster),
                             {{"engine_type", sample.role}, {"model_name", "m"}, {"tp_rank", "0"}});
    rule.series = {{metric, labels, true}};
    rule.expected = with(only(labels, kByGroup), {{"severity", severity}});
    return rule;
}

AlertRule queue_rule(const PrometheusTarget& sglang, const std::string& cluster,
                     const PrometheusOptions& options) {
    const auto cluster_matcher = fmt::format("cluster=\"{}\"", promql_text(cluster));
    AlertRule queue;
    queue.name = "PDQueueGrowing";
    const std::string by_group = "sum by (cluster, role, group, node)";
    queue.expr = fmt::format(
        "{0} (sglang:num_queue_reqs{{{1}}}) > 0 and {0} (deriv(sglang:num_queue_reqs{{{1}}}[{2}])) > 0",
        by_group, cluster_matcher, config::format_duration(options.window));
    queue.hold = options.hold;
    queue.severity = "warning";
    queue.summary = "requests queue up on {{ $labels.group }} ({{ $labels.node }})";
    queue.description = fmt::format(
        "Its waiting queue has grown for {}: more arrives than it serves. `pdctl status --metrics` shows "
        "the queues of every group; `pdctl bench --sweep` finds a P:D ratio that keeps up.",
        config::format_duration(options.hold));
    queue.shape = FaultShape::Grow;
    const auto labels =
        with(target_labels(sglang, cluster), {{"engine_type", sglang.role}, {"tp_rank", "0"}});
    queue.series = {{"sglang:num_queue_reqs", labels, true}};
    queue.expected = with(only(labels, kByGroup), {{"severity", "warning"}});
    return queue;
}

// SMG and sglang-router export per-worker health: none of a type healthy means every request fails.
void add_router_metric_rules(const ScrapePlan& scrape, const std::string& cluster,
                             const PrometheusOptions& options, std::vector<AlertRule>& rules) {
    const auto& router = scrape.router;
    const auto* router_target = first_of(scrape, router_job(cluster));
    if (router.router_role.empty() || router.health_metric.empty() || !router_target) return;
    for (const auto& [type, urls, others] :
         {std::tuple{std::string("prefill"), router.prefill_urls, router.decode_urls},
          std::tuple{std::string("decode"), router.decode_urls, router.prefill_urls}}) {
        if (urls.empty()) continue;
        AlertRule rule;
        rule.name = type == "prefill" ? "PDRouterNoHealthyPrefill" : "PDRouterNoHealthyDecode";
        rule.hold = options.hold;
        rule.severity = "critical";
        rule.summary = fmt::format("{} has no healthy {} worker", router.router_role, type);
        rule.expr = fmt::format("max by (cluster) ({}{{cluster=\"{}\",worker=~\"{}\"}}) < 1",
                                router.health_metric, promql_text(cluster), promql_text(any_of(urls)));
        rule.description = fmt::format(
            "The router counts none of its {} workers healthy: every request fails. `pdctl status` "
            "names the groups; `pdctl heal` restarts them and puts the router's list right.",
            type);
        const auto labels = target_labels(*router_target, cluster);
        for (const auto& url : urls)
            rule.series.push_back({router.health_metric, with(labels, {{"worker", url}}), true});
        for (const auto& url : others)
            rule.series.push_back({router.health_metric, with(labels, {{"worker", url}}), false});
        rule.shape = FaultShape::Down;
        rule.expected = {{"cluster", cluster}, {"severity", "critical"}};
        rules.push_back(std::move(rule));
    }
}

}  // namespace

std::string promql_text(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\' || c == '"') out += '\\';
        out += c;
    }
    return out;
}

std::string any_of(const std::vector<std::string>& values) {
    std::vector<std::string> escaped;
    for (const auto& value : values) escaped.push_back(regex_literal(value));
    return util::join(escaped, "|");
}

LabelList target_labels(const PrometheusTarget& target, const std::string& cluster) {
    return {{"job", target.job},
            {"instance", target.address},
            {"cluster", cluster},
            {"role", target.role},
            {"group", target.group},
            {"node", target.node},
            {"rank", std::to_string(target.rank)}};
}

LabelList probe_labels(const ProbeTarget& probe, const std::string& cluster) {
    return {{"job", probe.job},
            {"instance", probe.target},
            {"cluster", cluster},
            {"role", probe.role},
            {"group", probe.group},
            {"node", probe.node},
            {"rank", std::to_string(probe.rank)}};
}

LabelList with(LabelList labels, const LabelList& more) {
    labels.insert(labels.end(), more.begin(), more.end());
    return labels;
}

std::string render_annotation(const std::string& text, const LabelList& labels) {
    auto out = text;
    for (const auto& [name, value] : labels) {
        const auto placeholder = "{{ $labels." + name + " }}";
        for (auto at = out.find(placeholder); at != std::string::npos;
             at = out.find(placeholder, at + value.size()))
            out.replace(at, placeholder.size(), value);
    }
    return out;
}

std::vector<AlertRule> alert_rules(const ScrapePlan& scrape, const std::string& cluster,
                                   const PrometheusOptions& options) {
    std::vector<AlertRule> rules;
    add_probe_rules(scrape, cluster, options, rules);
    if (!scrape.targets.empty()) rules.push_back(target_down_rule(scrape, cluster, options));
    if (const auto* sglang = first_of(scrape, sglang_job(cluster))) {
        rules.push_back(counter_rule("PDKVTransferFailures", "sglang:num_transfer_failed_reqs_total",
                                     "KV transfers failing", "critical", *sglang, cluster, options));
        rules.push_back(counter_rule("PDBootstrapFailures", "sglang:num_bootstrap_failed_reqs_total",
                                     "PD bootstrap failing", "warning", *sglang, cluster, options));
        rules.push_back(queue_rule(*sglang, cluster, options));
    }
    add_router_metric_rules(scrape, cluster, options, rules);
    add_minilb_worker_rules(scrape, cluster, options, rules);
    add_blackbox_down_rule(scrape, cluster, options, rules);
    return rules;
}

}  // namespace pdctl::exporter
