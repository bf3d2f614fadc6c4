// stop's last step: the nodes it stopped sglang units on must show no GPU compute process before it
// says "stopped". A CUDA context outlives its process for a moment, and a rank that ignored SIGTERM
// or a foreign container can keep holding memory: an immediate start would then die of OOM.

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"
#include "stopper.hpp"

namespace pdctl::engine {

std::vector<std::string> Stopper::wait_for_gpu_release(const std::vector<std::string>& nodes) {
    if (!run_.backend.checks_gpus() || nodes.empty() || run_.options.gpu_release_timeout <= Duration::zero())
        return {};
    const auto deadline = run_.clock.now() + run_.options.gpu_release_timeout;
    std::vector<std::string> waiting = nodes;
    std::vector<std::string> unchecked;
    bool announced = false;
    for (;;) {
        std::vector<GpuUse> answers(waiting.size());
        util::for_each_parallel(waiting.size(), util::kEngineFanout, [&](std::size_t i) {
            answers[i] = run_.backend.gpu_use(run_.node(waiting[i]));
        });
        std::vector<std::string> busy;
        std::vector<std::string> held;
        for (std::size_t i = 0; i < waiting.size(); ++i) {
            const auto& answer = answers[i];
            if (!answer.checked) {
                unchecked.push_back(waiting[i]);
                continue;
            }
            if (answer.error.empty() && answer.holders.empty()) continue;
            busy.push_back(waiting[i]);
            held.push_back(
                waiting[i] + ": " +
                (answer.error.empty() ? util::join(answer.holders, ", ") : "cannot tell: " + answer.error));
        }
        waiting = std::move(busy);
        if (waiting.empty()) break;
        if (!announced) {
            run_.reporter.note(fmt::format("waiting up to {} for the GPUs to be released: {}",
                                           util::format_elapsed(run_.options.gpu_release_timeout),
                                           util::join(held, "; ")));
            announced = true;
        }
        const auto now = run_.clock.now();
        if (now >= deadline || interrupted()) return held;
        run_.clock.sleep_for(std::min(run_.options.gpu_release_interval,
                                      std::chrono::duration_cast<Duration>(deadline - now)));
    }
    if (!unchecked.empty()) {
        std::sort(unchecked.begin(), unchecked.end());
        run_.reporter.note("GPU release not checked on " + util::join(unchecked, ", ") +
                           ": no nvidia-smi there");
    }
    return {};
}

}  // namespace pdctl::engine
