#include "sim/generate.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sim/bootstrap_server.hpp"
#include "sim/capacity.hpp"
#include "sim/http_util.hpp"
#include "sim/log.hpp"
#include "sim/prompt_cache.hpp"
#include "sim/scheduler_log.hpp"
#include "sim/serving_metrics.hpp"

namespace pdsim {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kMaxWords = 8192;
// How long one GET /kv waits at the bootstrap server for the room before answering 404.
constexpr Millis kKvLongPoll{1000};
constexpr std::string_view kRoutePath = "/route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1";

using Item = GenerateItem;
using Failure = GenerateFailure;

// Field `name` for item `index`: batched requests carry one value per item, or one for all.
const json* field(const json& body, const char* name, std::size_t index, bool batched) {
    auto it = body.find(name);
    if (it == body.end() || it->is_null()) {
        return nullptr;
    }
    if (batched && it->is_array()) {
        return index < it->size() ? &(*it)[index] : nullptr;
    }
    return &*it;
}

std::optional<Failure> parse_items(const json& body, std::vector<Item>& items, bool& batched) {
    const json* text = body.contains("text") && !body["text"].is_null() ? &body["text"] : nullptr;
    const json* ids =
        body.contains("input_ids") && !body["input_ids"].is_null() ? &body["input_ids"] : nullptr;
    if (text == nullptr && ids == nullptr) {
        return Failure{400, "Either text or input_ids should be provided."};
    }
    batched = text != nullptr ? text->is_array() : (!ids->empty() && (*ids)[0].is_array());
    const std::size_t count = batched ? (text != nullptr ? text->size() : ids->size()) : 1;
    for (std::size_t i = 0; i < count; ++i) {
        Item item;
        if (text != nullptr) {
            const json& t = batched ? (*text)[i] : *text;
            if (!t.is_string()) {
                return Failure{400, "text must be a string or a list of strings"};
            }
            item.prompt = t.get<std::string>();
            item.text = true;
            item.tokens = text_tokens(item.prompt);
            item.prompt_tokens = static_cast<int>(item.tokens.size());
        } else {
            const json& list = batched ? (*ids)[i] : *ids;
            item.prompt = list.dump();
            item.prompt_tokens = static_cast<int>(list.size());
            item.tokens = id_tokens(list.get<std::vector<std::int64_t>>());
        }
        if (const json* params = field(body, "sampling_params", i, batched);
            params != nullptr && params->is_object()) {
            item.max_new_tokens = params->value("max_new_tokens", item.max_new_tokens);
        }
        if (const json* host = field(body, "bootstrap_host", i, batched);
            host != nullptr && host->is_string()) {
            item.bootstrap_host = host->get<std::string>();
        }
        if (const json* port = field(body, "bootstrap_port", i, batched);
            port != nullptr && port->is_number()) {
            item.bootstrap_port = port->get<int>();
        }
        if (const json* room = field(body, "bootstrap_room", i, batched);
            room != nullptr && room->is_number()) {
            item.bootstrap_room = room->get<std::uint64_t>();
        }
        items.push_back(std::move(item));
    }
    return std::nullopt;
}

// The prefills this decode has reached, by bootstrap address, with the instance each answered with
// first. Like the real decode's connection pool it is never refreshed: once a prefill restarted, every
// transfer from it fails until this decode restarts (sglang #16903).
class KnownPrefills {
  public:
    std::optional<std::string> find(const std::string& address) {
        std::lock_guard lock(mutex_);
        auto it = instances_.find(address);
        return it == instances_.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    void remember(const std::string& address, const std::string& instance) {
        std::lock_guard lock(mutex_);
        instances_.emplace(address, instance);
    }

  private:
    std::mutex mutex_;
    std::map<std::string, std::string> instances_;
};

KnownPrefills& known_prefills() {
    static KnownPrefills known;
    return known;
}

Failure transfer_failure(const GenerateContext& context, std::uint64_t room, const std::string& cause,
                         const std::string& message) {
    log_schedf(context.args->tp_rank(),
               "Decode transfer failed for request rank=0 bootstrap_room={} with exception "
               "KVTransferError(bootstrap_room={}): {}",
               room, room, cause);
    if (context.metrics != nullptr) context.metrics->transfer_failed();
    return Failure{500, message};
}

// Decode's side of one PD request: find the prefill through its bootstrap server (once per prefill,
// then from memory), then wait until that prefill has computed the prompt and "sent" the KV of this
// room. Returns the room's record (the prompt's token count), or why it failed.
std::variant<json, Failure> receive_kv(const GenerateContext& context, const Item& item) {
    // The router passes IPv6 hosts bracketed, as written in the URL.
    std::string host = *item.bootstrap_host;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    const int port = item.bootstrap_port.value_or(context.args->bootstrap_port);
    auto client = make_client(host, port, Millis{2000}, kKvLongPoll + Millis{2000});
    const std::string address = fmt::format("{}:{}", host, port);
    const std::uint64_t room = *item.bootstrap_room;
    auto instance = known_prefills().find(address);
    if (!instance) {
        // PDSIM_KV_FAULT=bootstrap: as if a firewall stood between decode and the prefill's bootstrap.
        const bool blocked = context.kv_fault == "bootstrap";
        auto route = blocked ? httplib::Result(nullptr, httplib::Error::Connection)
                             : client->Get(std::string(kRoutePath));
        if (blocked || !route || route->status != 200) {
            std::string cause = blocked ? "Connection refused" : describe_failure(route, host, port);
            std::string message = fmt::format("Error fetching prefill parallel info from bootstrap {}:{}: {}",
                                              host, port, cause);
            log_sched(context.args->tp_rank(), message);
            if (context.metrics != nullptr) context.metrics->bootstrap_failed();
            return Failure{500, message};
        }
        const json info = json::parse(route->body, nullptr, false);
        instance = info.is_object() ? info.value("pdsim_instance", "") : "";
        known_prefills().remember(address, *instance);
    }
    const auto deadline = Clock::now() + context.kv_timeout;
    std::string kv_path = fmt::format("/kv?room={}", room);
    if (!instance->empty()) kv_path += "&instance=" + *instance;
    for (;;) {
        const auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
        const auto wait = std::clamp(left, Millis{0}, kKvLongPoll);
        // PDSIM_KV_FAULT=transfer: the prefill is found, its KV never arrives (a broken RDMA path).
        auto kv = context.kv_fault == "transfer"
                      ? httplib::Result(nullptr, httplib::Error::Connection)
                      : client->Get(fmt::format("{}&wait_ms={}", kv_path, wait.count()));
        if (kv && kv->status == 200) {
            const json answer = json::parse(kv->body, nullptr, false);
            return answer.is_object() ? answer.value("meta", json::object()) : json::object();
        }
        if (kv && kv->status == 410) {
            return transfer_failure(
                context, room,
                fmt::format("the prefill at {} restarted after this decode connected to it", address),
                fmt::format(
                    "KV transfer failed (bootstrap_room={}): the prefill at bootstrap {} restarted "
                    "since this decode connected to it; restart the decode to reconnect (sglang #16903)",
                    room, address));
        }
        if (Clock::now() >= deadline) {
            return transfer_failure(
                context, room, "KV transfer timed out",
                fmt::format("KV transfer timed out (bootstrap_room={}, bootstrap {}:{})", room, host, port));
        }
        if (!kv || kv->status != 404) sleep_ms(Millis{20});  // not a long poll: do not spin
    }
}

// The KV of `prompt_tokens` crosses from prefill to decode: the capacity model's time and failure.
std::optional<Failure> transfer_kv(const GenerateContext& context, const Item& item, int prompt_tokens) {
    const KvTransfer transfer = context.capacity->kv_transfer(prompt_tokens);
    if (context.kv_fault == "retry") {
        // PDSIM_KV_FAULT=retry: the first attempt breaks part-way and is counted as a failed transfer,
        // the second moves the whole KV: the request passes, only the counter tells.
        std::this_thread::sleep_for(transfer.time / 2);
        transfer_failure(context, *item.bootstrap_room, "transient transfer failure, retrying", "");
        log_schedf(context.args->tp_rank(), "Retrying KV transfer for request bootstrap_room={}",
                   *item.bootstrap_room);
    }
    if (transfer.time.count() > 0) std::this_thread::sleep_for(transfer.time);
    if (!transfer.failure.empty()) {
        return transfer_failure(context, *item.bootstrap_room, transfer.failure,
                                fmt::format("KV transfer failed (bootstrap_room={}): {}",
                                            *item.bootstrap_room, transfer.failure));
    }
    if (context.metrics != nullptr) context.metrics->transfer_done(transfer.bytes, transfer.time.count());
    return std::nullopt;
}

// Output tokens one at a time on a decode seat: the first came with the KV (prefill computed it), so
// it is out at once; each after it takes a decode step at the current batch size.
int decode_tokens(const GenerateContext& context, const Item& item, int cached_tokens,
                  const std::function<bool(int, int)>& on_token) {
    const int tokens = output_tokens(item);
    Capacity::DecodeSeat seat(*context.capacity);
    for (int n = 1; n <= tokens; ++n) {
        if (n > 1) {
            seat.next_token();
            if (context.scheduler != nullptr) {
                const int batch = context.capacity->decoding();
                context.scheduler->decode_token(batch, batch, context.capacity->queued());
            }
        }
        if (on_token && !on_token(n, cached_tokens)) return n;
    }
    return tokens;
}

// A prompt computed by this server (prefill or plain): the prefix cache says how much of it is
// already there, the capacity model charges the rest. Returns the cached token count.
int compute_prompt(const GenerateContext& context, const Item& item) {
    PromptCache* cache = context.cache;
    const int cached = cache != nullptr ? static_cast<int>(cache->cached_prefix(item.tokens)) : 0;
    const int fresh = item.prompt_tokens - cached;
    if (context.scheduler != nullptr) {
        context.scheduler->prefill_batch(fresh, cached, context.capacity->decoding(),
                                         context.capacity->queued());
    }
    context.capacity->prefill(fresh);
    if (context.metrics != nullptr) context.metrics->prefill_computed(fresh, cached);
    return cached;
}

// What a finished request leaves in the cache: its prompt and, on a plain server, its output but
// the last token (SGLang's cache_finished_req), so the next turn of a conversation finds both.
void cache_finished(const GenerateContext& context, const Item& item, int output) {
    if (context.cache == nullptr) return;
    std::vector<CacheToken> tokens = item.tokens;
    WordStream words(item.prompt);
    for (int n = 1; n < output; ++n) {
        const std::string_view word = words.next();
        if (item.text) {
            // The client's next prompt is the text so far: the first word follows the prompt's last.
            const auto appended = text_tokens(word);
            tokens.insert(tokens.end(), appended.begin(), appended.end());
        } else {
            tokens.push_back(static_cast<CacheToken>(words.last_id()));
        }
    }
    context.cache->insert(tokens);
}

}  // namespace

std::variant<GenerateRequest, GenerateFailure> parse_generate(const GenerateContext& context,
                                                              const std::string& request_body) {
    const ServerArgs& args = *context.args;
    json body = json::parse(request_body, nullptr, false);
    if (!body.is_object()) {
        return Failure{400, "The request body is not a JSON object."};
    }
    GenerateRequest request;
    try {
        if (auto failure = parse_items(body, request.items, request.batched)) return *failure;
        request.stream = body.value("stream", false);
    } catch (const json::exception& e) {
        return Failure{400, fmt::format("Invalid request: {}", e.what())};
    }
    for (const Item& item : request.items) {
        const bool fake = item.bootstrap_host == kFakeBootstrapHost ||
                          (args.decode() && args.transfer_backend == "fake" && !item.bootstrap_host);
        if (args.pd() && !fake && (!item.bootstrap_host || !item.bootstrap_room)) {
            return Failure{400, fmt::format("A {} server only takes requests with bootstrap_host and "
                                            "bootstrap_room (send them through the router, or set "
                                            "bootstrap_host={} for a fake transfer).",
                                            args.disaggregation_mode, kFakeBootstrapHost)};
        }
    }
    return request;
}

int output_tokens(const GenerateItem& item) {
    return std::clamp(item.max_new_tokens, 0, kMaxWords);
}

std::variant<ServedItem, GenerateFailure> serve_item(const GenerateContext& context, const GenerateItem& item,
                                                     const std::function<bool(int, int)>& on_token) {
    const ServerArgs& args = *context.args;
    const bool fake = item.bootstrap_host == kFakeBootstrapHost ||
                      (args.decode() && args.transfer_backend == "fake" && !item.bootstrap_host);
    ServedItem served;
    if (args.prefill()) {
        served.cached_tokens = compute_prompt(context, item);
        cache_finished(context, item, 1);
        if (!fake && context.bootstrap != nullptr) {
            // The first token's metadata goes to the decode with the KV, its cached_tokens among it
            // (disaggregation/utils.py MetadataBuffers), so the decode's answer reports the prefill's hits.
            context.bootstrap->record_room(*item.bootstrap_room, {{"prompt_tokens", item.prompt_tokens},
                                                                  {"cached_tokens", served.cached_tokens}});
            // The prefill measures the transfer it sends (prefill.py,
            // compute_and_observe_kv_transfer_metrics).
            const KvTransfer transfer = context.capacity->kv_transfer(item.prompt_tokens);
            if (transfer.failure.empty() && context.metrics != nullptr) {
                context.metrics->transfer_observed(transfer.bytes, transfer.time.count());
            }
        }
        return served;
    }
    if (args.decode() && !fake) {
        auto kv = receive_kv(context, item);
        if (auto* failure = std::get_if<Failure>(&kv)) return *failure;
        const json& meta = std::get<json>(kv);
        const int prompt_tokens = meta.value("prompt_tokens", item.prompt_tokens);
        served.cached_tokens = meta.value("cached_tokens", 0);
        if (auto failure = transfer_kv(context, item, prompt_tokens)) return *failure;
    } else if (!args.decode()) {
        served.cached_tokens = compute_prompt(context, item);  // a plain server computes the prompt itself
    }
    served.output_tokens = decode_tokens(context, item, served.cached_tokens, on_token);
    if (!args.decode()) cache_finished(context, item, served.output_tokens);
    return served;
}

WordStream::WordStream(std::string_view prompt) : state_(1469598103934665603ULL) {
    for (unsigned char c : prompt) {
        state_ = (state_ ^ c) * 1099511628211ULL;  // FNV-1a of the prompt seeds the words
    }
}

std::string_view WordStream::next() {
    static constexpr std::array<std::string_view, 24> kVocabulary = {
        "the",   "model", "serves", "tokens", "from",    "prefill", "to",    "decode",
        "cache", "moves", "over",   "the",    "network", "and",     "every", "rank",
        "stays", "in",    "step",   "while",  "router",  "pairs",   "each",  "request"};
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::size_t index = (state_ >> 33) % kVocabulary.size();
    last_id_ = 1000 + static_cast<std::int64_t>(index);
    return kVocabulary[index];
}

std::string synthesize_text(std::string_view prompt, int words) {
    WordStream stream(prompt);
    std::string text;
    for (int i = 0; i < std::min(words, kMaxWords); ++i) {
        text += i == 0 ? "" : " ";
        text += stream.next();
    }
    return text;
}

}  // namespace pdsim
