#include "pdctl/report/live_view_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::report {
using engine::Duration;
using engine::RunSummary;
using engine::StageFailure;
using engine::UnitProgress;
using runtime::Phase;
using runtime::phase_label;
using util::format_clock;

namespace {

using util::pad;

constexpr const char* kReset = "\x1b[0m";
constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kYellow = "\x1b[33m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kCyan = "\x1b[36m";
constexpr const char* kDim = "\x1b[2m";

std::string paint(const std::string& text, const char* colour, const LiveStyle& style) {
    if (!style.color || text.empty()) return text;
    return colour + text + kReset;
}

bool in_group_phases(Phase phase) {
    return phase == Phase::kLoadingWeights || phase == Phase::kKvCache || phase == Phase::kCudaGraphs;
}

// Silence is expected once a unit is done or waiting on others.
bool can_go_quiet(Phase phase) {
    return phase != Phase::kJoined && phase != Phase::kReady && phase != Phase::kFailed;
}

}  // namespace

struct LiveViewModel::Row {
    enum class Mark { kNone, kDone, kBusy, kIdle, kFailed };
    Mark mark = Mark::kNone;
    std::string role;
    std::string elapsed;
    std::string where;
    std::string what;
    std::string note;      // after " · "
    std::string alert;     // after the note, in yellow: "stalled 5:12"
    std::string quiet;     // after the note, dim: "quiet 0:45" (a silence that is not a stall yet)
    bool warning = false;  // the whole line is a warning
};

std::string fit_width(const std::string& text, std::size_t width) {
    std::string out;
    std::size_t visible = 0;
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0x1b) {  // CSI sequence: copied whole, takes no room
            escaped = true;
            std::size_t end = i + 1;
            if (end < text.size() && text[end] == '[') {
                ++end;
                while (end < text.size() && !(text[end] >= 0x40 && text[end] <= 0x7e)) ++end;
            }
            out.append(text, i, end + 1 - i);
            i = end;
            continue;
        }
        if ((c & 0xC0) != 0x80) {
            if (visible == width) {
                if (escaped) out += kReset;
                return out;
            }
            ++visible;
        }
        out += static_cast<char>(c);
    }
    return out;
}

LiveViewModel::RoleView* LiveViewModel::find(const std::string& role) {
    for (auto& candidate : roles_)
        if (candidate.role == role) return &candidate;
    return nullptr;
}

const LiveViewModel::RoleView* LiveViewModel::find(const std::string& role) const {
    for (const auto& candidate : roles_)
        if (candidate.role == role) return &candidate;
    return nullptr;
}

void LiveViewModel::run_begin(const std::string& verb, const plan::Plan& plan, LiveClock::time_point now) {
    verb_ = verb;
    cluster_ = plan.cluster;
    began_ = now;
    active_ = true;
    summary_.reset();
    roles_.clear();
    for (const auto& stage : plan.stages) {
        RoleView role;
        role.role = stage.role;
        role.after = stage.after();
        role.gate_why = stage.gate.why;
        for (const auto& unit : stage.units)
            role.units.push_back({unit.node, unit.rank, {}, {}, {}, {}, false});
        roles_.push_back(std::move(role));
    }
}

void LiveViewModel::stage_begin(const std::string& verb, const plan::Stage& stage,
                                LiveClock::time_point now) {
    auto* role = find(stage.role);
    if (!role) return;
    if (verb == "cleanup" && role->state == State::kFailed) return;  // keep the failure on screen
    role->began = now;
    role->detail.clear();
    for (auto& unit : role->units) unit = {unit.node, unit.rank, {}, {}, {}, {}, false};
    if (verb == "start")
        role->state = State::kStarting;
    else if (verb == "replace")
        role->state = State::kReplacing;
    else
        role->state = State::kStopping;  // stop, cleanup
}

void LiveViewModel::stage_skipped(const plan::Stage& stage, const std::string& why) {
    if (auto* role = find(stage.role)) {
        role->state = State::kSkipped;
        role->detail = why;
    }
}

