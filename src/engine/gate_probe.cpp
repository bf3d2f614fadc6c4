#include "pdctl/engine/gate_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "pdctl/health/gate_answers.hpp"
#include "pdctl/health/generate_answer.hpp"
#include "pdctl/health/transfer_errors.hpp"

namespace pdctl::engine {
namespace {

// The prompt of a gate's request: one output token, EOS ignored (a model may otherwise end at once
// with empty text, which would read as a broken path).
constexpr const char* kGatePrompt = "pdctl readiness check";

std::string no_answer(const health::ProbeResult& probe) {
    return probe.status ? fmt::format("HTTP {}", probe.status) : probe.error;
}

struct CheckAnswer {
    bool passed = false;
    std::string text;  // what it found: the failure, or a few words of what passed ("HTTP 200")
    bool unanswered = false;
    bool kv_path_failure = false;
};

CheckAnswer run_check(const plan::GateCheck& check, health::HttpProber& prober,
                      const GateTimeouts& timeouts) {
    using plan::CheckKind;
    if (check.kind == CheckKind::Generate) {
        health::PostTimeouts post;
        post.connect = timeouts.get;
        post.read = timeouts.generate;
        const auto probe =
            prober.post(check.url, health::generate_request(kGatePrompt, 1), "application/json", post);
        if (!probe.error.empty()) return {false, "POST /generate: no answer: " + probe.error, true};
        const auto generated = health::read_generate_answer(probe.status, probe.body);
        if (!generated.error.empty())
            return {false, "POST /generate: " + generated.error, false,
                    health::names_kv_path_failure(generated.error)};
        return {true, "/generate answered"};
    }
    const auto probe = prober.get(check.url, timeouts.get);
    if (!probe.ok(check.expect_status)) return {false, no_answer(probe), !probe.error.empty()};
    if (check.kind == CheckKind::ServiceReady) {
        if (auto problem = health::master_not_ready(probe.body)) return {false, "HTTP 200, " + *problem};
    } else if (check.kind == CheckKind::Workers) {
        if (auto problem = health::workers_not_ready(probe.body, check.workers)) return {false, *problem};
        return {true, fmt::format("{} workers healthy", check.workers.size())};
    }
    return {true, fmt::format("HTTP {}", probe.status)};
}

}  // namespace

GateAnswer probe_gate(const plan::Gate& gate, health::HttpProber& prober, const GateTimeouts& timeouts,
                      GenerateCheck generate) {
    GateAnswer result;
    auto checks = gate.effective_checks();
    if (generate == GenerateCheck::kSkip)
        std::erase_if(checks,
                      [](const plan::GateCheck& check) { return check.kind == plan::CheckKind::Generate; });
    for (auto check = checks.begin(); check != checks.end(); ++check) {
        auto found = run_check(*check, prober, timeouts);
        if (found.passed) {
            result.answer += (result.answer.empty() ? "" : ", ") + found.text;
            continue;
        }
        // A router's 503 on /readiness says only that something is not ready: its worker list
        // (a later check) names what.
        const auto workers = std::find_if(check + 1, checks.end(), [](const plan::GateCheck& later) {
            return later.kind == plan::CheckKind::Workers;
        });
        if (workers != checks.end()) {
            const auto listed = run_check(*workers, prober, timeouts);
            if (!listed.passed) found.text += "; " + listed.text;
        }
        return {false, std::move(found.text), found.unanswered, found.kv_path_failure};
    }
    result.passed = true;
    return result;
}

}  // namespace pdctl::engine
