#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pdctl/health/generate_answer.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/ops/smoke.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {

bool all_passed(const std::vector<SmokeCheck>& checks) {
    for (const auto& check : checks)
        if (!check.error.empty()) return false;
    return true;
}

namespace {

SmokeCheck make_check(const char* name, const plan::Stage& stage, const std::string& path) {
    SmokeCheck check;
    check.name = name;
    check.role = stage.role;
    check.node = stage.gate.node;
    check.url = util::url_with_path(stage.gate.url, path);
    return check;
}

SmokeCheck health_generate(health::HttpProber& prober, const plan::Stage& stage,
                           std::chrono::milliseconds timeout) {
    auto check = make_check("health_generate", stage, "/health_generate");
    const auto began = util::SteadyClock::now();
    const auto answer = prober.get(check.url, timeout);
    check.latency_ms = util::milliseconds_since(began).count();
    check.status = answer.status;
    if (answer.status == 0)
        check.error = "no answer: " + answer.error;
    else if (answer.status != 200)
        check.error = fmt::format("HTTP {}: {}", answer.status, answer.body.substr(0, 300));
    return check;
}

SmokeCheck generate(health::HttpProber& prober, const plan::Stage& router, const SmokeRequest& request) {
    auto check = make_check("generate", router, "/generate");
    health::PostTimeouts timeouts;
    timeouts.read = request.timeout;
    const auto began = util::SteadyClock::now();
    const auto answer =
        prober.post(check.url, health::generate_request(request.prompt, request.max_new_tokens),
                    "application/json", timeouts);
    check.latency_ms = util::milliseconds_since(began).count();
    if (!answer.error.empty()) {
        check.error = "no answer: " + answer.error;
        return check;
    }
    check.status = answer.status;
    auto generated = health::read_generate_answer(answer.status, answer.body);
    check.text = std::move(generated.text);
    check.error = std::move(generated.error);
    return check;
}

// Whether `router` sends requests to any of `groups` (its prefill and decode lists).
bool routes_to(const config::Cluster& cluster, const plan::Stage& router,
               const std::vector<const plan::Stage*>& groups) {
    const auto* role = cluster.find_role(router.role);
    if (!role) return false;
    return std::any_of(groups.begin(), groups.end(), [&](const plan::Stage* group) {
        const auto listed = [&](const std::vector<std::string>& names) {
            return std::find(names.begin(), names.end(), group->role) != names.end();
        };
        return listed(role->prefill_roles) || listed(role->decode_roles);
    });
}

}  // namespace

std::vector<SmokeCheck> run_smoke(const Deployment& deployment, const SmokeRequest& request) {
    const auto selected = plan::scope_plan(deployment.plan, request.scope, "smoke").plan;
    std::vector<const plan::Stage*> routers;
    std::vector<const plan::Stage*> groups;
    for (const auto& stage : selected.stages) {
        if (stage.kind == config::RoleKind::Router) routers.push_back(&stage);
        if (stage.kind == config::RoleKind::Sglang) groups.push_back(&stage);
    }
    if (routers.empty())
        for (const auto& stage : deployment.plan.stages)
            if (stage.kind == config::RoleKind::Router &&
                (request.scope.empty() || routes_to(deployment.cluster, stage, groups)))
                routers.push_back(&stage);
    if (routers.empty())
        throw Failure(ExitCode::kUsage, request.scope.empty()
                                            ? "the config has no router role to send a request through"
                                            : "no router sends requests to the selected groups");

    // Rank 0 of every group at once: a real /health_generate takes a generation's time.
    auto& prober = *deployment.prober;
    std::vector<SmokeCheck> checks(groups.size());
    util::for_each_parallel(groups.size(), util::kEngineFanout, [&](std::size_t i) {
        checks[i] = health_generate(prober, *groups[i], request.timeout);
    });
    for (const auto* router : routers) checks.push_back(generate(prober, *router, request));
    return checks;
}

}  // namespace pdctl::ops
