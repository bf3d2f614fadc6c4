// libFuzzer target: answers pdctl reads over the network or from the coordinator node's journal and
// lock, i.e. bytes another program wrote: the router's /generate answer (health::read_generate_answer,
// used by `pdctl smoke` and the router gate), a Mooncake master's /health and a router's /workers
// (health::master_not_ready, workers_not_ready), the run journal's JSON Lines (journal::parse_history, `pdctl
// history`) and the deploy lock's holder file and script answers (lock::parse_holder / parse_status / ...).
// The first two bytes are the HTTP status / exit code; the rest is the body.
#include <cstddef>
#include <cstdint>
#include <string>

#include "pdctl/exec/executor.hpp"
#include "pdctl/health/gate_answers.hpp"
#include "pdctl/health/generate_answer.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/lock.hpp"
#include "pdctl/util/exit_code.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pdctl;
    if (size < 2) return 0;
    const int status = 100 + (data[0] | (data[1] << 8)) % 500;  // 100..599
    const std::string body(reinterpret_cast<const char*>(data + 2), size - 2);

    (void)health::read_generate_answer(status, body);
    (void)health::read_generate_answer(200, body);
    (void)health::master_not_ready(body);
    (void)health::workers_not_ready(body, {"http://10.0.0.1:30000", "http://[::1]:30000/"});
    for (const auto& run : state::journal::parse_history(body)) (void)run.run.size();

    (void)state::lock::parse_holder(body);
    exec::CommandResult result;
    result.exit_code = data[0] % 3;  // 0, and the scripts' own failure codes
    result.out = body;
    // Failure is the parsers' documented answer to an answer they cannot use.
    try {
        (void)state::lock::parse_status(result);
    } catch (const Failure&) {
    }
    try {
        (void)state::lock::parse_acquire(result);
    } catch (const Failure&) {
    }
    try {
        (void)state::lock::parse_release(result);
    } catch (const Failure&) {
    }
    return 0;
}