void LiveViewModel::unit_done(const std::string& verb, const plan::Unit& unit) {
    auto* role = find(unit.role);
    if (!role || verb == "start") return;
    bool all = true;
    for (auto& candidate : role->units) {
        if (candidate.rank == unit.rank) candidate.stopped = true;
        all = all && candidate.stopped;
    }
    if (all && role->state == State::kStopping) role->state = State::kStopped;
    // The old units are gone; the role now waits for its turn to start.
    if (all && role->state == State::kReplacing) role->state = State::kPending;
}

void LiveViewModel::gate_waiting(const plan::Stage& stage, const std::string& answer) {
    if (auto* role = find(stage.role)) role->detail = answer;
}

void LiveViewModel::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                  const UnitProgress& progress, LiveClock::time_point now) {
    auto* role = find(stage.role);
    if (!role) return;
    for (auto& view : role->units) {
        if (view.rank != unit.rank) continue;
        if (progress.phase_changed && progress.previous)
            view.finished.emplace_back(*progress.previous, progress.previous_took);
        for (const auto& warning : progress.new_warnings) view.warnings.push_back(warning);
        view.progress = progress;
        view.received = now;
    }
}

void LiveViewModel::stage_ready(const plan::Stage& stage, Duration elapsed) {
    if (auto* role = find(stage.role)) {
        role->state = State::kReady;
        role->frozen = elapsed;
    }
}

void LiveViewModel::stage_failed(const StageFailure& failure, Duration elapsed) {
    if (auto* role = find(failure.role)) {
        role->state = State::kFailed;
        role->frozen = elapsed;
        role->detail = failure.reason;
        role->failed_node = failure.node;
        role->failed_rank = failure.rank;
    }
}

void LiveViewModel::run_end(const RunSummary& summary) {
    active_ = false;
    summary_ = summary;
}

namespace {

// "n2–n4" for a run of units, "n3 rank2" for one unit of a group, "n1" for a one-unit role.
template <typename Unit>
std::string where_of(const std::vector<const Unit*>& units, std::size_t role_size) {
    if (units.size() == 1)
        return role_size > 1 ? fmt::format("{} rank{}", units[0]->node, units[0]->rank) : units[0]->node;
    return units.front()->node + "–" + units.back()->node;
}

template <typename Unit>
Duration ticking(Duration at_event, const Unit& unit, LiveClock::time_point now) {
    return at_event + std::chrono::duration_cast<Duration>(now - unit.received);
}

// "init 0:03, weights 4:10": how long each finished phase took; `closed_at` (stage time) closes the
// current one too once the role is ready. Blips under a second are left out.
template <typename Unit>
std::string history(const Unit& unit, std::optional<Duration> closed_at) {
    auto phases = unit.finished;
    if (closed_at && unit.progress && unit.progress->phase != Phase::kReady) {
        const auto began = unit.progress->stage_elapsed - unit.progress->phase_elapsed;
        phases.emplace_back(unit.progress->phase, std::max(Duration{0}, *closed_at - began));
    }
    std::string text;
    for (const auto& [phase, took] : phases) {
        if (took < std::chrono::seconds(1)) continue;
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", runtime::phase_short_label(phase),
                            format_clock(took));
    }
    return text;
}

}  // namespace

