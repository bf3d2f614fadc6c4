// The alert rules on the blackbox probes (export/prometheus_rules.hpp). They hold whether or not the
// programs export metrics, so they are the alerts every deployment has.
#include <fmt/format.h>

#include <tuple>

#include "pdctl/config/duration.hpp"
#include "prometheus_probes.hpp"
#include "prometheus_rules.hpp"

namespace pdctl::exporter {
namespace {

const ProbeTarget* first_probe(const ScrapePlan& scrape, const std::string& job, int min_rank = 0) {
    for (const auto& probe : scrape.probes)
        if (probe.job == job && probe.rank >= min_rank) return &probe;
    return nullptr;
}

std::string probe_success(const std::string& cluster, const std::string& job) {
    return fmt::format("probe_success{{cluster=\"{}\",job=\"{}\"}}", promql_text(cluster), promql_text(job));
}

AlertRule down_rule(std::string name, std::string expr, const ProbeTarget& sample, const std::string& cluster,
                    const PrometheusOptions& options) {
    AlertRule rule;
    rule.name = std::move(name);
    rule.expr = std::move(expr);
    rule.hold = options.hold;
    rule.severity = "critical";
    rule.shape = FaultShape::Down;
    const auto labels = probe_labels(sample, cluster);
    rule.series = {{"probe_success", labels, true}};
    rule.expected = with(labels, {{"severity", "critical"}});
    return rule;
}

}  // namespace

void add_probe_rules(const ScrapePlan& scrape, const std::string& cluster, const PrometheusOptions& options,
                     std::vector<AlertRule>& rules) {
    const auto hold = config::format_duration(options.hold);
    // The test's rank is one of the ranks >= 1 where there is one: they are what nothing else watches.
    const auto* rank = first_probe(scrape, rank_probe_job(cluster), 1);
    if (!rank) rank = first_probe(scrape, rank_probe_job(cluster));
    if (rank) {
        auto rule = down_rule("PDRankDown", probe_success(cluster, rank_probe_job(cluster)) + " == 0", *rank,
                              cluster, options);
        rule.summary =
            "{{ $labels.group }} rank {{ $labels.rank }} on {{ $labels.node }} is gone: its port "
            "is closed ({{ $labels.instance }})";
        rule.description = fmt::format(
            "Nothing has accepted a connection on the rank's port for {}: its process exited or stopped "
            "listening, and a group serves only with every rank. `pdctl status --role {{{{ $labels.group "
            "}}}}` shows the rank; `pdctl logs {{{{ $labels.group }}}} --rank {{{{ $labels.rank }}}}` says "
            "why; `pdctl heal` restarts the group.",
            hold);
        rules.push_back(std::move(rule));
    }
    const auto* health = first_probe(scrape, router_health_job(cluster));
    const auto* generate = first_probe(scrape, router_generate_job(cluster));
    if (!health || !generate) return;
    auto down = down_rule("PDRouterDown", probe_success(cluster, router_health_job(cluster)) + " == 0",
                          *health, cluster, options);
    down.summary =
        "{{ $labels.group }} on {{ $labels.node }} does not answer /health ({{ $labels.instance }})";
    down.description = fmt::format(
        "The router's /health has not answered 200 for {}: it is gone, hung or unreachable, and no request "
        "reaches the groups. `pdctl status --role {{{{ $labels.group }}}}` says which; `pdctl heal` "
        "restarts it.",
        hold);
    rules.push_back(std::move(down));

    // A router that is down fails this probe too; PDRouterDown says that, so this one keeps quiet.
    auto serving = down_rule("PDRouterNotServing",
                             fmt::format("({} == 0) unless on (cluster, group) ({} == 0)",
                                         probe_success(cluster, router_generate_job(cluster)),
                                         probe_success(cluster, router_health_job(cluster))),
                             *generate, cluster, options);
    serving.summary = "{{ $labels.group }} answers /health but cannot generate ({{ $labels.instance }})";
    serving.description = fmt::format(
        "A one-token POST /generate through the router has failed for {} while its /health answers: "
        "clients' requests fail (no prefill or decode to send to, a broken KV path, or a wait longer "
        "than the probe's timeout). `pdctl smoke` shows the answer; `pdctl status` the groups.",
        hold);
    serving.series.push_back({"probe_success", probe_labels(*health, cluster), false, true});
    rules.push_back(std::move(serving));
}

void add_minilb_worker_rules(const ScrapePlan& scrape, const std::string& cluster,
                             const PrometheusOptions& options, std::vector<AlertRule>& rules) {
    const auto& router = scrape.router;
    // SMG and sglang-router say it from their own metrics (prometheus_rules.cpp).
    if (router.router_role.empty() || !router.health_metric.empty()) return;
    for (const auto& [type, groups] : {std::tuple{std::string("prefill"), router.prefill_groups},
                                       std::tuple{std::string("decode"), router.decode_groups}}) {
        if (groups.empty()) continue;
        AlertRule rule;
        rule.name = type == "prefill" ? "PDRouterNoHealthyPrefill" : "PDRouterNoHealthyDecode";
        // MiniLB exports nothing: no group of the type with its rank 0 listening is the nearest sign.
        rule.expr = fmt::format(
            "max by (cluster) (probe_success{{cluster=\"{}\",job=\"{}\",rank=\"0\",group=~\"{}\"}}) < 1",
            promql_text(cluster), promql_text(rank_probe_job(cluster)), promql_text(any_of(groups)));
        rule.hold = options.hold;
        rule.severity = "critical";
        rule.summary = fmt::format("{} has no healthy {} worker", router.router_role, type);
        rule.description = fmt::format(
            "No {} group's rank 0 accepts connections, so MiniLB (which has no metrics of its own and keeps "
            "its worker list from launch) has none to send requests to. `pdctl status` names the groups; "
            "`pdctl heal` restarts them.",
            type);
        for (const auto& probe : scrape.probes) {
            if (probe.job != rank_probe_job(cluster) || probe.rank != 0) continue;
            bool of_type = false;
            for (const auto& group : groups) of_type = of_type || group == probe.group;
            rule.series.push_back({"probe_success", probe_labels(probe, cluster), of_type});
        }
        rule.shape = FaultShape::Down;
        rule.expected = {{"cluster", cluster}, {"severity", "critical"}};
        rules.push_back(std::move(rule));
    }
}

void add_blackbox_down_rule(const ScrapePlan& scrape, const std::string& cluster,
                            const PrometheusOptions& options, std::vector<AlertRule>& rules) {
    if (scrape.probes.empty()) return;
    AlertRule rule;
    rule.name = "PDBlackboxDown";
    // Every probe's scrape failing is the exporter, not the probed: a dead rank fails its probe
    // (probe_success 0), not the scrape.
    rule.expr = fmt::format("max by (cluster) (up{{cluster=\"{}\",job=~\"{}\"}}) < 1", promql_text(cluster),
                            promql_text(any_of({rank_probe_job(cluster), router_health_job(cluster),
                                                router_generate_job(cluster)})));
    rule.hold = options.hold;
    rule.severity = "critical";
    rule.summary = "the blackbox exporter does not answer Prometheus";
    rule.description = fmt::format(
        "No probe of this cluster has been scraped for {}: the blackbox exporter at {} is down or "
        "unreachable, and PDRankDown, PDRouterDown and PDRouterNotServing cannot fire. Start "
        "prometheus-blackbox-exporter with the exported blackbox.yml.",
        config::format_duration(options.hold), options.blackbox_address);
    for (const auto& probe : scrape.probes) rule.series.push_back({"up", probe_labels(probe, cluster), true});
    rule.shape = FaultShape::Down;
    rule.expected = {{"cluster", cluster}, {"severity", "critical"}};
    rules.push_back(std::move(rule));
}

}  // namespace pdctl::exporter
