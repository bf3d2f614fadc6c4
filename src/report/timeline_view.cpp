#include "pdctl/report/timeline_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pdctl/report/timeline_style.hpp"
#include "pdctl/timeline/critical_path.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::report {
namespace {

using timeline::RunTimeline;
using timeline::StageTimeline;
using timeline::UnitTimeline;

constexpr int kLabelWidth = 24;  // "* prefill-2 n12 r3" and some room

std::string header(const RunTimeline& run) {
    return fmt::format(
        "{} {} · {} · {} · {} · {}\n", run.verb, run.run, run.started, run.who.empty() ? "?" : run.who,
        run.exit_code < 0 ? "unfinished" : (run.result.empty() ? "?" : run.result), span_text(run.span_ms()));
}

struct TextScale {
    long long origin = 0;
    long long span = 1;
    int columns = 1;
    int column(long long at) const {
        const double x = static_cast<double>(at - origin) / static_cast<double>(span) * columns;
        return std::clamp(static_cast<int>(x), 0, columns - 1);
    }
    long long at(int column) const { return origin + (span * column + span / 2) / columns; }
};

std::string axis(const TextScale& scale) {
    const long long step = tick_step_ms(scale.span, scale.columns, 9);
    std::string labels(static_cast<std::size_t>(scale.columns) + 8, ' ');
    std::string rule(static_cast<std::size_t>(scale.columns), '-');
    for (long long t = 0; t <= scale.span; t += step) {
        const int col =
            static_cast<int>(static_cast<double>(t) / static_cast<double>(scale.span) * scale.columns);
        if (col >= scale.columns) break;
        const auto label = tick_label(t);
        labels.replace(static_cast<std::size_t>(col), label.size(), label);
        rule[static_cast<std::size_t>(col)] = '+';
    }
    while (!labels.empty() && labels.back() == ' ') labels.pop_back();
    return fmt::format("{:{}}{}\n{:{}}{}\n", "", kLabelWidth, labels, "", kLabelWidth, rule);
}

// One unit's bar: each column shows the phase at its middle; ◆ after the bar where the gate passed.
std::string bar(const StageTimeline& stage, const UnitTimeline& unit, const TextScale& scale, bool colour) {
    std::string out;
    const int first = scale.column(unit.launched_ms);
    const int last = scale.column(std::max(unit.end_ms() - 1, unit.launched_ms));
    out.append(static_cast<std::size_t>(first), ' ');
    for (int col = first; col <= last; ++col) {
        const long long at = std::clamp(scale.at(col), unit.phases.front().begin_ms, unit.end_ms() - 1);
        const auto* span = &unit.phases.front();
        for (const auto& candidate : unit.phases)
            if (candidate.begin_ms <= at) span = &candidate;
        const auto& style = phase_style(span->phase);
        if (colour)
            out += fmt::format("\x1b[48;5;{}m\x1b[38;5;16m{}\x1b[0m", style.ansi, style.letter);
        else
            out += style.letter;
    }
    const bool gate_row = unit.rank == stage.units.front().rank;
    if (gate_row && stage.ready_ms) out += "◆";
    if (!stage.failure.empty() && unit.critical) out += "✗";
    return out;
}

std::string legend(const std::vector<RunTimeline>& runs) {
    std::string out = "legend:";
    for (const auto* style : phases_in(runs)) out += fmt::format(" {} {} ·", style->letter, style->label);
    return out + " ◆ gate passed · ✗ failed · * critical path\n";
}

std::string chart(const RunTimeline& run, const TimelineTextOptions& options) {
    TextScale scale;
    scale.origin = run.begin_ms;
    scale.span = std::max(options.scale_ms > 0 ? options.scale_ms : run.span_ms(), 1LL);
    scale.columns = std::max(options.width - kLabelWidth - 2, 20);
    std::string out = axis(scale);
    for (const auto& stage : run.stages)
        for (const auto& unit : stage.units) {
            const auto label = fmt::format("{} {}", unit.critical ? '*' : ' ', unit_label(stage, unit));
            out += fmt::format("{:<{}}{}\n", label, kLabelWidth, bar(stage, unit, scale, options.colour));
        }
    return out;
}

std::string stage_table(const RunTimeline& run) {
    std::size_t width = 6;
    for (const auto& stage : run.stages) width = std::max(width, stage.role.size() + 2);
    std::string out =
        fmt::format("{:<{}}{:>12}{:>10}  {}\n", "STAGE", width, "READY AFTER", "DEADLINE", "SLOWEST PHASE");
    for (const auto& stage : run.stages) {
        const auto slowest = slowest_phase(stage);
        const std::string ready = stage.ready_ms          ? span_text(stage.ready_after_ms())
                                  : stage.failure.empty() ? "not ready"
                                                          : "failed";
        const std::string slow = slowest.ms > 0 ? fmt::format("{} {} ({})", phase_style(slowest.phase).label,
                                                              span_text(slowest.ms), slowest.where)
                                                : "";
        out += fmt::format("{:<{}}{:>12}{:>10}  {}\n", stage.role, width, ready,
                           stage.deadline_ms > 0 ? span_text(stage.deadline_ms) : "-", slow);
        if (!stage.failure.empty()) out += fmt::format("  failed: {}\n", stage.failure);
        if (const auto cache = stage.cache_summary(); !cache.empty())
            out += fmt::format("  kernel cache: {}\n", cache);
    }
    return out;
}

// The longest time any unit of the stage spent in `phase`.
long long phase_max(const StageTimeline& stage, const std::string& phase) {
    long long most = 0;
    for (const auto& unit : stage.units) most = std::max(most, unit.phase_ms(phase));
    return most;
}

std::string delta(long long a, long long b) {
    const long long d = b - a;
    return fmt::format("{}{}", d >= 0 ? "+" : "-", span_text(d >= 0 ? d : -d));
}

}  // namespace

