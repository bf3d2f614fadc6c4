#include "pdctl/engine/clock.hpp"

#include <csignal>
#include <thread>

namespace pdctl::engine {

std::atomic<int>& interrupt_signal() {
    static std::atomic<int> signal{0};
    return signal;
}

bool interrupted() {
    return interrupt_signal().load() != 0;
}

namespace {
extern "C" void on_interrupt(int sig) {
    // A second Ctrl-C while pdctl cleans up falls through to the default action: the operator insists.
    if (interrupt_signal().exchange(sig) != 0) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
    }
}
}  // namespace

void install_interrupt_handlers() {
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
}

void RealClock::sleep_for(Duration duration) {
    // Slices keep Ctrl-C responsive without a self-pipe; 50 ms is invisible to an operator.
    const auto until = std::chrono::steady_clock::now() + duration;
    while (!interrupted()) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= until) return;
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(until - now, Duration(50)));
    }
}

}  // namespace pdctl::engine
