#include "pdctl/timeline/start_history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pdctl/util/durations.hpp"

namespace pdctl::timeline {
namespace {

// A phase or stage is slower only when it ran past the slowest recorded one by more than a progress
// poll: the journal dates phases to the poll and the log's second, not to the millisecond.
constexpr long long kPaceSlackMs = 2000;

std::string span(long long ms) {
    return util::format_elapsed(std::chrono::milliseconds(std::max(ms, 0LL)));
}

void keep_newest(std::vector<long long>& samples) {
    if (samples.size() > kStartsKept)
        samples.erase(samples.begin(), samples.end() - static_cast<std::ptrdiff_t>(kStartsKept));
}

}  // namespace

const StageSamples* StartHistory::find(const std::string& fingerprint) const {
    const auto found = stages.find(fingerprint);
    return found == stages.end() ? nullptr : &found->second;
}

std::string warm_key(const std::string& fingerprint) {
    return fingerprint + "#warm";
}

StartHistory start_history(const std::vector<RunTimeline>& runs) {
    StartHistory history;
    for (const auto& run : runs) {
        if (!run.succeeded())
            continue;  // a failed start's times say how it failed, not how long a start takes
        for (const auto& stage : run.stages) {
            if (!stage.ready_ms || stage.fingerprint.empty()) continue;
            // A start that found every compiled kernel is kept apart: a deadline learned from it would
            // cut short the next start that misses its cache.
            auto& samples = history.stages[stage.warm() ? warm_key(stage.fingerprint) : stage.fingerprint];
            samples.ready_ms.push_back(stage.ready_after_ms());
            std::map<std::string, long long> slowest;
            for (const auto& unit : stage.units)
                for (const auto& phase : unit.phases) {
                    // The last phase runs into the gate, not to its own end: only finished phases count.
                    if (&phase == &unit.phases.back()) continue;
                    auto& most = slowest[phase.phase];
                    most = std::max(most, phase.end_ms - phase.begin_ms);
                }
            for (const auto& [phase, ms] : slowest) samples.phase_ms[phase].push_back(ms);
        }
    }
    for (auto& [fingerprint, samples] : history.stages) {
        keep_newest(samples.ready_ms);
        for (auto& [phase, values] : samples.phase_ms) keep_newest(values);
    }
    return history;
}

long long percentile(std::vector<long long> samples, double p) {
    std::sort(samples.begin(), samples.end());
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
    return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

DeadlineChoice choose_deadline(const StageSamples* samples, plan::Duration configured, plan::Duration floor,
                               DeadlinePolicy policy) {
    DeadlineChoice choice{configured, false, ""};
    const std::size_t count = samples ? samples->ready_ms.size() : 0;
    if (policy == DeadlinePolicy::kFixed) {
        if (count > 0)
            choice.note = fmt::format("configured (--deadline-policy fixed; {} past starts known)", count);
        return choice;
    }
    if (count == 0) return choice;
    if (count < kStartsToLearn) {
        choice.note = fmt::format("configured: {} of the {} successful starts needed to learn one", count,
                                  kStartsToLearn);
        return choice;
    }
    const long long p95 = percentile(samples->ready_ms, 95);
    const auto wanted =
        plan::Duration(static_cast<long long>(std::llround(static_cast<double>(p95) * kDeadlineMargin)));
    // The floor never rises above what the operator configured: the configured deadline is the ceiling.
    const auto low = std::min(floor, configured);
    choice.deadline = std::clamp(wanted, low, configured);
    choice.learned = true;
    const char* bound = choice.deadline == configured && wanted > configured
                            ? ", capped at the configured deadline"
                        : choice.deadline == low && wanted < low ? ", raised to the floor"
                                                                 : "";
    choice.note = fmt::format("learned from {} starts: p95 {} × {} = {}{} (floor {}, configured {})", count,
                              span(p95), kDeadlineMargin, span(wanted.count()), bound, span(low.count()),
                              span(configured.count()));
    return choice;
}

bool deadline_learned(const plan::Gate& gate) {
    return gate.deadline_note.rfind("learned from ", 0) == 0;  // choose_deadline's note when it learned
}

namespace {

// A Ready edge waits on a copy of its dependency's gate: `update(copy, gate)` for each.
template <typename Update>
void each_ready_edge(plan::Plan& plan, Update update) {
    for (auto& stage : plan.stages)
        for (auto& edge : stage.edges)
            if (edge.kind == plan::GateKind::Ready)
                if (const auto* dependency = plan.find_stage(edge.role)) update(edge.gate, dependency->gate);
}

}  // namespace

void apply_deadlines(plan::Plan& plan, const StartHistory& history, plan::Duration floor,
                     DeadlinePolicy policy) {
    for (auto& stage : plan.stages) {
        const auto choice =
            choose_deadline(history.find(stage.fingerprint()), stage.gate.deadline, floor, policy);
        stage.gate.deadline = choice.deadline;
        stage.gate.deadline_note = choice.note;
        if (const auto* warm = history.find(warm_key(stage.fingerprint()));
            warm && policy == DeadlinePolicy::kLearned) {
            stage.gate.deadline_note += fmt::format(
                "{}{} warm starts (kernel cache hit, p95 {}) not counted: a start may miss its cache",
                stage.gate.deadline_note.empty() ? "" : "; ", warm->ready_ms.size(),
                span(percentile(warm->ready_ms, 95)));
        }
    }
    each_ready_edge(plan, [](plan::Gate& copy, const plan::Gate& gate) {
        copy.deadline = gate.deadline;
        copy.deadline_note = gate.deadline_note;
    });
}

namespace {

void set_quick_window(plan::Gate& gate, const StageSamples* samples) {
    gate.quick_from = gate.quick_until = plan::Duration(0);
    if (!samples || samples->ready_ms.size() < kStartsToLearn || gate.interval.count() <= 0) return;
    const auto [fastest, slowest] = std::minmax_element(samples->ready_ms.begin(), samples->ready_ms.end());
    const long long interval = gate.interval.count();
    const long long from = std::max(0LL, *fastest - interval), until = *slowest + interval;
    if (until - from > kQuickWindowIntervals * interval) return;
    gate.quick_from = plan::Duration(from);
    gate.quick_until = plan::Duration(until);
}

}  // namespace

void apply_quick_windows(plan::Plan& plan, const StartHistory& history) {
    for (auto& stage : plan.stages) set_quick_window(stage.gate, history.find(stage.fingerprint()));
    each_ready_edge(plan, [](plan::Gate& copy, const plan::Gate& gate) {
        copy.quick_from = gate.quick_from;
        copy.quick_until = gate.quick_until;
    });
}

std::optional<std::string> PaceJudge::phase(const plan::Stage& stage, const plan::Unit& unit,
                                            const std::string& phase_id, const std::string& phase_label,
                                            long long elapsed_ms) {
    const auto* samples = history_.find(stage.fingerprint());
    if (!samples) return std::nullopt;
    const auto found = samples->phase_ms.find(phase_id);
    if (found == samples->phase_ms.end() || found->second.size() < kStartsToLearn) return std::nullopt;
    const long long most = *std::max_element(found->second.begin(), found->second.end());
    const std::string key = stage.role + "/" + phase_id;
    if (elapsed_ms <= most + kPaceSlackMs || std::find(said_.begin(), said_.end(), key) != said_.end())
        return std::nullopt;
    said_.push_back(key);
    const std::string where = stage.units.size() > 1 ? fmt::format(" on {} rank {}", unit.node, unit.rank)
                                                     : fmt::format(" on {}", unit.node);
    return fmt::format("{} {} {}{}: slower than any of the last {} starts (max {})", stage.role, phase_label,
                       span(elapsed_ms), where, found->second.size(), span(most));
}

std::optional<std::string> PaceJudge::stage(const plan::Stage& stage, long long elapsed_ms) {
    const auto* samples = history_.find(stage.fingerprint());
    if (!samples || samples->ready_ms.size() < kStartsToLearn) return std::nullopt;
    const long long most = *std::max_element(samples->ready_ms.begin(), samples->ready_ms.end());
    const std::string key = stage.role + "/";
    if (elapsed_ms <= most + kPaceSlackMs || std::find(said_.begin(), said_.end(), key) != said_.end())
        return std::nullopt;
    said_.push_back(key);
    return fmt::format("{} not ready after {}: slower than any of the last {} starts (max {})", stage.role,
                       span(elapsed_ms), samples->ready_ms.size(), span(most));
}

}  // namespace pdctl::timeline
