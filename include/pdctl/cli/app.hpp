#pragma once

namespace pdctl::engine {
class Clock;
}
namespace pdctl::health {
class HttpProber;
}

namespace pdctl::cli {

// Where the use cases read the time and send HTTP: main's real ones, or a test's.
struct Outside {
    engine::Clock& clock;
    health::HttpProber& prober;
};

// Parses the command line, runs the verb, and maps every error to a documented exit code.
int run(int argc, char** argv, const Outside& outside);

}  // namespace pdctl::cli
