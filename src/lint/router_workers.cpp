#include "router_workers.hpp"

#include "pdctl/lint/argv.hpp"

namespace pdctl::lint::detail {

std::vector<RouterWorker> router_workers(const plan::Unit& router) {
    std::vector<RouterWorker> workers;
    for (const auto mode : {config::SglangMode::Prefill, config::SglangMode::Decode}) {
        const auto flag = mode == config::SglangMode::Prefill ? "--prefill" : "--decode";
        for (const auto& words : flag_occurrences(router.program.argv, {flag})) {
            RouterWorker worker;
            worker.mode = mode;
            if (!words.empty()) worker.url = words[0];
            if (mode == config::SglangMode::Prefill && words.size() > 1) worker.bootstrap_port = words[1];
            workers.push_back(std::move(worker));
        }
    }
    return workers;
}

const plan::Unit* unit_serving(const plan::Plan& plan, const HttpUrl& url) {
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        for (const auto& unit : stage.units) {
            const auto endpoint = http_endpoint(unit);
            if (endpoint.port == url.port && same_host(endpoint.host, url.host)) return &unit;
        }
    }
    return nullptr;
}

std::vector<const plan::Unit*> router_units(const plan::Plan& plan) {
    std::vector<const plan::Unit*> routers;
    for (const auto& stage : plan.stages)
        if (stage.kind == config::RoleKind::Router && !stage.units.empty())
            routers.push_back(&stage.units.front());
    return routers;
}

}  // namespace pdctl::lint::detail
