#include "pdctl/ops/status.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/journal.hpp"

namespace pdctl::ops {
namespace {

// The journal's newest part: a start of a large cluster writes a few hundred lines, so this holds the
// last runs, and a status stays one small read away from the coordinator.
constexpr std::size_t kJournalTailBytes = 256u << 10;

// The journal's tail, read once however many MiniLB routers ask (from their probe tasks, in parallel).
class JournalTail {
  public:
    explicit JournalTail(const Deployment& deployment) : deployment_(deployment) {}

    engine::LastGateRequest last_request(const std::string& role) {
        std::call_once(read_, [this] { read(); });
        engine::LastGateRequest last;
        last.error = error_;
        if (!error_.empty()) return last;
        const auto result = state::journal::last_gate_result(text_, role);
        if (!result) return last;
        last.found = true;
        last.run = result->run;
        last.verb = result->verb;
        last.at = result->at;
        last.passed = result->passed;
        last.failure = result->reason;
        const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
        if (result->at_epoch_ms > 0) last.age_seconds = std::max(0LL, (now_ms - result->at_epoch_ms) / 1000);
        return last;
    }

  private:
    void read() {
        const auto& cluster = deployment_.cluster;
        const auto& coordinator = state::coordinator_node(cluster);
        const auto answer = deployment_.executor->run(
            coordinator, state::journal::read_command(
                             config::cluster_state_dir(cluster.state_dir, cluster.name), kJournalTailBytes));
        if (!answer.ok())
            error_ = fmt::format("the journal on {} could not be read: {}", coordinator.name,
                                 exec::failure_reason(answer));
        else
            text_ = answer.out;
    }

    const Deployment& deployment_;
    std::once_flag read_;
    std::string text_;
    std::string error_;
};

}  // namespace

engine::ClusterStatus read_status(const Deployment& deployment, const plan::Scope& scope,
                                  engine::StatusRequest request) {
    health::RealHttpProber prober;
    const auto scoped = plan::scope_plan(deployment.plan, scope, "status");
    request.scoped = !scope.empty();
    JournalTail journal(deployment);
    if (!request.last_request)
        request.last_request = [&journal](const std::string& role) { return journal.last_request(role); };
    return engine::collect_status(scoped.plan, *deployment.executor, prober, request);
}

}  // namespace pdctl::ops
