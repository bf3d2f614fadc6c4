// The runbook's last step: every SGLang group's rank 0 answers /health_generate (which runs a real
// generation inside that server), and one /generate through the router returns text.
#include <fmt/format.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "pdctl/engine/observer.hpp"
#include "pdctl/health/generate_answer.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::cli {
namespace {

using nlohmann::json;

struct Check {
    std::string name;  // health_generate | generate
    std::string role;
    std::string node;
    std::string url;
    int status = 0;
    long long latency_ms = 0;
    std::string text;   // generate only
    std::string error;  // empty = passed

    json to_json() const {
        json out = {{"check", name},      {"role", role},     {"node", node},
                    {"url", url},         {"status", status}, {"latency_ms", latency_ms},
                    {"ok", error.empty()}};
        if (name == "generate") out["text"] = text;
        if (!error.empty()) out["error"] = error;
        return out;
    }
};

long long since_ms(std::chrono::steady_clock::time_point began) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began)
        .count();
}

// http://host:port/anything -> http://host:port/<path>
std::string with_path(const std::string& url, const std::string& path) {
    const auto slash = url.find('/', std::string("http://").size());
    return url.substr(0, slash) + path;
}

Check make_check(const char* name, const plan::Stage& stage, const std::string& path) {
    Check check;
    check.name = name;
    check.role = stage.role;
    check.node = stage.gate.node;
    check.url = with_path(stage.gate.url, path);
    return check;
}

Check health_generate(health::HttpProber& prober, const plan::Stage& stage, std::chrono::seconds timeout) {
    auto check = make_check("health_generate", stage, "/health_generate");
    const auto began = std::chrono::steady_clock::now();
    const auto answer = prober.get(check.url, timeout);
    check.latency_ms = since_ms(began);
    check.status = answer.status;
    if (answer.status == 0)
        check.error = "no answer: " + answer.error;
    else if (answer.status != 200)
        check.error = fmt::format("HTTP {}: {}", answer.status, answer.body.substr(0, 300));
    return check;
}

Check generate(health::HttpProber& prober, const plan::Stage& router, const SmokeOptions& options) {
    auto check = make_check("generate", router, "/generate");
    const json body = {{"text", options.prompt},
                       {"sampling_params", {{"max_new_tokens", options.max_new_tokens}}}};
    health::PostTimeouts timeouts;
    timeouts.read = std::chrono::seconds(options.timeout_seconds);
    const auto began = std::chrono::steady_clock::now();
    const auto answer = prober.post(check.url, body.dump(), "application/json", timeouts);
    check.latency_ms = since_ms(began);
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

std::string check_line(const Check& check) {
    if (check.name == "health_generate") {
        return check.error.empty()
                   ? fmt::format("✓ health_generate {} rank0 on {}: 200 in {} ms", check.role, check.node,
                                 check.latency_ms)
                   : fmt::format("✗ health_generate {} rank0 on {} ({}) failed after {} ms: {}", check.role,
                                 check.node, check.url, check.latency_ms, check.error);
    }
    return check.error.empty() ? fmt::format("✓ smoke: POST {} answered in {} ms: {}", check.url,
                                             check.latency_ms, check.text)
                               : fmt::format("✗ smoke: POST {} failed after {} ms: {}", check.url,
                                             check.latency_ms, check.error);
}

}  // namespace

ExitCode smoke_command(const GlobalOptions& global, const SmokeOptions& options) {
    auto context = load_context(global);
    const plan::Stage* router = nullptr;
    std::vector<const plan::Stage*> groups;
    for (const auto& stage : context.plan.stages) {
        if (stage.kind == config::RoleKind::Router) router = &stage;
        if (stage.kind == config::RoleKind::Sglang) groups.push_back(&stage);
    }
    if (!router) throw Failure(ExitCode::kUsage, "the config has no router role to send a request through");

    // Rank 0 of every group at once: a real /health_generate takes a generation's time.
    health::RealHttpProber prober;
    std::vector<Check> checks(groups.size());
    util::for_each_parallel(groups.size(), util::kEngineFanout, [&](std::size_t i) {
        checks[i] = health_generate(prober, *groups[i], std::chrono::seconds(options.timeout_seconds));
    });
    checks.push_back(generate(prober, *router, options));

    bool ok = true;
    for (const auto& check : checks) ok = ok && check.error.empty();
    if (global.json) {
        const auto& request = checks.back();
        json document = {{"ok", ok}, {"checks", json::array()}};
        for (const auto& check : checks) document["checks"].push_back(check.to_json());
        // The /generate result at the top level too, as before the health checks were added.
        document["url"] = request.url;
        document["latency_ms"] = request.latency_ms;
        document["status"] = request.status;
        document["text"] = request.text;
        if (!request.error.empty()) document["error"] = request.error;
        fmt::print("{}\n", context.redactor.redact(document.dump(2)));
    } else {
        for (const auto& check : checks) fmt::print("{}\n", context.redactor.redact(check_line(check)));
    }
    return ok ? ExitCode::kOk : ExitCode::kSmokeFailed;
}

}  // namespace pdctl::cli
