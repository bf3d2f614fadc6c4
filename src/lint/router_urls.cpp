// PD009: the router must get each group's rank-0 URL at an address every decode node can reach.
// Only rank 0 serves real requests (ranks >= 1 run SGLang's launch_dummy_health_check_server), and the
// router hands the prefill URL's host to decode as the bootstrap host (docs/doctor.md#pd009): 127.0.0.1 makes
// decode look for the prefill on itself ("Connection refused", sglang #11747).

#include "router_workers.hpp"

namespace pdctl::lint {
namespace {

std::string flag_of(const detail::RouterWorker& worker) {
    return worker.mode == config::SglangMode::Prefill ? "--prefill" : "--decode";
}

std::string mode_name(config::SglangMode mode) {
    return config::to_string(mode);
}

// Why `url` is not the rank 0 of a `worker.mode` role: "" when it is.
std::string problem_with(const plan::Plan& plan, const detail::RouterWorker& worker, const HttpUrl& url) {
    const auto want = mode_name(worker.mode);
    if (const auto* unit = detail::unit_serving(plan, url)) {
        const auto* stage = plan.find_stage(unit->role);
        if (stage->mode != want) return "is " + detail::describe_unit(*unit) + ", a " + stage->mode + " role";
        if (unit->rank != 0)
            return "is " + detail::describe_unit(*unit) +
                   "; only rank 0 serves requests (other ranks answer "
                   "/health only)";
        return {};
    }
    // Same host, other port: the usual slip after changing `port:` or --port in EXTRA_ARGS.
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Sglang || stage.mode != want) continue;
        for (const auto& unit : stage.units) {
            const auto endpoint = detail::http_endpoint(unit);
            if (!same_host(endpoint.host, url.host)) continue;
            if (unit.rank != 0)
                return "points at " + detail::describe_unit(unit) + "; only rank 0 serves requests";
            return "has port " + std::to_string(url.port) + " but " + unit.role + " rank 0 serves on " +
                   std::to_string(endpoint.port);
        }
    }
    return "is not the rank-0 address of any " + want + " role of this cluster";
}

}  // namespace

void check_router_urls(const RuleInput& input, FindingSink& sink) {
    const auto loopback = detail::loopback_severity(input.cluster);
    for (const auto* router : detail::router_units(input.plan)) {
        const auto* role = input.cluster.find_role(router->role);
        const auto add = [&](Severity severity, std::string message, std::string fix) {
            auto& finding = sink.add(severity, router->role, std::move(message), std::move(fix));
            finding.node = router->node;
            finding.location = role ? role->where : config::SourceLocation{};
        };
        for (const auto& worker : detail::router_workers(*router)) {
            const std::string given =
                detail::router_label(router->role) + " is given " + flag_of(worker) + " " + worker.url;
            const auto url = parse_http_url(worker.url);
            if (!url) {
                add(Severity::Error, given + ", which is not an http:// URL",
                    "pass the " + mode_name(worker.mode) + " role's rank-0 URL, e.g. http://ADDRESS:PORT");
                continue;
            }
            if (is_loopback_host(url->host)) {
                const bool simulated = loopback == Severity::Info;
                add(loopback,
                    given + ", a loopback address" +
                        (simulated ? " (expected: the local simulated cluster lives on loopback)"
                                   : ": decode nodes would look for the prefill's bootstrap on themselves"),
                    "give the router the rank-0 node's routable address: leave `host:` unset or 0.0.0.0 on "
                    "the "
                    "sglang role (pdctl then uses the node address)");
                if (!simulated) continue;
            }
            const auto problem = problem_with(input.plan, worker, *url);
            if (problem.empty()) continue;
            add(Severity::Error, given + ", which " + problem,
                "let pdctl build the router's worker list (no --prefill/--decode in its args), or pass the " +
                    mode_name(worker.mode) + " role's rank-0 address and port");
        }
    }
}

}  // namespace pdctl::lint
