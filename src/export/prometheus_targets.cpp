#include "prometheus_targets.hpp"

#include <optional>
#include <string_view>

#include "pdctl/util/strings.hpp"
#include "prometheus_probes.hpp"

namespace pdctl::exporter {
namespace {

// The value of `--flag V` or `--flag=V` in a program's words; the router's flags also come with a
// `--router-` prefix when the router runs inside another launcher.
std::optional<std::string> flag_value(const std::vector<std::string>& words, const std::string& flag) {
    const auto prefixed = "--router-" + flag.substr(2);
    for (std::size_t i = 0; i < words.size(); ++i) {
        for (const auto& name : {flag, prefixed}) {
            if (words[i] == name && i + 1 < words.size()) return words[i + 1];
            if (words[i].rfind(name + "=", 0) == 0) return words[i].substr(name.size() + 1);
        }
    }
    return std::nullopt;
}

bool has_word(const std::vector<std::string>& words, const std::string& word) {
    for (const auto& candidate : words)
        if (candidate == word || candidate == word + "=true" || candidate == word + "=True") return true;
    return false;
}

PrometheusTarget target_of(const plan::Stage& stage, const plan::Unit& unit, std::string job,
                           std::string address) {
    return {std::move(job), std::move(address), stage.config_role, stage.role, unit.node, unit.rank};
}

// Where a rank of an SGLang group listens: rank 0 where its gate looks; the others (SGLang's dummy
// health server on the same --port) at their own node's compute address.
std::string rank_address(const plan::Stage& stage, const plan::Unit& unit) {
    auto rank0 = host_port(stage.gate.url);
    if (unit.rank == 0) return rank0;
    const auto& host = unit.compute_address.empty() ? unit.address : unit.compute_address;
    return host + ":" + port_of(rank0);
}

void add_sglang(const plan::Plan& plan, const plan::Stage& stage, ScrapePlan& scrape) {
    for (const auto& unit : stage.units)
        scrape.probes.push_back(rank_probe(plan, stage, unit, rank_address(stage, unit)));
    // Without --enable-metrics SGLang mounts no /metrics: a scrape would answer 404 for as long as the
    // group runs, which Prometheus records as a target down. Such a group is probed, never scraped.
    if (!has_word(stage.units.front().run, "--enable-metrics")) {
        scrape.unscraped.push_back(stage.role + " (SGLang without --enable-metrics: /metrics answers 404)");
        scrape.sglang_unscraped = true;
        return;
    }
    // Every rank: rank 0 exports the schedulers' metrics; with DP attention the other nodes' attention
    // TP rank 0 schedulers export theirs from their own node's dummy health server (same port).
    for (const auto& unit : stage.units)
        scrape.targets.push_back(target_of(stage, unit, sglang_job(plan.cluster), rank_address(stage, unit)));
}

void add_router(const plan::Plan& plan, const plan::Stage& stage, ScrapePlan& scrape) {
    const auto& facts = *stage.router;
    auto& view = scrape.router;
    view.router_role = stage.role;
    for (const auto& worker : facts.workers) {
        (worker.type == "prefill" ? view.prefill_urls : view.decode_urls).push_back(worker.url);
        (worker.type == "prefill" ? view.prefill_groups : view.decode_groups).push_back(worker.stage);
    }
    for (auto& probe : router_probes(plan, stage)) scrape.probes.push_back(std::move(probe));
    if (facts.impl == config::RouterImpl::MiniLb) {
        scrape.unscraped.push_back(stage.role + " (MiniLB has no /metrics)");
        return;
    }
    const auto& words = stage.units.front().run;
    view.health_metric =
        facts.impl == config::RouterImpl::Smg ? "smg_worker_health" : "sgl_router_worker_health";
    const auto port = flag_value(words, "--prometheus-port").value_or("29000");
    auto host = flag_value(words, "--prometheus-host");
    if (!host && facts.impl == config::RouterImpl::SglangRouter)
        scrape.notes.push_back(stage.role +
                               ": sglang-router binds its metrics to 127.0.0.1 unless --prometheus-host is "
                               "given; add `--prometheus-host 0.0.0.0` to its args for a remote Prometheus");
    // A wildcard bind is reached at the router's own address.
    if (!host || *host == "0.0.0.0" || *host == "::" || *host == "[::]") host = host_of(host_port(facts.url));
    scrape.targets.push_back(
        target_of(stage, stage.units.front(), router_job(plan.cluster), *host + ":" + port));
}

}  // namespace

std::string host_port(const std::string& url) {
    auto rest = std::string_view(url);
    if (const auto scheme = rest.find("://"); scheme != std::string_view::npos)
        rest.remove_prefix(scheme + 3);
    return std::string(rest.substr(0, rest.find('/')));
}

std::string host_of(const std::string& host_port_text) {
    const auto colon = host_port_text.rfind(':');
    return colon == std::string::npos ? host_port_text : host_port_text.substr(0, colon);
}

std::string port_of(const std::string& host_port_text) {
    const auto colon = host_port_text.rfind(':');
    return colon == std::string::npos ? "" : host_port_text.substr(colon + 1);
}

std::string sglang_job(const std::string& cluster) {
    return "pd-" + cluster + "-sglang";
}
std::string router_job(const std::string& cluster) {
    return "pd-" + cluster + "-router";
}
std::string master_job(const std::string& cluster) {
    return "pd-" + cluster + "-mooncake-master";
}

ScrapePlan scrape_plan(const plan::Plan& plan) {
    ScrapePlan scrape;
    for (const auto& stage : plan.stages) {
        if (stage.units.empty()) continue;
        switch (stage.kind) {
            case config::RoleKind::Sglang:
                add_sglang(plan, stage, scrape);
                break;
            case config::RoleKind::Router:
                if (stage.router) add_router(plan, stage, scrape);
                break;
            case config::RoleKind::MooncakeMaster:
                // Its gate is /health on the metrics port, which also serves /metrics.
                scrape.targets.push_back(target_of(stage, stage.units.front(), master_job(plan.cluster),
                                                   host_port(stage.gate.url)));
                break;
            default:
                break;
        }
    }
    if (!scrape.unscraped.empty())
        scrape.notes.insert(
            scrape.notes.begin(),
            "not scraped: " + util::join(scrape.unscraped, ", ") +
                "; the blackbox probes watch them (PDRankDown, PDRouterDown, PDRouterNotServing)" +
                (scrape.sglang_unscraped
                     ? "; the KV transfer, bootstrap and queue alerts need --enable-metrics "
                       "in those groups' args"
                     : ""));
    return scrape;
}

}  // namespace pdctl::exporter
