#pragma once
// POST /generate of a simulated SGLang server, for the three disaggregation modes:
// - null: a plain generate;
// - prefill: records the request's bootstrap_room at this prefill's bootstrap server (the KV is
//   "ready") and returns an empty text, as a real prefill's half of a PD request;
// - decode: looks up the prefill at bootstrap_host:bootstrap_port like the real decode does (so a
//   wrong prefill address fails the same way), waits for the room, then returns the text.
// The text is a deterministic function of the prompt, so tests can compare answers.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "sim/process.hpp"
#include "sim/program_args.hpp"

namespace pdsim {

class BootstrapServer;

inline constexpr std::string_view kFakeBootstrapHost = "2.2.2.2";  // SGLang's FAKE_BOOTSTRAP_HOST

struct GenerateContext {
    const ServerArgs* args = nullptr;
    BootstrapServer* bootstrap = nullptr;  // this prefill's own bootstrap server; null elsewhere
    Millis kv_timeout{10000};
    std::string kv_fault;  // Knobs::kv_fault
    Millis token_time{0};  // Knobs::token_time: each output token takes this long (not on prefill)
};

struct GenerateReply {
    int status = 200;
    nlohmann::json body;
};

GenerateReply handle_generate(const GenerateContext& context, const std::string& request_body);

// `words` words derived from `prompt` (same prompt, same words).
std::string synthesize_text(std::string_view prompt, int words);

}  // namespace pdsim
