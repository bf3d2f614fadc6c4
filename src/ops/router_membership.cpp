#include "pdctl/ops/router_membership.hpp"

#include <fmt/format.h>

#include <functional>

#include "pdctl/health/router_worker_api.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::ops {
namespace {

// How long a stop waits for the router to finish taking a group out (SMG drains it first).
constexpr std::chrono::milliseconds kLeaveWait{std::chrono::seconds(15)};

// Calls `act` for each stage of `part` that a worker-API router of `whole` outside `part` has in its
// config, with that router's list (read once per router); `unlisted` says why a router gave none.
void for_each_membership(
    const plan::Plan& whole, const plan::Plan& part, health::HttpProber& prober,
    std::chrono::milliseconds timeout,
    const std::function<void(const plan::Stage& router, const std::string& error)>& unlisted,
    const std::function<void(const plan::Stage& router, health::RouterWorkerApi& api,
                             const plan::Stage& stage, const plan::RouterWorker& worker,
                             const std::vector<health::ListedWorker>& listed)>& act) {
    for (const auto& router : whole.stages) {
        if (!router.router || !router.router->worker_api() || part.find_stage(router.role)) continue;
        std::optional<health::RouterWorkerApi> api;
        std::optional<std::vector<health::ListedWorker>> listed;
        for (const auto& stage : part.stages) {
            const auto* worker = router.router->find_worker(stage.role);
            if (!worker) continue;
            if (!api) {
                api.emplace(prober, router.router->url, timeout);
                std::string error;
                listed = api->list(error);
                if (!listed) {
                    unlisted(router, error);
                    break;
                }
            }
            act(router, *api, stage, *worker, *listed);
        }
    }
}

}  // namespace

void leave_routers(const plan::Plan& whole, const plan::Plan& stopping, health::HttpProber& prober,
                   engine::Clock& clock, engine::Reporter& reporter, std::chrono::milliseconds timeout) {
    for_each_membership(
        whole, stopping, prober, timeout,
        [&](const plan::Stage& router, const std::string& error) {
            reporter.note(
                fmt::format("{} does not list its workers ({}): the stopped groups stay in its list, "
                            "and `pdctl heal` takes them out",
                            router.role, error));
        },
        [&](const plan::Stage& router, health::RouterWorkerApi& api, const plan::Stage& stage,
            const plan::RouterWorker& worker, const std::vector<health::ListedWorker>& listed) {
            const auto* entry = health::find_worker(listed, worker.url);
            if (!entry) return;
            if (const auto refused = api.remove(entry->id); !refused.empty()) {
                reporter.note(fmt::format("{} did not take {} out: {}; it stays listed while stopped",
                                          router.role, stage.role, refused));
                return;
            }
            // The removal is queued (the worker drains first): the group stops once it has left the list,
            // or after kLeaveWait, so that a router that never finishes cannot hold the stop.
            const auto deadline = clock.now() + kLeaveWait;
            bool gone = false;
            while (!gone && clock.now() < deadline) {
                std::string error;
                const auto now = api.list(error);
                gone = now && !health::find_worker(*now, worker.url);
                if (!gone) clock.sleep_for(std::chrono::milliseconds(200));
            }
            reporter.note(gone ? fmt::format("{} ({}) taken out of {} before its stop", stage.role,
                                             worker.url, router.role)
                               : fmt::format("{} still lists {} after {}: stopping it anyway", router.role,
                                             stage.role, util::format_elapsed(kLeaveWait)));
        });
}

std::string join_routers(const plan::Plan& whole, const plan::Plan& started, health::HttpProber& prober,
                         engine::Reporter& reporter, std::chrono::milliseconds timeout) {
    std::string failed;
    auto fail = [&](const std::string& why) { failed += (failed.empty() ? "" : "; ") + why; };
    for_each_membership(
        whole, started, prober, timeout,
        [&](const plan::Stage& router, const std::string& error) {
            fail(fmt::format("{} does not list its workers: {}", router.role, error));
        },
        [&](const plan::Stage& router, health::RouterWorkerApi& api, const plan::Stage& stage,
            const plan::RouterWorker& worker, const std::vector<health::ListedWorker>& listed) {
            if (health::find_worker(listed, worker.url)) return;
            if (const auto refused = api.add(worker.url, worker.type, worker.bootstrap_port);
                !refused.empty()) {
                fail(fmt::format("{} did not take {} back: {}", router.role, stage.role, refused));
                return;
            }
            reporter.note(fmt::format("{} ({}) added back to {}", stage.role, worker.url, router.role));
        });
    return failed;
}

}  // namespace pdctl::ops
