// pdctl bench: load through the router, measured (ops/bench.hpp), with a live line on a terminal.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>

#include "bench_sweep_command.hpp"
#include "chart_file.hpp"
#include "context.hpp"
#include "duration_flag.hpp"
#include "engine_flags.hpp"
#include "live_line.hpp"
#include "pdctl/config/bench_file.hpp"
#include "pdctl/config/dataset_file.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/bench_record.hpp"
#include "pdctl/ops/bench_requests.hpp"
#include "pdctl/ops/bench_slo.hpp"
#include "pdctl/ops/bench_verb.hpp"
#include "pdctl/report/bench_chart.hpp"
#include "pdctl/report/bench_view.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct BenchOptions {
    std::string scenario;
    std::string file;
    int input = 0;
    int output = 0;
    std::vector<int> concurrency;
    std::string dataset;
    std::string rate;
    double burstiness = 1.0;
    std::string slo;
    int repeat = 1;
    bool flush_cache = false;
    std::string save_requests;
    std::string base_url;
    bool allow_unverified = false;
    int requests = 0;
    std::string duration;
    std::string soak;
    int warmup = 2;
    bool warmup_given = false;
    std::string timeout = "10m";
    std::optional<std::uint64_t> seed;
    std::string router;
    std::string vs;
    std::string baseline;
    std::string max_regress = "10%";
    std::string junit;
    std::string svg;
    std::string html;
    std::vector<std::string> sweep;
    std::string slo_ttft;
    std::string slo_itl;
};

// --dataset FILE.jsonl: one row of the file's prompts, as texts (docs/bench.md "Workloads").
ops::BenchRow dataset_row(const BenchOptions& options) {
    config::DatasetFilter filter;
    filter.fixed_output_tokens = options.output;
    const auto file = config::load_dataset_file(options.dataset, config::DiskFileSource{}, filter);
    if (file.prompts.empty())
        throw Failure(
            ExitCode::kUsage,
            fmt::format("--dataset {}: no prompt is left ({} too short, {} too long, {} without an answer)",
                        options.dataset, file.dropped_too_short, file.dropped_too_long,
                        file.dropped_no_answer));
    auto shape = std::make_shared<load::DatasetShape>();
    shape->default_output_tokens = options.output > 0 ? options.output : 256;
    for (const auto& prompt : file.prompts) shape->prompts.push_back({prompt.text, prompt.output_tokens});
    ops::BenchRow row;
    row.name = std::filesystem::path(options.dataset).stem().string();
    row.workload = ops::BenchWorkload::kDataset;
    row.output_tokens = shape->default_output_tokens;
    row.dataset = std::move(shape);
    return row;
}

// The rows the flags ask for: --input/--output (one row), --file, --scenario validation, or for a soak
// its row.
std::vector<ops::BenchRow> chosen_rows(const BenchOptions& options,
                                       const std::optional<config::BenchFile>& file, std::string& scenario) {
    const bool custom = options.input > 0 || (options.output > 0 && options.dataset.empty());
    if ((custom ? 1 : 0) + (options.scenario.empty() ? 0 : 1) + (file ? 1 : 0) +
            (options.dataset.empty() ? 0 : 1) >
        1)
        throw Failure(
            ExitCode::kUsage,
            "--scenario, --file, --dataset and --input/--output each choose the rows: give one of them");
    if (!options.dataset.empty()) {
        scenario = "dataset";
        return {dataset_row(options)};
    }
    if (file) {
        scenario = file->name;
        std::vector<ops::BenchRow> rows;
        for (const auto& row : file->rows)
            rows.push_back(ops::unique_row(row.name, row.input_tokens, row.output_tokens));
        return rows;
    }
    if (custom) {
        if (options.input <= 0 || options.output <= 0)
            throw Failure(ExitCode::kUsage, "--input and --output go together, each at least 1 token");
        scenario = "custom";
        return {ops::unique_row(fmt::format("{}/{}", options.input, options.output), options.input,
                                options.output)};
    }
    if (!options.soak.empty() && options.scenario.empty()) {
        scenario = "soak";
        return {ops::soak_row()};
    }
    scenario = options.scenario.empty() ? "validation" : options.scenario;
    if (scenario == "shared-prefix") return {ops::shared_prefix_row()};
    if (scenario == "multi-turn") return {ops::multi_turn_row()};
    if (scenario != "validation")
        throw Failure(ExitCode::kUsage,
                      fmt::format("--scenario {}: unknown scenario (validation, shared-prefix, "
                                  "multi-turn)",
                                  scenario));
    return ops::validation_rows();
}

