#include "sim/process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "sim/log.hpp"

namespace pdsim {

void install_signal_handling() {
    ::signal(SIGPIPE, SIG_IGN);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    // Threads inherit the mask, so only the sigwait() below ever sees these signals.
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
        int signo = 0;
        while (sigwait(&set, &signo) != 0) {
        }
        log_mainf("Received {}, exiting", signo == SIGTERM ? "SIGTERM" : "SIGINT");
        // PDSIM_STOP_DELAY_MS: a real server takes a while to free GPU memory and exit; `stop` and
        // an interrupted stop must cope with that.
        const char* delay = std::getenv("PDSIM_STOP_DELAY_MS");
        if (delay != nullptr && *delay != '\0') sleep_ms(Millis{std::atol(delay)});
        exit_now(0);
    }).detach();
}

void idle_forever() {
    for (;;) {
        ::pause();
    }
}

void sleep_ms(Millis duration) {
    if (duration.count() > 0) {
        std::this_thread::sleep_for(duration);
    }
}

}  // namespace pdsim
