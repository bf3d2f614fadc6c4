#include "pdctl/load/stream_tally.hpp"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "pdctl/load/chunk_meta.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::load {
namespace {

using json = nlohmann::json;

constexpr std::size_t kQuoteLimit = 300;

std::string quote(std::string_view text) {
    std::string out(text.substr(0, kQuoteLimit));
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
    for (char& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    return out;
}

// The message of an SGLang or router error body: {"error": {"message": ...}}, {"error": "..."},
// {"detail": ...}; else the text itself.
std::string error_message(std::string_view body) {
    const json parsed = json::parse(body, nullptr, false);
    if (parsed.is_object()) {
        if (auto it = parsed.find("error"); it != parsed.end()) {
            if (it->is_string()) return it->get<std::string>();
            if (it->is_object() && it->contains("message") && (*it)["message"].is_string())
                return (*it)["message"].get<std::string>();
            return quote(it->dump());
        }
        if (auto it = parsed.find("detail"); it != parsed.end())
            return it->is_string() ? it->get<std::string>() : quote(it->dump());
    }
    return quote(body);
}

// Events up to this size are read whole when their meta_info cannot be read quickly (a parse of a few
// KiB costs microseconds); a longer one is SGLang's cumulative chunk, read by meta_info only.
constexpr std::size_t kWholeParseLimit = 4096;

// Whether the text is braced as a JSON object is (first and last non-blank characters): what a long
// event meta_info could not be read from is checked with, instead of a parse.
bool looks_like_object(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    const auto last = text.find_last_not_of(" \t\r\n");
    return first != std::string_view::npos && text[first] == '{' && text[last] == '}';
}

ChunkMeta meta_of(const json& meta_info) {
    const auto count = [&meta_info](const char* key) {
        const auto it = meta_info.find(key);
        return it != meta_info.end() && it->is_number_integer() ? it->get<int>() : -1;
    };
    return {count("completion_tokens"), count("prompt_tokens"), count("cached_tokens")};
}

// What the server said of the prompt, from the newest meta_info that said it.
void note_prompt(RequestRecord& record, const ChunkMeta& meta) {
    if (meta.prompt_tokens >= 0) record.prompt_tokens = meta.prompt_tokens;
    if (meta.cached_tokens >= 0) record.cached_tokens = meta.cached_tokens;
}

}  // namespace

StreamTally::StreamTally(util::SteadyClock::time_point sent, int input_tokens, int expected_tokens,
                         bool stream)
    : stream_(stream), sent_(sent), expected_tokens_(expected_tokens) {
    record_.input_tokens = input_tokens;
}

void StreamTally::on_bytes(std::string_view bytes, util::SteadyClock::time_point now) {
    if (!stream_) {
        answer_.append(bytes);
        return;
    }
    parser_.feed(bytes, [this, now](std::string_view data) { on_event(data, now); });
}

// A non-streamed answer: its tokens all arrive with the body, so TTFT is the whole request.
void StreamTally::read_whole_answer(util::SteadyClock::time_point now) {
    int tokens = 1;
    const auto meta = first_key_is(answer_, "error") ? std::nullopt : read_chunk_meta(answer_);
    if (meta && meta->completion_tokens >= 0) {
        tokens = meta->completion_tokens;
        note_prompt(record_, *meta);
    } else {
        const json answer = json::parse(answer_, nullptr, false);
        if (!answer.is_object() || answer.contains("error")) {
            parser_.feed(answer_);  // keeps the text for the error message
            return;
        }
        if (auto it = answer.find("meta_info"); it != answer.end() && it->is_object()) {
            tokens = it->value("completion_tokens", 1);
            note_prompt(record_, meta_of(*it));
        }
    }
    record_.ttft_s = util::to_seconds(now - sent_);
    tokens_ = tokens;
    done_ = true;
}

void StreamTally::on_event(std::string_view data, util::SteadyClock::time_point now) {
    if (data == "[DONE]") {
        done_ = true;
        return;
    }
    if (!error_.empty()) return;
    // An error event ({"error": ...}, its only key) ends the stream and is small: read whole, for its
    // message. The quick read is no validator: an event whose meta_info reads well is taken as it says.
    if (first_key_is(data, "error")) return on_event_parsed(data, now);
    if (const auto meta = read_chunk_meta(data); meta && meta->completion_tokens >= 0) {
        note_prompt(record_, *meta);
        return count_tokens(meta->completion_tokens, now);
    }
    if (data.size() <= kWholeParseLimit) return on_event_parsed(data, now);
    // A long event without a readable count: not parsed (that would cost the answer so far at every
    // event), but it must at least be braced as an object to be SGLang's.
    if (!looks_like_object(data)) {
        error_ = "the stream sent an event that is not JSON: " + quote(data);
        return;
    }
    count_tokens(tokens_ + 1, now);  // no count: one chunk, one token
}

void StreamTally::on_event_parsed(std::string_view data, util::SteadyClock::time_point now) {
    const json event = json::parse(data, nullptr, false);
    if (!event.is_object()) {
        error_ = "the stream sent an event that is not JSON: " + quote(data);
        return;
    }
    if (event.contains("error")) {
        error_ = error_message(data);
        return;
    }
    int tokens = tokens_ + 1;  // no meta_info: one chunk, one token
    if (auto meta = event.find("meta_info"); meta != event.end() && meta->is_object()) {
        if (auto count = meta->find("completion_tokens"); count != meta->end() && count->is_number_integer())
            tokens = count->get<int>();
        note_prompt(record_, meta_of(*meta));
    }
    count_tokens(tokens, now);
}

void StreamTally::count_tokens(int tokens, util::SteadyClock::time_point now) {
    if (tokens <= tokens_) return;  // a chunk without a new token
    if (tokens_ == 0) {
        record_.ttft_s = util::to_seconds(now - sent_);
    } else {
        const int arrived = tokens - tokens_;
        const double gap = util::to_seconds(now - last_token_at_) / arrived;
        record_.itl_s.insert(record_.itl_s.end(), static_cast<std::size_t>(arrived), gap);
    }
    last_token_at_ = now;
    tokens_ = tokens;
}

RequestRecord StreamTally::finish(int http_status, const std::string& transport_error,
                                  util::SteadyClock::time_point now) {
    if (!stream_ && transport_error.empty() && http_status == 200) read_whole_answer(now);
    if (!stream_ && http_status != 200) parser_.feed(answer_);  // the error body, for the message
    record_.e2e_s = util::to_seconds(now - sent_);
    record_.output_tokens = tokens_;
    if (!error_.empty()) {
        record_.error = error_;
    } else if (!transport_error.empty()) {
        record_.error = tokens_ > 0 ? fmt::format("{} (after {} of {} tokens)", transport_error, tokens_,
                                                  expected_tokens_)
                                    : transport_error;
    } else if (http_status != 200) {
        record_.error = fmt::format("HTTP {}: {}", http_status, error_message(parser_.unfinished()));
    } else if (!done_) {
        const std::string said = parser_.unfinished();
        record_.error = said.empty()
                            ? fmt::format("the stream ended without [DONE] after {} of {} tokens", tokens_,
                                          expected_tokens_)
                            : fmt::format("the stream ended without [DONE]: {}", error_message(said));
    } else if (tokens_ < expected_tokens_) {
        record_.error = fmt::format("the answer had {} of the {} tokens asked for (ignore_eos)", tokens_,
                                    expected_tokens_);
    }
    return record_;
}

std::string error_group(std::string_view error) {
    std::string out;
    std::size_t i = 0;
    while (i < error.size()) {
        if (!std::isdigit(static_cast<unsigned char>(error[i]))) {
            out += error[i++];
            continue;
        }
        std::size_t end = i;
        while (end < error.size() && std::isxdigit(static_cast<unsigned char>(error[end]))) ++end;
        // Long numbers are a request's own (rooms, ids); short ones (ports, sizes, counts) say what failed.
        if (end - i >= 6)
            out += 'N';
        else
            out.append(error.substr(i, end - i));
        i = end;
    }
    return out;
}

}  // namespace pdctl::load