std::string render_timeline_text(const RunTimeline& run, const TimelineTextOptions& options) {
    const auto shown = with_critical_path(run);
    std::string out = header(shown);
    const auto path = timeline::describe_critical_path(shown);
    if (!path.empty()) out += "critical path: " + path + "\n";
    out += "\n" + chart(shown, options) + legend({shown}) + "\n" + stage_table(shown);
    return out;
}

std::string render_timeline_comparison(const RunTimeline& run, const RunTimeline& other,
                                       const TimelineTextOptions& options) {
    auto scaled = options;
    scaled.scale_ms = std::max(run.span_ms(), other.span_ms());
    const auto a = with_critical_path(run);
    const auto b = with_critical_path(other);
    std::string out = header(a) + "\n" + chart(a, scaled) + "\n" + header(b) + "\n" + chart(b, scaled) +
                      legend({a, b}) + "\n";
    out += fmt::format("{:<30}{:>12}{:>12}{:>12}\n", "", a.run.substr(0, 11), b.run.substr(0, 11), "CHANGE");
    for (const auto& stage : a.stages) {
        const StageTimeline* twin = nullptr;
        for (const auto& candidate : b.stages)
            if (candidate.role == stage.role) twin = &candidate;
        const auto cell = [](const StageTimeline* s) {
            return s && s->ready_ms ? span_text(s->ready_after_ms()) : "-";
        };
        std::string change = twin && stage.ready_ms && twin->ready_ms
                                 ? delta(stage.ready_after_ms(), twin->ready_after_ms())
                                 : "";
        if (twin && twin->fingerprint != stage.fingerprint && !stage.fingerprint.empty())
            change += " (config changed)";
        out += fmt::format("{:<30}{:>12}{:>12}{:>12}\n", stage.role + " ready after", cell(&stage),
                           cell(twin), change);
        const auto cache = stage.cache_summary();
        const auto twin_cache = twin ? twin->cache_summary() : "";
        if (!cache.empty() || !twin_cache.empty())
            out += fmt::format("{:<30}{:>12}{:>12}\n", "  kernel cache", cache.empty() ? "-" : cache,
                               twin_cache.empty() ? "-" : twin_cache);
        for (const auto& style : phase_styles()) {
            const std::string id(style.id);
            if (id == "starting" || id == "joined" || id == "ready") continue;
            const long long mine = phase_max(stage, id);
            const long long theirs = twin ? phase_max(*twin, id) : 0;
            if (mine == 0 && theirs == 0) continue;
            out += fmt::format("{:<30}{:>12}{:>12}{:>12}\n", "  " + std::string(style.label), span_text(mine),
                               twin ? span_text(theirs) : "-", twin ? delta(mine, theirs) : "");
        }
    }
    out += "(a phase's time is its slowest unit's)\n";
    return out;
}

nlohmann::json timeline_to_json(const RunTimeline& run) {
    const auto shown = with_critical_path(run);
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& stage : shown.stages) {
        nlohmann::json units = nlohmann::json::array();
        for (const auto& unit : stage.units) {
            nlohmann::json phases = nlohmann::json::array();
            for (const auto& span : unit.phases)
                phases.push_back({{"phase", span.phase},
                                  {"begin_ms", span.begin_ms - shown.begin_ms},
                                  {"ms", span.end_ms - span.begin_ms}});
            units.push_back(
                {{"node", unit.node},
                 {"rank", unit.rank},
                 {"launched_ms", unit.launched_ms - shown.begin_ms},
                 {"critical", unit.critical},
                 {"cache", unit.cache.empty() ? nlohmann::json(nullptr) : nlohmann::json(unit.cache)},
                 {"phases", phases}});
        }
        nlohmann::json entry = {
            {"role", stage.role},
            {"kind", stage.kind},
            {"fingerprint", stage.fingerprint},
            {"begin_ms", stage.begin_ms - shown.begin_ms},
            {"end_ms", stage.end_ms - shown.begin_ms},
            {"ready_after_ms", stage.ready_ms ? nlohmann::json(stage.ready_after_ms()) : nlohmann::json()},
            {"deadline_ms", stage.deadline_ms},
            {"critical", stage.critical},
            {"units", units}};
        if (!stage.failure.empty()) entry["failure"] = stage.failure;
        stages.push_back(std::move(entry));
    }
    return {{"run", shown.run},
            {"verb", shown.verb},
            {"started", shown.started},
            {"who", shown.who},
            {"exit_code", shown.exit_code},
            {"result", shown.result},
            {"span_ms", shown.span_ms()},
            {"critical_path", timeline::describe_critical_path(shown)},
            {"stages", stages}};
}

}  // namespace pdctl::report
