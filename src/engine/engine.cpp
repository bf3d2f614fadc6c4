#include "pdctl/engine/engine.hpp"

#include "rolling_restart.hpp"
#include "starter.hpp"
#include "stopper.hpp"

namespace pdctl::engine {

Engine::Engine(const plan::Plan& plan, Backend& backend, health::HttpProber& prober, Clock& clock,
               Reporter& reporter, EngineOptions options)
    : plan_(plan),
      backend_(backend),
      prober_(prober),
      clock_(clock),
      reporter_(reporter),
      options_(std::move(options)) {}

RunContext Engine::context(const std::string& verb) {
    return {plan_, backend_, backend_.executor(), prober_, clock_, reporter_, options_, verb};
}

ExitCode Engine::start() {
    auto run = context("start");
    return Starter(run).start();
}

ExitCode Engine::stop() {
    auto run = context("stop");
    return Stopper(run).stop();
}

ExitCode Engine::restart() {
    const auto stopped = stop();
    if (stopped != ExitCode::kOk) return stopped;
    return start();
}

ExitCode Engine::rolling_restart(const plan::RollingPlan& rolling) {
    auto run = context("restart");
    return RollingRestart(run).run(rolling);
}

}  // namespace pdctl::engine
