#pragma once
// POST /generate of a simulated SGLang server, for the three disaggregation modes:
// - null: a plain generate;
// - prefill: computes the prompt (the capacity model's prefill queue), then records the request's
//   bootstrap_room at this prefill's bootstrap server (the KV is "ready") and returns an empty text,
//   as a real prefill's half of a PD request;
// - decode: looks up the prefill at bootstrap_host:bootstrap_port like the real decode does (so a
//   wrong prefill address fails the same way), waits for the room, "transfers" the KV (time and
//   failures from the capacity model), then decodes token by token.
// The text is a deterministic function of the prompt, so tests can compare answers. A request with
// "stream": true is answered token by token as server-sent events (sim/sglang_api.cpp).

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/process.hpp"
#include "sim/program_args.hpp"
#include "sim/radix_cache.hpp"

namespace pdsim {

class BootstrapServer;
class Capacity;
class PromptCache;
class SchedulerLog;
class ServingMetrics;

inline constexpr std::string_view kFakeBootstrapHost = "2.2.2.2";  // SGLang's FAKE_BOOTSTRAP_HOST

struct GenerateContext {
    const ServerArgs* args = nullptr;
    BootstrapServer* bootstrap = nullptr;  // this prefill's own bootstrap server; null elsewhere
    Capacity* capacity = nullptr;
    ServingMetrics* metrics = nullptr;
    Millis kv_timeout{10000};
    std::string kv_fault;               // Knobs::kv_fault
    PromptCache* cache = nullptr;       // the prefix cache (prefill and plain servers; null on decode)
    SchedulerLog* scheduler = nullptr;  // the rank-0 "Prefill batch" / "Decode batch" lines
};

// One prompt of a (possibly batched) request, with its own bootstrap fields.
struct GenerateItem {
    std::string prompt;  // text, or input ids joined, as the seed of the answer
    int prompt_tokens = 0;
    std::vector<CacheToken> tokens;  // the prompt as the prefix cache sees it (prompt_tokens of them)
    bool text = false;               // given as text (its output extends it in words) or input_ids
    int max_new_tokens = 128;        // SGLang's SamplingParams default
    std::optional<std::string> bootstrap_host;
    std::optional<int> bootstrap_port;  // null -> decode's own --disaggregation-bootstrap-port
    std::optional<std::uint64_t> bootstrap_room;
};

struct GenerateRequest {
    std::vector<GenerateItem> items;
    bool batched = false;
    bool stream = false;
};

struct GenerateFailure {
    int status = 500;
    std::string message;
};

std::variant<GenerateRequest, GenerateFailure> parse_generate(const GenerateContext& context,
                                                              const std::string& request_body);

// How many output tokens a decode or plain server produces for `item` (ignore_eos: all it asks for).
int output_tokens(const GenerateItem& item);

// What serving one item came to: its output tokens and how many of its prompt tokens the prefill
// found in its prefix cache (on a decode: what the prefill reported with the KV).
struct ServedItem {
    int output_tokens = 0;
    int cached_tokens = 0;
};

// Serves one item. `on_token(n, cached_tokens)` runs as the n-th output token is produced (n counts
// from 1; cached_tokens as in ServedItem, known before the first token) and returns false when nobody listens
// any more (the client hung up: the request is aborted there); a prefill produces none. Returns what was
// served, or why the request failed.
std::variant<ServedItem, GenerateFailure> serve_item(const GenerateContext& context, const GenerateItem& item,
                                                     const std::function<bool(int, int)>& on_token);

// The words of an answer, one at a time: the same prompt gives the same words.
class WordStream {
  public:
    explicit WordStream(std::string_view prompt);
    std::string_view next();
    // The token id of the word next() returned last (its place in the vocabulary, past the ids a
    // prompt of small test ids uses), for output_ids.
    std::int64_t last_id() const { return last_id_; }

  private:
    std::uint64_t state_;
    std::int64_t last_id_ = 0;
};

// `words` words derived from `prompt` (same prompt, same words).
std::string synthesize_text(std::string_view prompt, int words);

}  // namespace pdsim
