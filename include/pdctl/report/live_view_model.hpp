#pragma once
// What the live view shows, kept apart from the terminal: reporter events in, screen lines out.
// The caller passes the time, so tests render any moment of a start without waiting. Pure.
//
//   start local · 0:42
//    ✓ mooncake-master  0:01  n1        ready
//    ◐ prefill          0:38  n1 rank0  capturing CUDA graphs 0:12 · init 0:03, weights 0:20, KV 0:03
//                             n2–n3     joined, loading weights 0:35 · quiet 0:31
//                             n4 rank3  joined, allocating KV cache 5:20 · stalled 5:12
//    · decode                 —         waiting for prefill

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/reporter.hpp"

namespace pdctl::report {

using LiveClock = std::chrono::steady_clock;

struct LiveStyle {
    bool color = true;  // ANSI colours (off with NO_COLOR)
};

// Longer silences than this are shown as "quiet"; "stalled" is the engine's verdict (stall_after).
inline constexpr std::chrono::seconds kQuietAfter{30};

class LiveViewModel {
  public:
    void run_begin(const std::string& verb, const plan::Plan& plan, LiveClock::time_point now);
    void stage_begin(const std::string& verb, const plan::Stage& stage, LiveClock::time_point now);
    void stage_skipped(const plan::Stage& stage, const std::string& why);
    void unit_done(const std::string& verb, const plan::Unit& unit);
    void gate_waiting(const plan::Stage& stage, const std::string& answer);
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit, const engine::UnitProgress& progress,
                       LiveClock::time_point now);
    void stage_ready(const plan::Stage& stage, engine::Duration elapsed);
    void stage_failed(const engine::StageFailure& failure, engine::Duration elapsed);
    void run_end(const engine::RunSummary& summary);

    // Between run_begin and run_end.
    bool active() const { return active_; }
    // The block at `now`: a header line, then one or more lines per role.
    std::vector<std::string> render(LiveClock::time_point now, const LiveStyle& style) const;

  private:
    enum class State { kPending, kReplacing, kStarting, kReady, kSkipped, kFailed, kStopping, kStopped };
    struct UnitView {
        std::string node;
        int rank = 0;
        std::optional<engine::UnitProgress> progress;  // the newest
        LiveClock::time_point received;                // when it arrived: the view ticks on from there
        std::vector<std::pair<runtime::Phase, engine::Duration>>
            finished;  // phases done, with how long each took
        std::vector<std::string> warnings;
        bool stopped = false;
    };
    struct RoleView {
        std::string role;
        std::vector<std::string> after;
        std::string gate_why;
        State state = State::kPending;
        LiveClock::time_point began;
        engine::Duration frozen{0};  // elapsed when it became ready or failed
        std::string detail;          // why skipped / why failed / the gate's last answer
        std::vector<UnitView> units;
        std::string failed_node;
        int failed_rank = -1;
    };
    struct Row;

    RoleView* find(const std::string& role);
    const RoleView* find(const std::string& role) const;
    void add_rows(const RoleView& role, LiveClock::time_point now, std::vector<Row>& rows) const;
    void add_unit_rows(const RoleView& role, LiveClock::time_point now, std::vector<Row>& rows) const;

    std::string verb_;
    std::string cluster_;
    LiveClock::time_point began_;
    bool active_ = false;
    std::optional<engine::RunSummary> summary_;
    std::vector<RoleView> roles_;
};

// `text` cut to `width` visible characters (UTF-8 code points; ANSI colour sequences take no room),
// so a line never wraps and moving the cursor up by the number of lines stays exact.
std::string fit_width(const std::string& text, std::size_t width);

}  // namespace pdctl::report
