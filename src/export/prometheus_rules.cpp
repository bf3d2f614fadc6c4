#include "prometheus_rules.hpp"

#include <fmt/format.h>

#include <string_view>
#include <tuple>

#include "pdctl/config/duration.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::exporter {
namespace {

// A PromQL string literal's content: backslash and double quote escaped.
std::string promql_text(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\' || c == '"') out += '\\';
        out += c;
    }
    return out;
}

// A regular expression that matches exactly `text` (RE2 syntax), for a `=~` matcher.
std::string regex_literal(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

std::string any_of(const std::vector<std::string>& values) {
    std::vector<std::string> escaped;
    for (const auto& value : values) escaped.push_back(regex_literal(value));
    return util::join(escaped, "|");
}

// The labels Prometheus attaches to every sample of a target (job and instance included).
LabelList target_labels(const PrometheusTarget& target, const std::string& cluster) {
    return {{"job", target.job},
            {"instance", target.address},
            {"cluster", cluster},
            {"role", target.role},
            {"group", target.group},
            {"node", target.node},
            {"rank", std::to_string(target.rank)}};
}

LabelList with(LabelList labels, const LabelList& more) {
    labels.insert(labels.end(), more.begin(), more.end());
    return labels;
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

const std::vector<std::string> kByGroup = {"cluster", "role", "group", "node"};

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

}  // namespace

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
    const auto cluster_matcher = fmt::format("cluster=\"{}\"", promql_text(cluster));
    const auto hold = config::format_duration(options.hold);

    if (!scrape.targets.empty()) {
        AlertRule down;
        down.name = "PDTargetDown";
        down.expr = fmt::format("up{{{}}} == 0", cluster_matcher);
        down.hold = options.hold;
        down.severity = "critical";
        down.summary = "{{ $labels.group }} on {{ $labels.node }} does not answer ({{ $labels.instance }})";
        down.description = fmt::format(
            "Its metrics scrape failed for {}: the process is gone, hung or unreachable. `pdctl status "
            "--role {{{{ $labels.group }}}}` says which; `pdctl heal` restarts what is down.",
            hold);
        down.shape = FaultShape::Down;
        const auto labels = target_labels(scrape.targets.front(), cluster);
        down.series = {{"up", labels, true}};
        down.expected = with(labels, {{"severity", "critical"}});
        rules.push_back(std::move(down));
    }

    if (const auto* sglang = first_of(scrape, sglang_job(cluster))) {
        rules.push_back(counter_rule("PDKVTransferFailures", "sglang:num_transfer_failed_reqs_total",
                                     "KV transfers failing", "critical", *sglang, cluster, options));
        rules.push_back(counter_rule("PDBootstrapFailures", "sglang:num_bootstrap_failed_reqs_total",
                                     "PD bootstrap failing", "warning", *sglang, cluster, options));

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
            hold);
        queue.shape = FaultShape::Grow;
        const auto labels =
            with(target_labels(*sglang, cluster), {{"engine_type", sglang->role}, {"tp_rank", "0"}});
        queue.series = {{"sglang:num_queue_reqs", labels, true}};
        queue.expected = with(only(labels, kByGroup), {{"severity", "warning"}});
        rules.push_back(std::move(queue));
    }

    const auto& router = scrape.router;
    if (!router.router_role.empty()) {
        const auto* router_target = first_of(scrape, router_job(cluster));
        const auto* sglang = first_of(scrape, sglang_job(cluster));
        for (const auto& [type, urls, groups] :
             {std::tuple{std::string("prefill"), router.prefill_urls, router.prefill_groups},
              std::tuple{std::string("decode"), router.decode_urls, router.decode_groups}}) {
            if (urls.empty()) continue;
            AlertRule rule;
            rule.name = type == "prefill" ? "PDRouterNoHealthyPrefill" : "PDRouterNoHealthyDecode";
            rule.hold = options.hold;
            rule.severity = "critical";
            rule.summary = fmt::format("{} has no healthy {} worker", router.router_role, type);
            if (!router.health_metric.empty() && router_target) {
                rule.expr = fmt::format("max by (cluster) ({}{{{},worker=~\"{}\"}}) < 1",
                                        router.health_metric, cluster_matcher, promql_text(any_of(urls)));
                rule.description = fmt::format(
                    "The router counts none of its {} workers healthy: every request fails. `pdctl status` "
                    "names the groups; `pdctl heal` restarts them and puts the router's list right.",
                    type);
                const auto labels = target_labels(*router_target, cluster);
                for (const auto& url : urls)
                    rule.series.push_back({router.health_metric, with(labels, {{"worker", url}}), true});
                const auto& others = type == "prefill" ? router.decode_urls : router.prefill_urls;
                for (const auto& url : others)
                    rule.series.push_back({router.health_metric, with(labels, {{"worker", url}}), false});
            } else if (sglang) {
                // MiniLB exports nothing: no group of the type answering its own scrape is the nearest sign.
                rule.expr =
                    fmt::format("max by (cluster) (up{{{},job=\"{}\",group=~\"{}\"}}) < 1", cluster_matcher,
                                promql_text(sglang_job(cluster)), promql_text(any_of(groups)));
                rule.description = fmt::format(
                    "No {} group answers its metrics scrape, so MiniLB (which has no metrics of its own) has "
                    "none to send requests to. `pdctl status` names the groups; `pdctl heal` restarts them.",
                    type);
                for (const auto& target : scrape.targets) {
                    if (target.job != sglang_job(cluster)) continue;
                    bool of_type = false;
                    for (const auto& group : groups) of_type = of_type || group == target.group;
                    rule.series.push_back({"up", target_labels(target, cluster), of_type});
                }
            } else {
                continue;
            }
            rule.shape = FaultShape::Down;
            rule.expected = {{"cluster", cluster}, {"severity", "critical"}};
            rules.push_back(std::move(rule));
        }
    }
    return rules;
}

}  // namespace pdctl::exporter
