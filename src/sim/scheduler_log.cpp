#include "sim/scheduler_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/log.hpp"

namespace pdsim {
namespace {

// Each running request holds its prompt and output in the KV pool (as sglang:num_used_tokens).
constexpr double kTokensPerRequest = 256;
constexpr double kPoolTokens = 1000000;

}  // namespace

SchedulerLog::SchedulerLog(const ServerArgs& args) : args_(args) {}

void SchedulerLog::prefill_batch(int new_tokens, int cached_tokens, int running, int queued) {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    const double gap = std::chrono::duration<double>(now - last_prefill_).count();
    last_prefill_ = now;
    const double input_throughput = gap > 0 ? last_prefill_tokens_ / gap : 0;
    last_prefill_tokens_ = new_tokens;
    std::string line = fmt::format(
        "Prefill batch, #new-seq: 1, #new-token: {}, #cached-token: {}, token usage: {:.2f}, #running-req: "
        "{}, "
        "#queue-req: {}, ",
        new_tokens, cached_tokens, running * kTokensPerRequest / kPoolTokens, running, queued);
    if (args_.prefill()) {
        line += fmt::format("#prealloc-req: 0, #inflight-req: 0, input throughput (token/s): {:.2f}, ",
                            input_throughput);
    }
    log_sched(args_.tp_rank(), line);
}

void SchedulerLog::decode_token(int batch, int running, int queued) {
    std::lock_guard lock(mutex_);
    ++generated_;
    passes_ += 1.0 / std::max(1, batch);
    const long passes = static_cast<long>(std::floor(passes_ + 1e-9));
    const int interval = std::max(1, args_.decode_log_interval);
    if (passes / interval == passes_logged_ / interval) return;
    passes_logged_ = passes;
    const auto now = Clock::now();
    const double gap = std::chrono::duration<double>(now - last_decode_).count();
    last_decode_ = now;
    const double gen_throughput = gap > 0 ? generated_ / gap : 0;
    generated_ = 0;
    const double used = running * kTokensPerRequest;
    std::string line = fmt::format("Decode batch, #running-req: {}, #token: {:.0f}, token usage: {:.2f}, ",
                                   running, used, used / kPoolTokens);
    if (args_.decode()) {
        line += "pre-allocated usage: 0.00, #prealloc-req: 0, #transfer-req: 0, #retracted-req: 0, ";
    }
    line += fmt::format("cuda graph: True, gen throughput (token/s): {:.2f}, #queue-req: {}, ",
                        gen_throughput, queued);
    log_sched(args_.tp_rank(), line);
}

}  // namespace pdsim
