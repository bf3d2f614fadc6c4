#pragma once
// Reads one answer of SGLang's native POST /generate with "stream": true, as it arrives: `data:` events
// of JSON whose meta_info.completion_tokens counts the tokens so far (whether `text` is cumulative or
// incremental — --incremental-streaming-output — does not matter), an `{"error": ...}` event when the
// request failed after the 200, and `data: [DONE]`. Pure: the caller passes the times.
//
// An event costs the same however long the answer so far: by default SGLang repeats the whole text and
// every output id in each event, so only meta_info is read (load/chunk_meta.hpp); a whole parse is
// kept for error events and for small events meta_info could not be read from.

#include <chrono>
#include <string>
#include <string_view>

#include "pdctl/load/request_record.hpp"
#include "pdctl/load/sse_parser.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::load {

class StreamTally {
  public:
    // `expected_tokens`: max_new_tokens with ignore_eos, so a shorter answer is a failure. `stream`
    // false: the answer is one JSON document, read whole when the request ends.
    StreamTally(util::SteadyClock::time_point sent, int input_tokens, int expected_tokens,
                bool stream = true);

    void on_bytes(std::string_view bytes, util::SteadyClock::time_point now);

    // The request ended: `http_status` (0: no answer) and the transport's error text (empty: none).
    RequestRecord finish(int http_status, const std::string& transport_error,
                         util::SteadyClock::time_point now);

    int tokens() const { return tokens_; }

  private:
    void on_event(std::string_view data, util::SteadyClock::time_point now);
    // The old, whole reading of an event: for one whose meta_info could not be read quickly.
    void on_event_parsed(std::string_view data, util::SteadyClock::time_point now);
    void count_tokens(int tokens, util::SteadyClock::time_point now);

    void read_whole_answer(util::SteadyClock::time_point now);

    SseParser parser_;
    bool stream_;
    std::string answer_;  // stream false: the body
    RequestRecord record_;
    util::SteadyClock::time_point sent_;
    util::SteadyClock::time_point last_token_at_{};
    int expected_tokens_;
    int tokens_ = 0;
    bool done_ = false;
    std::string error_;
};

// An error text with its request-specific numbers (bootstrap rooms, ids) masked, so the same failure of
// many requests groups as one: "KV transfer failed (bootstrap_room=N): ...".
std::string error_group(std::string_view error);

}  // namespace pdctl::load
