// The runbook's last step: one /generate through the router must return text.
#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "pdctl/health/http_prober.hpp"

namespace pdctl::cli {

ExitCode smoke_command(const GlobalOptions& global, const SmokeOptions& options) {
    auto context = load_context(global);
    const plan::Stage* router = nullptr;
    for (const auto& stage : context.plan.stages)
        if (stage.kind == config::RoleKind::Router) router = &stage;
    if (!router) throw Failure(ExitCode::kUsage, "the config has no router role to send a request through");

    std::string host, path;
    int port = 0;
    health::split_http_url(router->gate.url, host, port, path);
    const std::string url = fmt::format("http://{}:{}/generate", host, port);
    const nlohmann::json body = {{"text", options.prompt},
                                 {"sampling_params", {{"max_new_tokens", options.max_new_tokens}}}};

    httplib::Client client(host, port);
    client.set_connection_timeout(5, 0);
    client.set_read_timeout(options.timeout_seconds, 0);
    const auto began = std::chrono::steady_clock::now();
    auto response = client.Post("/generate", body.dump(), "application/json");
    const auto latency =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began)
            .count();

    nlohmann::json result = {{"url", url}, {"latency_ms", latency}};
    std::string text;
    std::string problem;
    if (!response) {
        problem = "no answer: " + httplib::to_string(response.error());
    } else {
        result["status"] = response->status;
        auto parsed = nlohmann::json::parse(response->body, nullptr, false);
        if (!parsed.is_discarded() && parsed.is_object() && parsed.contains("text") &&
            parsed["text"].is_string())
            text = parsed["text"].get<std::string>();
        if (response->status != 200) {
            problem = fmt::format("HTTP {}: {}", response->status, response->body.substr(0, 300));
        } else if (text.empty()) {
            problem = "the answer has no text: " + response->body.substr(0, 300);
        }
    }
    result["ok"] = problem.empty();
    result["text"] = text;
    if (!problem.empty()) result["error"] = problem;
    if (global.json) {
        fmt::print("{}\n", context.redactor.redact(result.dump(2)));
    } else if (problem.empty()) {
        fmt::print("✓ smoke: POST {} answered in {} ms: {}\n", url, latency, context.redactor.redact(text));
    } else {
        fmt::print("✗ smoke: POST {} failed after {} ms: {}\n", url, latency,
                   context.redactor.redact(problem));
    }
    return problem.empty() ? ExitCode::kOk : ExitCode::kSmokeFailed;
}

}  // namespace pdctl::cli
