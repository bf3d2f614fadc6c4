#include "bench_sweep_command.hpp"

#include <fmt/format.h>

#include "chart_file.hpp"
#include "doctor_gate.hpp"
#include "live_line.hpp"
#include "log_file.hpp"
#include "pdctl/ops/bench_sweep.hpp"
#include "pdctl/report/sweep_chart.hpp"
#include "pdctl/report/sweep_view.hpp"
#include "print_result.hpp"

namespace pdctl::cli {

ExitCode sweep_command(const GlobalOptions& global, const SweepFlags& flags, const ops::BenchSpec& spec) {
    if (!global.config_path.empty())
        throw Failure(ExitCode::kUsage, "--sweep names the configs itself: leave out -c/--config");
    const auto configs = ops::load_sweep_configs(flags.configs);
    const auto open = open_options(global, Purpose::kDrive, "bench");
    // Every config passes the static doctor rules before the first start; with --json their findings go
    // to stderr, stdout being the sweep's one document.
    GlobalOptions findings = global;
    findings.json = false;
    // What is printed or logged may quote any config: it passes every config's secrets.
    util::Redactor redactor;
    for (const auto& config : configs) {
        const auto deployment = ops::open_deployment(config.cluster, open);
        redactor.add_secrets_of(deployment.redactor);
        log_file::redact_with(redactor);
        if (const auto refused = doctor_before_start(findings, deployment, "bench --sweep");
            refused != ExitCode::kOk)
            return refused;
    }

    ops::EngineRequest start;
    start.verb = ops::EngineVerb::kStart;
    const LiveLine live(global);
    ops::SweepHooks hooks;
    hooks.starting = [&](std::size_t index, const ops::SweepConfig& config, const ops::Deployment&) {
        if (!global.json) fmt::print("── sweep {}/{}: {} ──\n", index + 1, configs.size(), config.path);
        std::fflush(stdout);
    };
    if (!global.json) hooks.screen = [&](const ops::Deployment&) { return make_reporter(global, redactor); };
    hooks.progress = [&](const ops::BenchProgress& progress) { live.show(progress); };
    const auto entries = ops::run_sweep(configs, open, start, spec, hooks);
    live.clear();

    const auto standings = ops::rank_sweep(ops::sweep_candidates(entries), flags.objectives);
    const auto document = report::sweep_to_json(entries, standings, flags.objectives);
    const auto redact = [&](const std::string& text) { return redactor.redact(text); };
    print_result(
        global, redactor, [&]() -> const nlohmann::json& { return document; },
        [&] { return report::render_sweep(entries, standings, flags.objectives); });
    if (!flags.svg.empty()) write_chart_file(flags.svg, redact(report::render_sweep_svg(document)), "svg");
    if (!flags.html.empty())
        write_chart_file(flags.html, redact(report::render_sweep_html(document)), "html");
    return ops::sweep_verdict(entries);
}

}  // namespace pdctl::cli
