#include "pdctl/cli/app.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/health/http_prober.hpp"

int main(int argc, char** argv) {
    // The edge of the house: the one real clock and HTTP prober of the process, handed to every use case
    // through its deployment (neither keeps state, so the threads of a fan-out share them).
    pdctl::engine::RealClock clock;
    pdctl::health::RealHttpProber prober;
    return pdctl::cli::run(argc, argv, {clock, prober});
}