void LiveViewModel::add_unit_rows(const RoleView& role, LiveClock::time_point now,
                                  std::vector<Row>& rows) const {
    const bool any_progress = std::any_of(role.units.begin(), role.units.end(),
                                          [](const UnitView& u) { return u.progress.has_value(); });
    if (!any_progress) {
        // Progress is off (or the first poll has not come back): the gate is all there is to show.
        std::vector<const UnitView*> all;
        for (const auto& unit : role.units) all.push_back(&unit);
        Row row;
        row.where = all.empty() ? "—" : where_of(all, all.size());
        row.what = role.detail.empty() ? "starting" : "waiting for " + role.gate_why + ": " + role.detail;
        rows.push_back(row);
        return;
    }
    // One line per run of units that read the same; rank 0 (the one serving HTTP) always on its own.
    struct Line {
        std::vector<const UnitView*> units;
        std::string what;
        bool stalled = false;
        bool quiet = false;
        Duration elapsed{0};
        Duration stalled_for{0};
    };
    std::vector<Line> lines;
    for (const auto& unit : role.units) {
        Line line{{&unit}, "starting", false, false, Duration{0}, Duration{0}};
        if (unit.progress) {
            const auto phase = unit.progress->phase;
            line.what = std::string(phase_label(phase));
            if (unit.rank > 0 && in_group_phases(phase)) line.what = "joined, " + line.what;
            line.elapsed = ticking(unit.progress->phase_elapsed, unit, now);
            line.stalled_for = ticking(unit.progress->stalled_for, unit, now);
            // Stalled is the engine's verdict (the group's ranks judged together, stall_after); a
            // shorter silence is only shown as quiet.
            line.stalled = unit.progress->verdict == engine::RankVerdict::kStalled;
            line.quiet = !line.stalled && can_go_quiet(phase) && line.stalled_for > kQuietAfter;
        }
        auto& last = lines.empty() ? line : lines.back();
        const bool joins = !lines.empty() && unit.rank > 1 && last.units.back()->rank == unit.rank - 1 &&
                           last.what == line.what && last.stalled == line.stalled && last.quiet == line.quiet;
        if (!joins) {
            lines.push_back(line);
            continue;
        }
        last.units.push_back(&unit);
        last.elapsed = std::max(last.elapsed, line.elapsed);
        last.stalled_for = std::max(last.stalled_for, line.stalled_for);
    }
    for (const auto& line : lines) {
        Row row;
        row.where = where_of(line.units, role.units.size());
        row.what = line.what + " " + format_clock(line.elapsed);
        if (line.units.front()->rank == 0) row.note = history(*line.units.front(), std::nullopt);
        if (line.stalled) row.alert = "stalled " + format_clock(line.stalled_for);
        if (line.quiet) row.quiet = "quiet " + format_clock(line.stalled_for);
        rows.push_back(row);
    }
}

void LiveViewModel::add_rows(const RoleView& role, LiveClock::time_point now, std::vector<Row>& rows) const {
    std::vector<const UnitView*> all;
    for (const auto& unit : role.units) all.push_back(&unit);
    const std::string range = all.empty() ? "—" : where_of(all, all.size());
    const auto first = rows.size();
    const auto running = std::chrono::duration_cast<Duration>(now - role.began);
    Row row;
    row.where = range;
    switch (role.state) {
        case State::kPending: {
            row.mark = Row::Mark::kIdle;
            row.where = "—";
            std::vector<std::string> waiting;
            for (const auto& dependency : role.after) {
                const auto* other = find(dependency);
                if (other && (other->state == State::kReady || other->state == State::kSkipped)) continue;
                waiting.push_back(dependency);
            }
            if (summary_)
                row.what = "not started";
            else if (verb_ != "start")
                row.what = "pending";
            else
                row.what = waiting.empty() ? "queued" : "waiting for " + util::join(waiting, " and ");
            rows.push_back(row);
            break;
        }
        case State::kReplacing:
        case State::kStopping:
            row.mark = Row::Mark::kBusy;
            row.elapsed = format_clock(running);
            row.what = role.state == State::kReplacing ? "stopping the old units" : "stopping";
            rows.push_back(row);
            break;
        case State::kStopped:
            row.mark = verb_ == "stop" ? Row::Mark::kDone : Row::Mark::kIdle;
            row.what = verb_ == "stop" ? "stopped" : "stopped (clean-up)";
            rows.push_back(row);
            break;
        case State::kSkipped:
            row.mark = Row::Mark::kDone;
            row.what = role.detail;
            rows.push_back(row);
            break;
        case State::kReady:
            row.mark = Row::Mark::kDone;
            row.elapsed = format_clock(role.frozen);
            row.what = "ready";
            if (!role.units.empty()) row.note = history(role.units.front(), role.frozen);
            rows.push_back(row);
            break;
        case State::kFailed: {
            row.mark = Row::Mark::kFailed;
            row.elapsed = format_clock(role.frozen);
            row.what = role.detail;
            for (const auto& unit : role.units) {
                if (unit.node != role.failed_node || unit.rank != role.failed_rank) continue;
                row.where = where_of(std::vector<const UnitView*>{&unit}, role.units.size());
                // The phase it was in: the failure line itself is not one.
                std::optional<Phase> during;
                if (unit.progress) during = unit.progress->phase;
                if (during == Phase::kFailed)
                    during = unit.finished.empty() ? std::nullopt : std::optional(unit.finished.back().first);
                if (during) row.what += fmt::format(" while {}", phase_label(*during));
            }
            rows.push_back(row);
            break;
        }
        case State::kStarting:
            add_unit_rows(role, now, rows);
            rows[first].mark = Row::Mark::kBusy;
            rows[first].elapsed = format_clock(running);
            break;
    }
    rows[first].role = role.role;
    if (role.state != State::kStarting && role.state != State::kReady && role.state != State::kFailed) return;

    // Warnings last, one line each, naming every unit that logged them.
    std::vector<std::pair<std::string, std::vector<const UnitView*>>> warnings;
    for (const auto& unit : role.units) {
        for (const auto& warning : unit.warnings) {
            auto it = std::find_if(warnings.begin(), warnings.end(),
                                   [&](const auto& w) { return w.first == warning; });
            if (it == warnings.end())
                warnings.push_back({warning, {&unit}});
            else
                it->second.push_back(&unit);
        }
    }
    for (const auto& [warning, units] : warnings) {
        Row warning_row;
        if (units.size() == role.units.size() || units.size() == 1) {
            warning_row.where = units.size() == 1 ? where_of(units, role.units.size()) : range;
        } else {
            for (const auto* unit : units)
                warning_row.where += (warning_row.where.empty() ? "" : ",") + unit->node;
        }
        warning_row.what = "warning: " + warning;
        warning_row.warning = true;
        rows.push_back(warning_row);
    }
}

