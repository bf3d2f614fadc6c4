// Start scheduling: which stage may start when. Stages launch in plan order; stage i starts once every
// earlier stage j passed the gate that i's edge to j names — its readiness (`ready`, and the rule for
// stages without an edge between them), its rank-0 bootstrap server (`bootstrap`), or just its launch
// (`started`). Every launched stage keeps being watched (liveness, gate, progress) until it is ready,
// and start succeeds only when all are. With only `ready` edges this is the serial order, one stage
// waiting at a time, exactly as before narrow gates existed.

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "pdctl/util/durations.hpp"
#include "starter.hpp"
#include "waiting.hpp"

namespace pdctl::engine {
namespace {

enum class State { kPending, kWaiting, kReady };

// A narrow edge whose gate is probed while its dependency is launched but not ready yet.
struct EdgeWatch {
    bool passed = false;
    TimePoint next_probe{};
};

struct Slot {
    State state = State::kPending;
    std::optional<WaitingStage> waiting;  // while kWaiting
    std::vector<EdgeWatch> edges;         // one per Stage::edges entry
};

}  // namespace

StageResult Starter::start_stages(const std::vector<bool>& starting,
                                  std::vector<const plan::Stage*>& started) {
    const auto& stages = run_.plan.stages;
    std::vector<Slot> slots(stages.size());
    std::size_t first = stages.size();  // the first stage to start
    for (std::size_t i = 0; i < stages.size(); ++i) {
        slots[i].edges.resize(stages[i].edges.size());
        if (!starting[i]) slots[i].state = State::kReady;  // already running with this config and ready
        if (starting[i] && first == stages.size()) first = i;
    }
    auto index_of = [&](const std::string& role) {
        for (std::size_t j = 0; j < stages.size(); ++j)
            if (stages[j].role == role) return j;
        return stages.size();
    };
    auto edge_passed = [&](std::size_t i, std::size_t j) {
        const auto& stage = stages[i];
        switch (stage.waits_for(stages[j].role)) {
            case plan::GateKind::Ready:
                return slots[j].state == State::kReady;
            case plan::GateKind::Started:
                return slots[j].state != State::kPending;
            case plan::GateKind::Bootstrap:
                break;
        }
        if (slots[j].state == State::kReady) return true;  // the bootstrap server came up before that
        for (std::size_t e = 0; e < stage.edges.size(); ++e)
            if (stage.edges[e].role == stages[j].role) return slots[i].edges[e].passed;
        return false;
    };
    // Groups of one role start together: neither depends on the other.
    auto siblings = [&](std::size_t i, std::size_t j) {
        return stages[i].groups > 1 && !stages[i].config_role.empty() &&
               stages[i].config_role == stages[j].config_role;
    };
    auto may_start = [&](std::size_t i) {
        for (std::size_t j = 0; j < i; ++j)
            if (!siblings(i, j) && !edge_passed(i, j)) return false;
        return true;
    };
    // The stage an interrupt is reported against: the newest one still waiting.
    auto interrupted_result = [&] {
        const plan::Stage* stage = started.empty() ? &stages[first] : started.front();
        for (std::size_t i = stages.size(); i-- > first;)
            if (slots[i].state == State::kWaiting) {
                stage = &stages[i];
                break;
            }
        return StageResult{ExitCode::kInterrupted,
                           {stage->role, stage->gate.node, "", 0, "interrupted", {}, "", {}}};
    };

    while (true) {
        if (interrupted()) return interrupted_result();
        bool moved = false;

        for (std::size_t i = first; i < stages.size(); ++i) {
            if (slots[i].state != State::kPending || !may_start(i)) continue;
            const auto& stage = stages[i];
            const auto began = run_.clock.now();
            started.insert(started.begin(), &stage);
            run_.reporter.stage_begin("start", stage);
            auto launched = run_.backend.launch(run_.plan, stage, run_.reporter, run_.options.start_hook);
            if (launched.code != ExitCode::kOk) return launched;
            slots[i].state = State::kWaiting;
            slots[i].waiting.emplace(run_.plan, stage, began, run_.clock.now(),
                                     run_.options.progress_tail_lines);
            moved = true;
        }
        if (std::all_of(slots.begin(), slots.end(), [](const Slot& s) { return s.state == State::kReady; }))
            return {};

        auto tick = run_.options.liveness_interval;
        if (run_.options.progress_interval.count() > 0) tick = std::min(tick, run_.options.progress_interval);
        for (auto& slot : slots) {
            if (slot.state != State::kWaiting) continue;
            const auto since_begin =
                std::chrono::duration_cast<Duration>(run_.clock.now() - slot.waiting->began);
            tick = std::min(tick, slot.waiting->stage.gate.probe_interval(since_begin));
            auto result = poll_gate(*slot.waiting);
            if (!result) continue;
            if (result->code != ExitCode::kOk) return *result;
            slot.state = State::kReady;
            slot.waiting.reset();
            moved = true;
        }

        for (std::size_t i = first; i < stages.size(); ++i) {
            if (slots[i].state != State::kPending) continue;
            const auto& stage = stages[i];
            for (std::size_t e = 0; e < stage.edges.size(); ++e) {
                const auto& edge = stage.edges[e];
                auto& watch = slots[i].edges[e];
                const auto j = index_of(edge.role);
                if (edge.kind != plan::GateKind::Bootstrap || watch.passed || j >= stages.size() ||
                    slots[j].state != State::kWaiting)
                    continue;
                tick = std::min(tick, edge.gate.interval);
                const auto now = run_.clock.now();
                if (now < watch.next_probe) continue;
                const auto probe =
                    run_.prober.get(edge.gate.url, std::min(run_.options.probe_timeout, edge.gate.interval));
                if (!probe.ok(edge.gate.expect_status)) {
                    watch.next_probe = now + edge.gate.interval;
                    continue;
                }
                watch.passed = true;
                moved = true;
                const auto since = std::chrono::duration_cast<Duration>(now - slots[j].waiting->began);
                run_.reporter.note(fmt::format("{} may start: {} bootstrap gate passed ({}) after {}",
                                               stage.role, edge.role, edge.gate.why,
                                               util::format_elapsed(since)));
            }
        }

        if (!moved) run_.clock.sleep_for(tick);
    }
}

}  // namespace pdctl::engine

namespace pdctl::engine {

StageResult Starter::wait_ready(const plan::Stage& stage, TimePoint from) {
    WaitingStage waiting(run_.plan, stage, from, run_.clock.now(), run_.options.progress_tail_lines);
    for (;;) {
        if (interrupted())
            return {ExitCode::kInterrupted, {stage.role, stage.gate.node, "", 0, "interrupted", {}, "", {}}};
        if (auto result = poll_gate(waiting)) return *result;
        auto tick = run_.options.liveness_interval;
        if (run_.options.progress_interval.count() > 0) tick = std::min(tick, run_.options.progress_interval);
        tick = std::min(tick, stage.gate.probe_interval(
                                  std::chrono::duration_cast<Duration>(run_.clock.now() - waiting.began)));
        run_.clock.sleep_for(tick);
    }
}

}  // namespace pdctl::engine
