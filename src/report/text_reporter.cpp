#include "pdctl/report/text_reporter.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>

#include "pdctl/report/output.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::report {
using engine::Duration;
using engine::RunSummary;
using engine::StageFailure;
using engine::UnitProgress;
using runtime::Phase;
using runtime::phase_id;
using util::format_clock;
using util::format_elapsed;

namespace {

std::string node_range(const plan::Stage& stage) {
    if (stage.units.empty()) return "-";
    if (stage.units.size() == 1) return stage.units.front().node;
    return stage.units.front().node + "–" + stage.units.back().node;
}

}  // namespace

void TextReporter::line(const std::string& text) {
    std::lock_guard lock(mutex_);
    std::string stamp = utc_timestamps_ ? util::utc_text(util::epoch_ms_now()) + " "
                                        : fmt::format("{:%H:%M:%S} ", fmt::localtime(std::time(nullptr)));
    write_text(out_, stamp + redactor_.redact(text) + "\n");
}

void TextReporter::run_begin(const std::string& verb, const plan::Plan& plan) {
    stage_count_ = plan.stages.size();
    line(fmt::format("{} {} ({}) · {} stages · {} nodes · config {}", verb, plan.cluster, plan.config_path,
                     plan.stages.size(), plan.nodes.size(), plan.fingerprint));
}

void TextReporter::stage_begin(const std::string& verb, const plan::Stage& stage) {
    const std::string count = stage.units.size() > 1 ? fmt::format(" ×{}", stage.units.size()) : "";
    line(fmt::format("{} {}{} on {}", verb, stage.role, count, node_range(stage)));
}

void TextReporter::stage_skipped(const plan::Stage& stage, const std::string& why) {
    line(fmt::format("✓ {} {}", stage.role, why));
}

void TextReporter::unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) {
    line(fmt::format("  {} {} {} rank{}: {}", verb == "start" ? "started" : verb, unit.role, unit.node,
                     unit.rank, detail));
}

void TextReporter::gate_waiting(const plan::Stage& stage, const std::string& last_answer, Duration elapsed) {
    line(fmt::format("  {} waiting for {} ({}): {}", stage.role, stage.gate.why, format_elapsed(elapsed),
                     last_answer));
}

// One line per phase change and per new warning; the periodic refreshes are for the live view.
void TextReporter::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                 const UnitProgress& progress) {
    const std::string who = fmt::format("{} {} rank{}", stage.role, unit.node, unit.rank);
    // "starting" only says the first poll came back: not worth a line in a CI log.
    if (progress.phase_changed && progress.phase != Phase::kStarting) {
        std::string text = fmt::format("{} phase={} elapsed={}", who, phase_id(progress.phase),
                                       format_clock(progress.stage_elapsed));
        if (progress.previous && *progress.previous != Phase::kStarting)
            text += fmt::format(" ({} took {})", phase_id(*progress.previous),
                                format_clock(progress.previous_took));
        if (progress.phase == Phase::kFailed && !progress.phase_line.empty())
            text += ": " + progress.phase_line;
        line(text);
    }
    for (const auto& warning : progress.new_warnings) line(fmt::format("{} warning: {}", who, warning));
    if (progress.verdict_changed && progress.verdict == engine::RankVerdict::kStalled)
        line(fmt::format("{} {}; see `pdctl stack --group {}`", who, progress.stall, stage.role));
    else if (progress.verdict_changed && progress.verdict == engine::RankVerdict::kMoving)
        line(fmt::format("{} is moving again", who));
}

void TextReporter::stage_ready(const plan::Stage& stage, Duration elapsed) {
    line(fmt::format("✓ {} ready in {} ({} at {})", stage.role, format_elapsed(elapsed), stage.gate.why,
                     stage.gate.url));
}

void TextReporter::stage_failed(const StageFailure& failure, Duration elapsed) {
    std::string text =
        fmt::format("✗ {} failed at {}: {}", failure.role, format_elapsed(elapsed), failure.node);
    if (!failure.address.empty()) text += " (" + failure.address + ")";
    if (failure.rank >= 0) text += fmt::format(" rank{}", failure.rank);
    text += " " + failure.reason;
    line(text);
    if (!failure.log_tail.empty()) {
        std::lock_guard lock(mutex_);
        write_text(out_, fmt::format("  last lines from {}:\n", failure.node));
        for (const auto& log_line : failure.log_tail)
            write_text(out_, "    " + redactor_.redact(log_line) + "\n");
    }
    for (const auto& related : failure.related_logs) {
        std::lock_guard lock(mutex_);
        write_text(out_, fmt::format("  {} logged:\n", related.unit));
        for (const auto& log_line : related.lines)
            write_text(out_, "    " + redactor_.redact(log_line) + "\n");
    }
    if (!failure.hint.empty()) line("  hint: " + failure.hint);
}

void TextReporter::note(const std::string& message) {
    line(message);
}

void TextReporter::run_end(const RunSummary& summary) {
    if (!summary.cleaned_up.empty()) line("stopped what this run started: " + util::join(summary.cleaned_up));
    const char* mark = summary.code == ExitCode::kOk ? "✓" : "✗";
    line(fmt::format("{} {}: {} ({}) · exit {} ({})", mark, summary.verb, summary.message,
                     format_elapsed(summary.elapsed), to_int(summary.code), describe(summary.code)));
}

}  // namespace pdctl::report