std::vector<std::string> LiveViewModel::render(LiveClock::time_point now, const LiveStyle& style) const {
    std::vector<std::string> out;
    std::string header = fmt::format("{} {} · ", verb_, cluster_);
    if (summary_) {
        header += "took " + format_clock(summary_->elapsed);
    } else {
        header += format_clock(std::chrono::duration_cast<Duration>(now - began_));
    }
    out.push_back(header);

    std::vector<Row> rows;
    for (const auto& role : roles_) add_rows(role, now, rows);
    std::size_t role_width = 0, elapsed_width = 0, where_width = 0;
    for (const auto& row : rows) {
        role_width = std::max(role_width, util::display_width(row.role));
        elapsed_width = std::max(elapsed_width, util::display_width(row.elapsed));
        where_width = std::max(where_width, util::display_width(row.where));
    }
    for (const auto& row : rows) {
        std::string mark = " ";
        switch (row.mark) {
            case Row::Mark::kNone:
                break;
            case Row::Mark::kDone:
                mark = paint("✓", kGreen, style);
                break;
            case Row::Mark::kBusy:
                mark = paint("◐", kCyan, style);
                break;
            case Row::Mark::kIdle:
                mark = paint("·", kDim, style);
                break;
            case Row::Mark::kFailed:
                mark = paint("✗", kRed, style);
                break;
        }
        const std::string elapsed =
            std::string(elapsed_width - util::display_width(row.elapsed), ' ') + row.elapsed;
        std::string what = row.what;
        if (row.mark == Row::Mark::kFailed)
            what = paint(what, kRed, style);
        else if (row.mark == Row::Mark::kIdle)
            what = paint(what, kDim, style);
        else if (row.warning)
            what = paint(what, kYellow, style);
        std::string line = fmt::format(" {} {}  {}  {}  {}", mark, pad(row.role, role_width), elapsed,
                                       pad(row.where, where_width), what);
        if (!row.note.empty()) line += " · " + row.note;
        if (!row.quiet.empty()) line += " · " + paint(row.quiet, kDim, style);
        if (!row.alert.empty()) line += " · " + paint(row.alert, kYellow, style);
        // Trailing blanks would only be erased again.
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out.push_back(line);
    }
    return out;
}

}  // namespace pdctl::report
