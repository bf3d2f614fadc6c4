#include "pdctl/export/k8s_probes.hpp"

#include <algorithm>
#include <regex>

namespace pdctl::exporter {
namespace {

// SGLang's /health runs a one-token generation and answers within SGLANG_HEALTH_CHECK_TIMEOUT (20 s)
// even when it fails: a probe timeout below that would call a slow but healthy server dead.
constexpr int kSglangProbeTimeout = 25;
constexpr int kProbeTimeout = 5;
// The router's /generate goes through a prefill and a decode: the script's own HTTP timeout (25 s)
// plus Python's start.
constexpr int kGenerateProbeTimeout = 30;
constexpr int kGenerateProbePeriod = 10;  // a real request: not every second
constexpr int kReadinessFailures = 3;
// Liveness restarts a container: only after two minutes of /health failing (sglang #12779: a dead
// prefill made decode's /health fail and Kubernetes killed a healthy decode).
constexpr int kLivenessPeriod = 30;
constexpr int kLivenessFailures = 4;

// Sends the router gate's checks from inside the router's container, in order: GET PATH must answer
// 2xx; POST PATH must answer 2xx with non-empty text for a one-token request (pdctl's own gate
// request, health/generate_answer.cpp). Its arguments: the port, then GET:/path or POST:/path.
constexpr const char* kRouterGateScript = R"(import json, os, sys, urllib.request
base = "http://%s:%s" % (os.environ.get("PDCTL_POD_IP") or "127.0.0.1", sys.argv[1])
for check in sys.argv[2:]:
    method, path = check.split(":", 1)
    if method == "GET":
        urllib.request.urlopen(base + path, timeout=5).read()
        continue
    body = {"text": "pdctl readiness check", "sampling_params": {"max_new_tokens": 1, "ignore_eos": True}}
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    answer = json.loads(urllib.request.urlopen(request, timeout=25).read())
    if not all(item.get("text") for item in (answer if isinstance(answer, list) else [answer])):
        sys.exit("POST %s: no text in the answer" % path)
)";

Tree http_get(const HttpTarget& target) {
    return Tree{{"path", target.path}, {"port", target.port}};
}

Tree probe(const std::string& handler_key, Tree handler, int period, int timeout, int failures) {
    return Tree{{handler_key, std::move(handler)},
                {"periodSeconds", period},
                {"timeoutSeconds", timeout},
                {"failureThreshold", failures}};
}

int whole_seconds(std::chrono::milliseconds duration) {
    return static_cast<int>(std::max<long long>(1, (duration.count() + 999) / 1000));
}

// The routers whose program is Python (MiniLB, sglang_router.launch_router) certainly have python3 in
// their image; SMG is a Rust binary whose image may not.
bool runs_python(const plan::Stage& stage) {
    return !stage.units.empty() && !stage.units.front().program.argv.empty() &&
           stage.units.front().program.argv.front() == "python3";
}

}  // namespace

ProbeTiming startup_timing(std::chrono::milliseconds deadline, std::chrono::milliseconds interval) {
    ProbeTiming timing;
    timing.period_seconds = whole_seconds(interval);
    const long long deadline_ms = std::max<long long>(deadline.count(), 1);
    const long long period_ms = timing.period_seconds * 1000LL;
    timing.failure_threshold =
        static_cast<int>(std::max<long long>(1, (deadline_ms + period_ms - 1) / period_ms));
    return timing;
}

std::optional<HttpTarget> http_target(const std::string& url) {
    static const std::regex kUrl(R"(http://(\[[^\]]*\]|[^/:]+):([0-9]{1,5})(/.*)?)");
    std::smatch match;
    if (!std::regex_match(url, match, kUrl)) return std::nullopt;
    HttpTarget target;
    target.port = std::stoi(match[2].str());
    if (match[3].matched) target.path = match[3].str();
    return target;
}

StageProbes stage_probes(const plan::Stage& stage) {
    StageProbes probes;
    const auto checks = stage.gate.effective_checks();
    const auto first = http_target(checks.front().url).value_or(HttpTarget{});
    const bool sglang = stage.kind == config::RoleKind::Sglang;
    const int timeout = sglang ? kSglangProbeTimeout : kProbeTimeout;
    const auto window = startup_timing(stage.gate.deadline, stage.gate.interval);
    const auto status_ok = [](int status) { return status >= 200 && status < 400; };
    if (!status_ok(checks.front().expect_status))
        probes.notes.push_back("the gate expects HTTP " + std::to_string(checks.front().expect_status) +
                               "; a Kubernetes httpGet probe passes on 200-399 only");

    // Liveness: is the process serving at all. A router's /health is that for every implementation
    // (SMG and the Rust router: liveness only; MiniLB: 200 once it listens).
    HttpTarget alive = first;
    if (stage.kind == config::RoleKind::Router) alive.path = "/health";
    probes.liveness = probe("httpGet", http_get(alive), kLivenessPeriod, timeout, kLivenessFailures);
    // Startup: the gate's deadline. A router starts in seconds but waits for its workers; its startup
    // window only asks for the process (liveness), readiness asks for the workers.
    probes.startup =
        probe("httpGet", http_get(alive), window.period_seconds, timeout, window.failure_threshold);

    if (stage.kind == config::RoleKind::Router && runs_python(stage)) {
        Tree command = Tree::array({"python3", "-c", kRouterGateScript, std::to_string(first.port)});
        for (const auto& check : checks) {
            const auto target = http_target(check.url).value_or(HttpTarget{});
            if (check.kind == plan::CheckKind::Generate)
                command.push_back("POST:" + target.path);
            else if (check.kind == plan::CheckKind::Status)
                command.push_back("GET:" + target.path);
            else
                probes.notes.push_back("readiness leaves out the gate's check \"" + check.why +
                                       "\" (a probe cannot compare the router's worker list)");
        }
        probes.readiness = probe("exec", Tree{{"command", std::move(command)}},
                                 std::max(kGenerateProbePeriod, window.period_seconds), kGenerateProbeTimeout,
                                 kReadinessFailures);
        return probes;
    }
    probes.readiness = probe("httpGet", http_get(first), window.period_seconds, timeout, kReadinessFailures);
    for (const auto& check : checks) {
        if (check.kind == plan::CheckKind::ServiceReady)
            probes.notes.push_back("readiness checks the status of " + first.path +
                                   ", not its service_ready field");
        else if (check.kind == plan::CheckKind::Workers || check.kind == plan::CheckKind::Generate)
            probes.notes.push_back("readiness leaves out the gate's check \"" + check.why +
                                   "\" (no python3 known in the image to send it)");
    }
    return probes;
}

}  // namespace pdctl::exporter
