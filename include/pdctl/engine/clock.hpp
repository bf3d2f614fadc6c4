#pragma once
// Time for the engine. Gates poll against a Clock so tests run on a fake one (no sleeps in tests)
// and Ctrl-C wakes a waiting engine at once.

#include <atomic>
#include <chrono>

namespace pdctl::engine {

using Duration = std::chrono::milliseconds;
using TimePoint = std::chrono::steady_clock::time_point;

class Clock {
  public:
    virtual ~Clock() = default;
    virtual TimePoint now() = 0;
    // Waits up to `duration`; returns early when interrupted.
    virtual void sleep_for(Duration duration) = 0;
};

class RealClock : public Clock {
  public:
    TimePoint now() override { return std::chrono::steady_clock::now(); }
    void sleep_for(Duration duration) override;
};

// Advances only when asked to sleep: every wait in a test takes no real time.
class FakeClock : public Clock {
  public:
    TimePoint now() override { return now_; }
    void sleep_for(Duration duration) override { now_ += duration; }
    void advance(Duration duration) { now_ += duration; }

  private:
    TimePoint now_{};
};

// Set by the SIGINT/SIGTERM handler; read by every wait loop.
std::atomic<int>& interrupt_signal();
bool interrupted();
// Installs handlers that set interrupt_signal() (first signal) and restore the default (second signal).
void install_interrupt_handlers();

}  // namespace pdctl::engine
