// pdctl bench: load through the router, measured (ops/bench.hpp), with a live line on a terminal.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>

#include "duration_flag.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl/report/bench_view.hpp"
#include "pdctl/util/exit_code.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct BenchOptions {
    std::string scenario;
    int input = 0;
    int output = 0;
    std::vector<int> concurrency;
    double rate = 0;
    int requests = 0;
    std::string duration;
    std::string soak;
    int warmup = 2;
    std::string timeout = "10m";
    std::uint64_t seed = 1;
    std::string router;
};

// The rows the flags ask for: --input/--output (one row), --scenario validation, or for a soak its row.
std::vector<ops::BenchRow> chosen_rows(const BenchOptions& options, std::string& scenario) {
    const bool custom = options.input > 0 || options.output > 0;
    if (custom && !options.scenario.empty())
        throw Failure(ExitCode::kUsage,
                      "--scenario and --input/--output choose the rows two ways: give one of them");
    if (custom) {
        if (options.input <= 0 || options.output <= 0)
            throw Failure(ExitCode::kUsage, "--input and --output go together, each at least 1 token");
        scenario = "custom";
        return {{fmt::format("{}/{}", options.input, options.output), options.input, options.output}};
    }
    if (!options.soak.empty() && options.scenario.empty()) {
        scenario = "soak";
        return {ops::soak_row()};
    }
    scenario = options.scenario.empty() ? "validation" : options.scenario;
    if (scenario != "validation")
        throw Failure(ExitCode::kUsage,
                      fmt::format("--scenario {}: unknown scenario (validation)", scenario));
    return ops::validation_rows();
}

ops::BenchSpec bench_spec(const BenchOptions& options) {
    ops::BenchSpec spec;
    spec.rows = chosen_rows(options, spec.scenario);
    if (!options.concurrency.empty()) spec.concurrency = options.concurrency;
    for (int level : spec.concurrency)
        if (level < 1)
            throw Failure(ExitCode::kUsage, fmt::format("--concurrency {}: each level is at least 1", level));
    if (options.rate < 0) throw Failure(ExitCode::kUsage, "--rate: requests per second, more than 0");
    if (options.rate > 0) {
        spec.rate = options.rate;
        if (options.concurrency.empty()) spec.concurrency = {0};  // no cap unless one is given
    }
    if (options.requests < 0) throw Failure(ExitCode::kUsage, "--requests: at least 1");
    spec.requests = options.requests;
    if (!options.duration.empty()) spec.duration = parse_duration_flag("--duration", options.duration);
    if (!options.soak.empty()) {
        if (!options.duration.empty() || options.requests > 0)
            throw Failure(ExitCode::kUsage,
                          "--soak T is itself the duration: leave out --duration and --requests");
        spec.soak = true;
        spec.duration = parse_duration_flag("--soak", options.soak);
    }
    if (spec.requests > 0 && spec.duration.count() > 0)
        throw Failure(ExitCode::kUsage, "--requests and --duration both end a level: give one of them");
    if (options.warmup < 0) throw Failure(ExitCode::kUsage, "--warmup: 0 or more requests");
    spec.warmup = options.warmup;
    spec.timeout = parse_duration_flag("--timeout", options.timeout);
    spec.seed = options.seed;
    spec.router = options.router;
    return spec;
}

// The live line goes to stderr, and only on a terminal outside CI: stdout stays the report.
bool live_line_wanted(const GlobalOptions& global) {
    const char* term = std::getenv("TERM");
    return !global.json && std::getenv("CI") == nullptr && ::isatty(STDERR_FILENO) && term && *term &&
           std::string_view(term) != "dumb";
}

ExitCode bench_command(const GlobalOptions& global, const BenchOptions& options) {
    const auto spec = bench_spec(options);
    auto context = load_context(global, Purpose::kPlanOnly);
    engine::install_interrupt_handlers();
    const bool live = live_line_wanted(global);
    const auto report = ops::run_bench(context, spec, [&](const ops::BenchProgress& progress) {
        if (live) fmt::print(stderr, "\r\033[K{}", report::render_bench_progress(progress));
    });
    if (live) fmt::print(stderr, "\r\033[K");
    if (global.json)
        fmt::print("{}\n", context.redactor.redact(report::bench_to_json(report).dump(2)));
    else
        fmt::print("{}", context.redactor.redact(report::render_bench(report)));
    if (report.cancelled) return ExitCode::kInterrupted;
    return report.passed() ? ExitCode::kOk : ExitCode::kBenchFailed;
}

}  // namespace

void add_bench_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<BenchOptions>();
    auto* command = app.add_subcommand(
        "bench",
        "load through the router, measured: TTFT, ITL, TPOT, e2e and throughput per row and load level");
    command->add_option("--scenario", options->scenario,
                        "validation: the original experiment's table (the default)");
    command->add_option("--input", options->input, "one row: input tokens per request (with --output)");
    command->add_option("--output", options->output, "one row: output tokens per request (ignore_eos)");
    command->add_option("--concurrency", options->concurrency, "closed-loop levels, e.g. 1,4,16 (default 1)")
        ->delimiter(',');
    command->add_option("--rate", options->rate,
                        "Poisson arrivals, requests per second (instead of a closed loop)");
    command->add_option("--requests", options->requests,
                        "measured requests per row and level (default: max(10, 4 × concurrency))");
    command->add_option("--duration", options->duration, "send for this long per row and level: 30s, 5m");
    command->add_option("--soak", options->soak,
                        "continuous load for T (default row: long input); fails on any failed request or a "
                        "rising KV transfer/bootstrap failure counter");
    command->add_option("--warmup", options->warmup, "requests sent first and not counted, per row and level")
        ->capture_default_str();
    command->add_option("--timeout", options->timeout, "each request, sent to last token: 90s, 10m")
        ->capture_default_str();
    command->add_option("--seed", options->seed, "the prompts and arrival times follow from it")
        ->capture_default_str();
    command->add_option("--router", options->router, "the router role to send through (default: the first)");
    verbs.add(command, [options](const GlobalOptions& global) { return bench_command(global, *options); });
}

}  // namespace pdctl::cli
