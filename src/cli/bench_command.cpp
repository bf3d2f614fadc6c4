// pdctl bench: load through the router, measured (ops/bench.hpp), with a live line on a terminal.
#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>

#include "bench_sweep_command.hpp"
#include "chart_file.hpp"
#include "context.hpp"
#include "duration_flag.hpp"
#include "engine_flags.hpp"
#include "live_line.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/bench_flags.hpp"
#include "pdctl/ops/bench_record.hpp"
#include "pdctl/ops/bench_requests.hpp"
#include "pdctl/ops/bench_verb.hpp"
#include "pdctl/report/bench_chart.hpp"
#include "pdctl/report/bench_view.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/exit_code.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct BenchOptions {
    ops::BenchFlags spec;  // what the run measures (ops/bench_flags.hpp)
    std::string save_requests;
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

double seconds_of(const char* flag, const std::string& text) {
    return util::to_seconds(parse_duration_flag(flag, text));
}

ExitCode bench_command(const GlobalOptions& global, const BenchOptions& options) {
    const auto spec = ops::bench_spec(options.spec);
    if (!options.sweep.empty()) {
        if (!options.vs.empty() || !options.baseline.empty() || !options.spec.soak.empty() ||
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
    const auto began = util::SteadyClock::now();
    const auto timestamp = report::junit_timestamp_now();
    const LiveLine live(global);
    const auto outcome = ops::run_bench_verb(
        context, spec, evidence, [&](const ops::BenchProgress& progress) { live.show(progress); });
    live.clear();
    const auto& report = outcome.report;
    const auto* compared = outcome.comparison ? &*outcome.comparison : nullptr;
    print_result(
        global, context.redactor, [&] { return report::bench_outcome_to_json(outcome); },
        [&] { return report::render_bench_outcome(outcome); });
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
                     {report::bench_to_junit(report, compared, timestamp, util::seconds_since(began))},
                     context.redactor);
    return outcome.code;
}

}  // namespace

void add_bench_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<BenchOptions>();
    auto* command = app.add_subcommand(
        "bench",
        "load through the router, measured: TTFT, ITL, TPOT, e2e and throughput per row and load level");
    command->add_option("--scenario", options->spec.scenario,
                        "validation: the validation table, warm-up, medium and long input (the default); "
                        "shared-prefix: groups sharing a system prompt; multi-turn: conversations");
    command
        ->add_option("--dataset", options->spec.dataset,
                     "prompts of your own: JSON lines of {\"text\": ...} or ShareGPT conversations "
                     "(docs/bench.md); --output fixes every answer's length")
        ->type_name("FILE.jsonl");
    command->add_option("--file", options->spec.file, "a bench file: its rows (and levels), docs/bench.md")
        ->type_name("FILE");
    command->add_option("--input", options->spec.input, "one row: input tokens per request (with --output)");
    command->add_option("--output", options->spec.output, "one row: output tokens per request (ignore_eos)");
    command
        ->add_option("--concurrency", options->spec.concurrency,
                     "closed-loop levels, e.g. 1,4,16 (default 1)")
        ->delimiter(',');
    command
        ->add_option(
            "--rate", options->spec.rate,
            "open-loop levels, requests per second: 8, or 1,2,4,8, or inf; ramp: find the highest rate "
            "that meets --slo (the saturation point)")
        ->type_name("RATE[,RATE...]|ramp");
    command
        ->add_option("--burstiness", options->spec.burstiness,
                     "with --rate: the gaps' gamma shape; 1 is Poisson, below 1 burstier")
        ->capture_default_str();
    command
        ->add_option("--slo", options->spec.slo,
                     "objectives per request: ttft=2s,itl=50ms,tpot=40ms,e2e=30s; reports the share that met "
                     "them all and the goodput (requests/s that did)")
        ->type_name("KEY=DURATION,...");
    command
        ->add_option("--repeat", options->spec.repeat,
                     "run each level N times: the gate (--vs, --baseline) then has N runs to tell noise from "
                     "a change")
        ->capture_default_str();
    command->add_flag("--flush-cache", options->spec.flush_cache,
                      "ask every group to empty its prefix cache (SGLang's /flush_cache) before each row");
    command
        ->add_option("--save-requests", options->save_requests,
                     "also write every measured request as one JSON line: send time, TTFT, ITLs, e2e, "
                     "tokens, cached tokens, error")
        ->type_name("FILE.jsonl");
    command
        ->add_option("--base-url", options->spec.base_url,
                     "send the load to this SGLang-compatible endpoint instead of the config's router "
                     "(one pdctl did not start); recorded with the cluster's runs")
        ->type_name("URL");
    command->add_flag("--allow-unverified", options->spec.allow_unverified,
                      "a soak may pass when a group's KV counters cannot be read (judged by requests alone)");
    command->add_option("--requests", options->spec.requests,
                        "measured requests per row and level (default: max(10, 4 × concurrency))");
    command->add_option("--duration", options->spec.duration, "send for this long per row and level: 30s, 5m")
        ->type_name(kDurationMetavar);
    command
        ->add_option("--soak", options->spec.soak,
                     "continuous load for T (default row: long input); fails on any failed request or a "
                     "rising KV transfer/bootstrap failure counter")
        ->type_name(kDurationMetavar);
    command->add_option_function<int>(
        "--warmup",
        [options](int value) {
            options->spec.warmup = value;
            options->spec.warmup_given = true;
        },
        "requests sent first and not counted, per row and level (default 2)");
    command->add_option("--timeout", options->spec.timeout, "each request, sent to last token: 90s, 10m")
        ->capture_default_str()
        ->type_name(kDurationMetavar);
    command->add_option(
        "--seed", options->spec.seed,
        "repeat a run's prompts and arrival times exactly (default: a new seed every run, so no "
        "prompt is in the prefix cache from the last one)");
    command->add_option("--router", options->spec.router,
                        "the router role to send through (default: the first)");
    command->add_option(
        "--vs", options->vs,
        "compare with a recorded bench run (its id, or last: the newest passing run of the same "
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
