// The runbook's last step: every SGLang group's rank 0 answers /health_generate (which runs a real
// generation inside that server), and one /generate through the router returns text.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine_verb.hpp"
#include "pdctl/health/generate_answer.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/report/smoke_view.hpp"
#include "pdctl/util/parallel.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

using report::SmokeCheck;

struct SmokeOptions {
    std::string junit;
    std::string prompt = "Hello";
    int max_new_tokens = 16;
    int timeout_seconds = 120;
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

SmokeCheck make_check(const char* name, const plan::Stage& stage, const std::string& path) {
    SmokeCheck check;
    check.name = name;
    check.role = stage.role;
    check.node = stage.gate.node;
    check.url = with_path(stage.gate.url, path);
    return check;
}

SmokeCheck health_generate(health::HttpProber& prober, const plan::Stage& stage,
                           std::chrono::seconds timeout) {
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

SmokeCheck generate(health::HttpProber& prober, const plan::Stage& router, const SmokeOptions& options) {
    auto check = make_check("generate", router, "/generate");
    health::PostTimeouts timeouts;
    timeouts.read = std::chrono::seconds(options.timeout_seconds);
    const auto began = std::chrono::steady_clock::now();
    const auto answer =
        prober.post(check.url, health::generate_request(options.prompt, options.max_new_tokens),
                    "application/json", timeouts);
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

ExitCode smoke_command(const GlobalOptions& global, const SmokeOptions& options) {
    check_junit_path(options.junit);
    const auto began = std::chrono::steady_clock::now();
    const auto timestamp = report::junit_timestamp_now();
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
    std::vector<SmokeCheck> checks(groups.size());
    util::for_each_parallel(groups.size(), util::kEngineFanout, [&](std::size_t i) {
        checks[i] = health_generate(prober, *groups[i], std::chrono::seconds(options.timeout_seconds));
    });
    checks.push_back(generate(prober, *router, options));

    if (global.json) {
        fmt::print("{}\n", context.redactor.redact(report::smoke_to_json(checks).dump(2)));
    } else {
        for (const auto& check : checks)
            fmt::print("{}\n", context.redactor.redact(report::render_smoke_check_line(check)));
    }
    write_junit_file(options.junit,
                     {report::smoke_to_junit(
                         checks, timestamp,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count())},
                     context.redactor);
    return report::all_passed(checks) ? ExitCode::kOk : ExitCode::kSmokeFailed;
}

}  // namespace

void add_smoke_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<SmokeOptions>();
    auto* command = app.add_subcommand(
        "smoke", "/health_generate on every SGLang group's rank 0, then POST /generate through the router");
    command->add_option("--prompt", options->prompt, "prompt text")->capture_default_str();
    add_junit_flag(*command, options->junit);
    command->add_option("--max-tokens", options->max_new_tokens, "max_new_tokens")->capture_default_str();
    command->add_option("--timeout", options->timeout_seconds, "seconds to wait for the answer")
        ->capture_default_str();
    verbs.add(command, [options](const GlobalOptions& global) { return smoke_command(global, *options); });
}

}  // namespace pdctl::cli
