#pragma once
// Server-sent events (text/event-stream), read incrementally: bytes arrive in whatever pieces the
// socket gives, events come out whole. Only what a load client needs: the `data:` lines of each
// event joined by newlines; comments, `event:`, `id:` and `retry:` fields are skipped. Pure.

#include <string>
#include <string_view>
#include <vector>

namespace pdctl::load {

class SseParser {
  public:
    // Appends `bytes` and returns the data of every event they completed, in order.
    std::vector<std::string> feed(std::string_view bytes);
    // The raw text since the last complete event, at most 4 KiB: what a stream that was cut short, or a
    // body that was not SSE at all (a JSON error), said last.
    std::string unfinished() const;

  private:
    void take_line(std::string_view line, std::vector<std::string>& events);

    std::string line_;  // the current line, until its end arrives
    std::string data_;  // data of the current event so far
    bool has_data_ = false;
    std::string unfinished_;  // the lines of the current event, up to the limit
};

}  // namespace pdctl::load