// --rate 8 | 1,2,4,8 | inf | ramp: open-loop levels, or the search for the saturation point.
void read_rates(const BenchOptions& options, ops::BenchSpec& spec) {
    if (options.rate.empty()) return;
    if (options.rate == "ramp") {
        spec.ramp = true;
    } else {
        for (const std::string& part : util::split(options.rate, ',')) {
            char* end = nullptr;
            const double rate = std::strtod(part.c_str(), &end);
            if (part.empty() || *end != '\0' || !(rate > 0))
                throw Failure(
                    ExitCode::kUsage,
                    fmt::format("--rate {}: requests per second above 0 (8), a list (1,2,4,8), inf, "
                                "or ramp",
                                options.rate));
            spec.rates.push_back(rate);
        }
    }
    if (options.concurrency.size() > 1)
        throw Failure(
            ExitCode::kUsage,
            "with --rate, --concurrency is one cap on the requests in flight, not a list of levels");
    spec.concurrency = options.concurrency.empty() ? std::vector<int>{0} : options.concurrency;
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
    for (int level : options.concurrency)
        if (level < 1)
            throw Failure(ExitCode::kUsage, fmt::format("--concurrency {}: each level is at least 1", level));
    read_rates(options, spec);
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
    // Without --seed every run draws its own, so no prompt of this run is in the prefix cache from the
    // last one; with it the run repeats exactly (and a cache that kept the last run's prompts shows).
    spec.seed_given = options.seed.has_value();
    spec.seed =
        options.seed ? *options.seed : std::random_device{}() * 0x100000000ULL + std::random_device{}();
    spec.router = options.router;
    if (options.repeat < 1) throw Failure(ExitCode::kUsage, "--repeat: each level runs at least once");
    spec.repeat = options.repeat;
    if (!(options.burstiness > 0))
        throw Failure(ExitCode::kUsage, "--burstiness: the arrivals' gamma shape, above 0 (1: Poisson)");
    if (options.burstiness != 1.0 && spec.rates.empty() && !spec.ramp)
        throw Failure(ExitCode::kUsage, "--burstiness shapes the arrivals of --rate: give --rate too");
    spec.burstiness = options.burstiness;
    if (!options.slo.empty()) spec.slo = ops::parse_slo(options.slo);
    if (spec.ramp && !spec.slo)
        throw Failure(ExitCode::kUsage,
                      "--rate ramp searches the highest rate that meets an SLO: give --slo too, e.g. "
                      "--slo ttft=2s,itl=50ms");
    spec.flush_cache = options.flush_cache;
    spec.base_url = options.base_url;
    if (!spec.base_url.empty() && !options.router.empty())
        throw Failure(ExitCode::kUsage,
                      "--base-url and --router both say where the load goes: give one of them");
    spec.allow_unverified = options.allow_unverified;
    if (spec.allow_unverified && !spec.soak)
        throw Failure(ExitCode::kUsage, "--allow-unverified is a soak's: give --soak too");
    return spec;
}

double seconds_of(const char* flag, const std::string& text) {
    return std::chrono::duration<double>(parse_duration_flag(flag, text)).count();
}

