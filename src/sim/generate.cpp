#include "sim/generate.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include "sim/bootstrap_server.hpp"
#include "sim/http_util.hpp"
#include "sim/log.hpp"

namespace pdsim {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kDefaultMaxNewTokens = 128;  // SGLang's SamplingParams default
constexpr int kMaxWords = 8192;
constexpr std::string_view kRoutePath = "/route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1";

// One prompt of a (possibly batched) request, with its own bootstrap fields.
struct Item {
    std::string prompt;  // text, or input ids joined, as the seed of the answer
    int prompt_tokens = 0;
    int max_new_tokens = kDefaultMaxNewTokens;
    std::optional<std::string> bootstrap_host;
    std::optional<int> bootstrap_port;  // null -> decode's own --disaggregation-bootstrap-port
    std::optional<std::uint64_t> bootstrap_room;
};

struct Failure {
    int status;
    std::string message;
};

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
            item.prompt_tokens = 1;
            for (char c : item.prompt) {
                item.prompt_tokens += c == ' ' ? 1 : 0;
            }
        } else {
            const json& list = batched ? (*ids)[i] : *ids;
            item.prompt = list.dump();
            item.prompt_tokens = static_cast<int>(list.size());
        }
        if (const json* params = field(body, "sampling_params", i, batched);
            params != nullptr && params->is_object()) {
            item.max_new_tokens = params->value("max_new_tokens", kDefaultMaxNewTokens);
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

std::string random_id() {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return fmt::format("{:016x}{:016x}", rng(), rng());
}

json meta_info(const Item& item, int completion_tokens, Clock::time_point started) {
    double latency = std::chrono::duration<double>(Clock::now() - started).count();
    return {{"id", random_id()},
            {"prompt_tokens", item.prompt_tokens},
            {"completion_tokens", completion_tokens},
            {"cached_tokens", 0},
            {"finish_reason", {{"type", "length"}, {"length", completion_tokens}}},
            {"e2e_latency", latency}};
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

// Decode's side of one PD request: find the prefill through its bootstrap server (once per prefill,
// then from memory), then wait until that prefill has "sent" the KV of this room.
std::optional<Failure> receive_kv(const GenerateContext& context, const Item& item) {
    // The router passes IPv6 hosts bracketed, as written in the URL.
    std::string host = *item.bootstrap_host;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    const int port = item.bootstrap_port.value_or(context.args->bootstrap_port);
    auto client = make_client(host, port, Millis{2000}, Millis{2000});
    const std::string address = fmt::format("{}:{}", host, port);
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
            return Failure{500, message};
        }
        const json info = json::parse(route->body, nullptr, false);
        instance = info.is_object() ? info.value("pdsim_instance", "") : "";
        known_prefills().remember(address, *instance);
    }
    const auto deadline = Clock::now() + context.kv_timeout;
    std::string kv_path = fmt::format("/kv?room={}", *item.bootstrap_room);
    if (!instance->empty()) kv_path += "&instance=" + *instance;
    for (;;) {
        // PDSIM_KV_FAULT=transfer: the prefill is found, its KV never arrives (a broken RDMA path).
        auto kv = context.kv_fault == "transfer" ? httplib::Result(nullptr, httplib::Error::Connection)
                                                 : client->Get(kv_path);
        if (kv && kv->status == 200) {
            return std::nullopt;
        }
        if (kv && kv->status == 410) {
            log_schedf(context.args->tp_rank(),
                       "Decode transfer failed for request rank=0 bootstrap_room={} with exception "
                       "KVTransferError(bootstrap_room={}): the prefill at {} restarted after this decode "
                       "connected to it",
                       *item.bootstrap_room, *item.bootstrap_room, address);
            return Failure{500,
                           fmt::format("KV transfer failed (bootstrap_room={}): the prefill at bootstrap "
                                       "{} restarted since this decode connected to it; restart the "
                                       "decode to reconnect (sglang #16903)",
                                       *item.bootstrap_room, address)};
        }
        if (Clock::now() >= deadline) {
            log_schedf(context.args->tp_rank(),
                       "Decode transfer failed for request rank=0 bootstrap_room={} with exception "
                       "KVTransferError(bootstrap_room={}): KV transfer timed out",
                       *item.bootstrap_room, *item.bootstrap_room);
            return Failure{500, fmt::format("KV transfer timed out (bootstrap_room={}, bootstrap {}:{})",
                                            *item.bootstrap_room, host, port)};
        }
        sleep_ms(Millis{20});
    }
}

}  // namespace

std::string synthesize_text(std::string_view prompt, int words) {
    static constexpr std::array<std::string_view, 24> kVocabulary = {
        "the",   "model", "serves", "tokens", "from",    "prefill", "to",    "decode",
        "cache", "moves", "over",   "the",    "network", "and",     "every", "rank",
        "stays", "in",    "step",   "while",  "router",  "pairs",   "each",  "request"};
    std::uint64_t state = 1469598103934665603ULL;  // FNV-1a of the prompt seeds the words
    for (unsigned char c : prompt) {
        state = (state ^ c) * 1099511628211ULL;
    }
    std::string text;
    for (int i = 0; i < std::min(words, kMaxWords); ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        text += i == 0 ? "" : " ";
        text += kVocabulary[(state >> 33) % kVocabulary.size()];
    }
    return text;
}

GenerateReply handle_generate(const GenerateContext& context, const std::string& request_body) {
    const auto started = Clock::now();
    const ServerArgs& args = *context.args;
    json body = json::parse(request_body, nullptr, false);
    if (!body.is_object()) {
        return {400, error_body("The request body is not a JSON object.", 400)};
    }
    std::vector<Item> items;
    bool batched = false;
    try {
        if (auto failure = parse_items(body, items, batched)) {
            return {failure->status, error_body(failure->message, failure->status)};
        }
    } catch (const json::exception& e) {
        return {400, error_body(fmt::format("Invalid request: {}", e.what()), 400)};
    }

    json outputs = json::array();
    for (const Item& item : items) {
        const bool fake = item.bootstrap_host == kFakeBootstrapHost ||
                          (args.decode() && args.transfer_backend == "fake" && !item.bootstrap_host);
        if (args.pd() && !fake && (!item.bootstrap_host || !item.bootstrap_room)) {
            std::string message = fmt::format(
                "A {} server only takes requests with bootstrap_host and bootstrap_room (send them through "
                "the "
                "router, or set bootstrap_host={} for a fake transfer).",
                args.disaggregation_mode, kFakeBootstrapHost);
            return {400, error_body(message, 400)};
        }
        if (args.prefill()) {
            if (!fake && context.bootstrap != nullptr) {
                context.bootstrap->record_room(*item.bootstrap_room, {{"prompt_tokens", item.prompt_tokens}});
            }
            outputs.push_back({{"text", ""}, {"meta_info", meta_info(item, 1, started)}});
            continue;
        }
        if (args.decode() && !fake) {
            if (auto failure = receive_kv(context, item)) {
                return {failure->status, error_body(failure->message, failure->status)};
            }
        }
        int words = std::max(0, std::min(item.max_new_tokens, kMaxWords));
        sleep_ms(context.token_time * words);
        outputs.push_back(
            {{"text", synthesize_text(item.prompt, words)}, {"meta_info", meta_info(item, words, started)}});
    }
    return {200, batched ? outputs : outputs[0]};
}

}  // namespace pdsim
