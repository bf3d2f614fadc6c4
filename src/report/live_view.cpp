#include "pdctl/report/live_view.hpp"

#include <fmt/format.h>

#include "pdctl/report/output.hpp"
#include "pdctl/report/terminal.hpp"

namespace pdctl::report {
using engine::Duration;
using engine::RunSummary;
using engine::StageFailure;
using engine::UnitProgress;

namespace {

constexpr std::size_t kDefaultWidth = 120;

}  // namespace

LiveViewReporter::LiveViewReporter(std::FILE* out, const util::Redactor& redactor, LiveStyle style)
    : out_(out), redactor_(redactor), style_(style), text_(out, redactor, /*utc_timestamps=*/false) {}

LiveViewReporter::~LiveViewReporter() {
    // A run that ended without run_end (an exception): the block stays as it was last drawn.
    stop_ticker();
}

std::size_t LiveViewReporter::terminal_width() const {
    return static_cast<std::size_t>(report::terminal_columns(out_).value_or(kDefaultWidth));
}

void LiveViewReporter::draw_locked(bool final) {
    const auto lines = model_.render(LiveClock::now(), style_);
    // The last column stays free: a line that fills it leaves some terminals with a pending wrap.
    const auto width = terminal_width() - 1;
    std::string text;
    if (drawn_ > 0) text += fmt::format("\r\x1b[{}A", drawn_);  // back to the block's first line
    for (const auto& line : lines) text += fit_width(redactor_.redact(line), width) + "\x1b[K\n";
    text += "\x1b[J";  // the block may have shrunk
    write_text(out_, text);
    drawn_ = final ? 0 : lines.size();
}

void LiveViewReporter::erase_locked() {
    if (drawn_ == 0) return;
    write_text(out_, fmt::format("\r\x1b[{}A\x1b[J", drawn_));
    drawn_ = 0;
}

void LiveViewReporter::stop_ticker() {
    {
        std::lock_guard lock(mutex_);
        ticking_ = false;
    }
    wake_.notify_all();
    if (ticker_.joinable()) ticker_.join();
}

void LiveViewReporter::run_begin(const std::string& verb, const plan::Plan& plan) {
    stop_ticker();  // restart: the stop run's ticker is done, the start run gets its own
    std::lock_guard lock(mutex_);
    text_.run_begin(verb, plan);  // the header line, kept in the scrollback
    failure_.reset();
    model_.run_begin(verb, plan, LiveClock::now());
    draw_locked(false);
    ticking_ = true;
    ticker_ = std::thread([this] {
        std::unique_lock ticker_lock(mutex_);
        while (ticking_) {
            wake_.wait_for(ticker_lock, std::chrono::seconds(1));
            // ticking_ may have been cleared by run_end() on another thread while this one waited.
            // cppcheck-suppress knownConditionTrueFalse
            if (ticking_ && model_.active()) draw_locked(false);
        }
    });
}

void LiveViewReporter::stage_begin(const std::string& verb, const plan::Stage& stage) {
    std::lock_guard lock(mutex_);
    model_.stage_begin(verb, stage, LiveClock::now());
    draw_locked(false);
}

void LiveViewReporter::stage_skipped(const plan::Stage& stage, const std::string& why) {
    std::lock_guard lock(mutex_);
    model_.stage_skipped(stage, why);
    draw_locked(false);
}

void LiveViewReporter::unit_done(const std::string& verb, const plan::Unit& unit,
                                 const std::string& /*detail*/) {
    std::lock_guard lock(mutex_);
    model_.unit_done(verb, unit);
    draw_locked(false);
}

void LiveViewReporter::gate_waiting(const plan::Stage& stage, const std::string& last_answer,
                                    Duration /*elapsed*/) {
    std::lock_guard lock(mutex_);
    model_.gate_waiting(stage, last_answer);
    draw_locked(false);
}

void LiveViewReporter::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                     const UnitProgress& progress) {
    std::lock_guard lock(mutex_);
    model_.unit_progress(stage, unit, progress, LiveClock::now());
    // Periodic refreshes wait for the ticker: a poll brings one per unit at once.
    if (progress.changed()) draw_locked(false);
}

void LiveViewReporter::stage_ready(const plan::Stage& stage, Duration elapsed) {
    std::lock_guard lock(mutex_);
    model_.stage_ready(stage, elapsed);
    draw_locked(false);
}

void LiveViewReporter::stage_failed(const StageFailure& failure, Duration elapsed) {
    std::lock_guard lock(mutex_);
    model_.stage_failed(failure, elapsed);
    failure_ = {failure, elapsed};
    draw_locked(false);
}

void LiveViewReporter::note(const std::string& message) {
    std::lock_guard lock(mutex_);
    erase_locked();
    text_.note(message);
    draw_locked(false);
}

void LiveViewReporter::run_end(const RunSummary& summary) {
    {
        std::lock_guard lock(mutex_);
        model_.run_end(summary);
        draw_locked(true);  // the final block, now ordinary output
        if (failure_) text_.stage_failed(failure_->first, failure_->second);
        failure_.reset();
        text_.run_end(summary);
    }
    stop_ticker();
}

}  // namespace pdctl::report