ExitCode bench_command(const GlobalOptions& global, const BenchOptions& options) {
    const auto spec = bench_spec(options);
    if (!options.sweep.empty()) {
        if (!options.vs.empty() || !options.baseline.empty() || !options.soak.empty() ||
            !options.junit.empty())
            throw Failure(
                ExitCode::kUsage,
                "--sweep compares its configs with each other: --vs, --baseline, --soak and --junit "
                "do not apply to it");
        SweepFlags sweep;
        sweep.configs = options.sweep;
        if (!options.slo_ttft.empty())
            sweep.objectives.ttft_p90_s = seconds_of("--slo-ttft", options.slo_ttft);
        if (!options.slo_itl.empty()) sweep.objectives.itl_p90_s = seconds_of("--slo-itl", options.slo_itl);
        sweep.svg = options.svg;
        sweep.html = options.html;
        return sweep_command(global, sweep, spec);
    }
    if (!options.slo_ttft.empty() || !options.slo_itl.empty())
        throw Failure(ExitCode::kUsage, "--slo-ttft and --slo-itl rank the configs of a --sweep");
    ops::BenchEvidenceRequest evidence{options.vs, options.baseline,
                                       ops::parse_regress_fraction(options.max_regress)};
    check_junit_path(options.junit);
    auto context = load_context(global);
    engine::install_interrupt_handlers();
    const auto began = std::chrono::steady_clock::now();
    const auto timestamp = report::junit_timestamp_now();
    const LiveLine live(global);
    const auto outcome = ops::run_bench_verb(
        context, spec, evidence, [&](const ops::BenchProgress& progress) { live.show(progress); });
    live.clear();
    const auto& report = outcome.report;
    const auto& comparison = outcome.comparison;
    const std::string& run_id = outcome.run_id;
    const ExitCode code = outcome.code;
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
    if (!options.save_requests.empty())
        write_chart_file(options.save_requests, context.redactor.redact(ops::request_lines(report)),
                         "save-requests");
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
                        "validation: the validation table, warm-up, medium and long input (the default); "
                        "shared-prefix: groups sharing a system prompt; multi-turn: conversations");
    command
        ->add_option("--dataset", options->dataset,
                     "prompts of your own: JSON lines of {\"text\": ...} or ShareGPT conversations "
                     "(docs/bench.md); --output fixes every answer's length")
        ->type_name("FILE.jsonl");
    command->add_option("--file", options->file, "a bench file: its rows (and levels), docs/bench.md")
        ->type_name("FILE");
    command->add_option("--input", options->input, "one row: input tokens per request (with --output)");
    command->add_option("--output", options->output, "one row: output tokens per request (ignore_eos)");
    command->add_option("--concurrency", options->concurrency, "closed-loop levels, e.g. 1,4,16 (default 1)")
        ->delimiter(',');
    command
        ->add_option(
            "--rate", options->rate,
            "open-loop levels, requests per second: 8, or 1,2,4,8, or inf; ramp: find the highest rate "
            "that meets --slo (the saturation point)")
        ->type_name("RATE[,RATE...]|ramp");
    command
        ->add_option("--burstiness", options->burstiness,
                     "with --rate: the gaps' gamma shape; 1 is Poisson, below 1 burstier")
        ->capture_default_str();
    command
        ->add_option("--slo", options->slo,
                     "objectives per request: ttft=2s,itl=50ms,tpot=40ms,e2e=30s; reports the share that met "
                     "them all and the goodput (requests/s that did)")
        ->type_name("KEY=DURATION,...");
    command
        ->add_option("--repeat", options->repeat,
                     "run each level N times: the gate (--vs, --baseline) then has N runs to tell noise from "
                     "a change")
        ->capture_default_str();
    command->add_flag("--flush-cache", options->flush_cache,
                      "ask every group to empty its prefix cache (SGLang's /flush_cache) before each row");
    command
        ->add_option("--save-requests", options->save_requests,
                     "also write every measured request as one JSON line: send time, TTFT, ITLs, e2e, "
                     "tokens, cached tokens, error")
        ->type_name("FILE.jsonl");
    command
        ->add_option("--base-url", options->base_url,
                     "send the load to this SGLang-compatible endpoint instead of the config's router "
                     "(one pdctl did not start); journaled with the cluster's runs")
        ->type_name("URL");
    command->add_flag("--allow-unverified", options->allow_unverified,
                      "a soak may pass when a group's KV counters cannot be read (judged by requests alone)");
    command->add_option("--requests", options->requests,
                        "measured requests per row and level (default: max(10, 4 × concurrency))");
    command->add_option("--duration", options->duration, "send for this long per row and level: 30s, 5m")
        ->type_name(kDurationMetavar);
    command
        ->add_option("--soak", options->soak,
                     "continuous load for T (default row: long input); fails on any failed request or a "
                     "rising KV transfer/bootstrap failure counter")
        ->type_name(kDurationMetavar);
    command->add_option_function<int>(
        "--warmup",
        [options](int value) {
            options->warmup = value;
            options->warmup_given = true;
        },
        "requests sent first and not counted, per row and level (default 2)");
    command->add_option("--timeout", options->timeout, "each request, sent to last token: 90s, 10m")
        ->capture_default_str()
        ->type_name(kDurationMetavar);
    command->add_option(
        "--seed", options->seed,
        "repeat a run's prompts and arrival times exactly (default: a new seed every run, so no "
        "prompt is in the prefix cache from the last one)");
    command->add_option("--router", options->router, "the router role to send through (default: the first)");
    command->add_option(
        "--vs", options->vs,
        "compare with a journaled bench run (its id, or last: the newest passing run of the same "
        "rows); a metric worse than --max-regress and significantly so exits 16");
    command->add_option("--baseline", options->baseline, "compare with a record `pdctl --json bench` wrote")
        ->type_name("FILE");
    command->add_option("--max-regress", options->max_regress, "how much worse a metric may get: 10%, 0.1")
        ->capture_default_str();
    add_junit_flag(*command, options->junit,
                   "one test case per row and load level, failed by failed requests or by a regression "
                   "against --vs/--baseline");
    command
        ->add_option("--sweep", options->sweep,
                     "for each config in turn: a converging start, then this bench; then the configs ranked "
                     "by output tok/s per GPU, the Pareto chart with --svg/--html (docs/bench.md)")
        ->type_name("CONFIG ...")
        ->expected(2, CLI::detail::expected_max_vector_size);
    command
        ->add_option("--slo-ttft", options->slo_ttft,
                     "with --sweep: a level counts only with p90 TTFT at most this: 2s, 500ms")
        ->type_name(kDurationMetavar);
    command
        ->add_option("--slo-itl", options->slo_itl,
                     "with --sweep: a level counts only with p90 ITL at most this: 50ms")
        ->type_name(kDurationMetavar);
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
