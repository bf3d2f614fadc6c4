// pdctl bench: load through the router, measured (ops/bench.hpp), with a live line on a terminal.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>

#include "chart_file.hpp"
#include "context.hpp"
#include "duration_flag.hpp"
#include "engine_flags.hpp"
#include "pdctl/config/bench_file.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/bench_evidence.hpp"
#include "pdctl/ops/bench_record.hpp"
#include "pdctl/report/bench_chart.hpp"
#include "pdctl/report/bench_view.hpp"
#include "pdctl/util/exit_code.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct BenchOptions {
    std::string scenario;
    std::string file;
    int input = 0;
    int output = 0;
    std::vector<int> concurrency;
    double rate = 0;
    int requests = 0;
    std::string duration;
    std::string soak;
    int warmup = 2;
    bool warmup_given = false;
    std::string timeout = "10m";
    std::uint64_t seed = 1;
    std::string router;
    std::string vs;
    std::string baseline;
    std::string max_regress = "10%";
    std::string junit;
    std::string svg;
    std::string html;
};

// The rows the flags ask for: --input/--output (one row), --file, --scenario validation, or for a soak
// its row.
std::vector<ops::BenchRow> chosen_rows(const BenchOptions& options,
                                       const std::optional<config::BenchFile>& file, std::string& scenario) {
    const bool custom = options.input > 0 || options.output > 0;
    if ((custom ? 1 : 0) + (options.scenario.empty() ? 0 : 1) + (file ? 1 : 0) > 1)
        throw Failure(ExitCode::kUsage,
                      "--scenario, --file and --input/--output each choose the rows: give one of them");
    if (file) {
        scenario = file->name;
        std::vector<ops::BenchRow> rows;
        for (const auto& row : file->rows) rows.push_back({row.name, row.input_tokens, row.output_tokens});
        return rows;
    }
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

ops::BenchSpec bench_spec(BenchOptions options) {
    std::optional<config::BenchFile> file;
    if (!options.file.empty()) {
        file = config::load_bench_file(options.file, config::DiskFileSource{});
        // What the file sets, unless a flag says otherwise.
        if (options.concurrency.empty()) options.concurrency = file->concurrency;
        // A soak's length is --soak's: the file's own end of a level does not apply to it.
        if (options.soak.empty() && options.requests == 0 && options.duration.empty()) {
            options.requests = file->requests;
            if (file->duration.count() > 0) options.duration = std::to_string(file->duration.count()) + "ms";
        }
        if (file->warmup >= 0 && !options.warmup_given) options.warmup = file->warmup;
    }
    ops::BenchSpec spec;
    spec.rows = chosen_rows(options, file, spec.scenario);
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

ExitCode verdict(const ops::BenchReport& report, const std::optional<ops::BenchComparison>& comparison) {
    if (report.cancelled) return ExitCode::kInterrupted;
    if (!report.passed()) return ExitCode::kBenchFailed;
    if (comparison && comparison->regressed()) return ExitCode::kBenchRegressed;
    return ExitCode::kOk;
}

// The journal's one line for the run ("bench regressed: TTFT p50 of medium c=1 worse by 20.1% ...").
std::string outcome(const ops::BenchReport& report, const std::optional<ops::BenchComparison>& comparison) {
    if (!report.passed()) return report.problems.front();
    int requests = 0;
    for (const auto& row : report.rows)
        for (const auto& level : row.levels) requests += level.stats.ok;
    std::string text = fmt::format("{} requests, none failed", requests);
    if (!comparison) return text;
    const ops::MetricChange* worst = nullptr;
    for (const auto& change : comparison->changes)
        if (change.regressed && (worst == nullptr || change.worse_by > worst->worse_by)) worst = &change;
    if (worst == nullptr) return text + "; no regression against " + comparison->against;
    return fmt::format("{}; {} of {} worse by {:.1f}% against {}", text, worst->metric, worst->level,
                       worst->worse_by * 100, comparison->against);
}

ExitCode bench_command(const GlobalOptions& global, const BenchOptions& options) {
    const auto spec = bench_spec(options);
    if (!options.vs.empty() && !options.baseline.empty())
        throw Failure(ExitCode::kUsage,
                      "--vs and --baseline both name what to compare with: give one of them");
    const double max_regress = ops::parse_regress_fraction(options.max_regress);
    check_junit_path(options.junit);
    auto context = load_context(global);
    // The baseline first: a run to compare with that is not there ends the command before any load.
    std::optional<ops::BenchBaseline> baseline;
    if (!options.vs.empty()) baseline = ops::baseline_from_journal(context, options.vs);
    if (!options.baseline.empty()) baseline = ops::baseline_from_file(options.baseline);

    engine::install_interrupt_handlers();
    ops::BenchJournal journal(context);
    const auto began = std::chrono::steady_clock::now();
    const auto timestamp = report::junit_timestamp_now();
    const bool live = live_line_wanted(global);
    const auto report = ops::run_bench(context, spec, [&](const ops::BenchProgress& progress) {
        if (live) fmt::print(stderr, "\r\033[K{}", report::render_bench_progress(progress));
    });
    if (live) fmt::print(stderr, "\r\033[K");

    std::optional<ops::BenchComparison> comparison;
    if (baseline)
        comparison = ops::compare_bench(ops::recorded_levels(baseline->record, baseline->against),
                                        ops::recorded_levels(ops::bench_record(report), "this run"),
                                        max_regress, baseline->against);
    const ExitCode code = verdict(report, comparison);
    journal.finish(report, code, outcome(report, comparison));
    const std::string& run_id = journal.run_id();
    const auto* compared = comparison ? &*comparison : nullptr;
    if (global.json) {
        auto document = report::bench_to_json(report, compared);
        document["run"] = run_id;
        fmt::print("{}\n", context.redactor.redact(document.dump(2)));
    } else {
        fmt::print("{}", context.redactor.redact(report::render_bench(report)));
        if (comparison)
            fmt::print("{}", context.redactor.redact(report::render_bench_comparison(*comparison)));
        fmt::print("journaled as run {} (compare a later run with `pdctl bench --vs {}`)\n", run_id, run_id);
    }
    if (!options.svg.empty() || !options.html.empty()) {
        const auto record = ops::bench_record(report);
        if (!options.svg.empty())
            write_chart_file(options.svg, context.redactor.redact(report::render_bench_svg(record)), "svg");
        if (!options.html.empty())
            write_chart_file(options.html, context.redactor.redact(report::render_bench_html(record)),
                             "html");
    }
    write_junit_file(options.junit,
                     {report::bench_to_junit(
                         report, compared, timestamp,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count())},
                     context.redactor);
    return code;
}

}  // namespace

void add_bench_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<BenchOptions>();
    auto* command = app.add_subcommand(
        "bench",
        "load through the router, measured: TTFT, ITL, TPOT, e2e and throughput per row and load level");
    command->add_option("--scenario", options->scenario,
                        "validation: the original experiment's table (the default)");
    command->add_option("--file", options->file, "a bench file: its rows (and levels), docs/bench.md")
        ->type_name("FILE");
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
    command->add_option_function<int>(
        "--warmup",
        [options](int value) {
            options->warmup = value;
            options->warmup_given = true;
        },
        "requests sent first and not counted, per row and level (default 2)");
    command->add_option("--timeout", options->timeout, "each request, sent to last token: 90s, 10m")
        ->capture_default_str();
    command->add_option("--seed", options->seed, "the prompts and arrival times follow from it")
        ->capture_default_str();
    command->add_option("--router", options->router, "the router role to send through (default: the first)");
    command->add_option("--vs", options->vs,
                        "compare with a journaled bench run (its id, or last); a metric worse than "
                        "--max-regress exits 16");
    command->add_option("--baseline", options->baseline, "compare with a record `pdctl --json bench` wrote")
        ->type_name("FILE");
    command->add_option("--max-regress", options->max_regress, "how much worse a metric may get: 10%, 0.1")
        ->capture_default_str();
    add_junit_flag(*command, options->junit);
    command
        ->add_option("--svg", options->svg,
                     "also draw the run as a self-contained SVG: latency per row, throughput")
        ->type_name("FILE");
    command
        ->add_option("--html", options->html,
                     "also write the experiment's table and the chart as one HTML page")
        ->type_name("FILE");
    verbs.add(command, [options](const GlobalOptions& global) { return bench_command(global, *options); });
}

}  // namespace pdctl::cli
