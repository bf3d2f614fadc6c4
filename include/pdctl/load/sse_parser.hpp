#pragma once
// Server-sent events (text/event-stream), read incrementally: bytes arrive in whatever pieces the
// socket gives, events come out whole. Only what a load client needs: the `data:` lines of each
// event joined by newlines; comments, `event:`, `id:` and `retry:` fields are skipped. Pure.
//
// Each byte is looked at once and copied at most once: an event that arrives whole within one piece is
// handed out as a view into that piece, one that spans pieces is gathered once into the parser's
// buffer. SGLang's default streaming repeats the whole answer so far in every event (tens of KiB by the
// end of a long answer, in many reads), so a parser that rescanned or recopied what it had would cost
// the square of the answer.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::load {

class SseParser {
  public:
    // Called with the data of each completed event; the view is valid during the call only.
    using EventSink = std::function<void(std::string_view data)>;

    // Appends `bytes` and hands every event they completed, in order, to `on_event`.
    void feed(std::string_view bytes, const EventSink& on_event);
    // The same, the events copied out (for tests and small answers).
    std::vector<std::string> feed(std::string_view bytes);
    // The raw text since the last complete event, at most 4 KiB: what a stream that was cut short, or a
    // body that was not SSE at all (a JSON error), said last.
    std::string unfinished() const;

  private:
    void take_line(std::string_view line, bool line_is_carried, const EventSink& on_event);
    void remember_raw(std::string_view text);

    std::string line_;  // the start of a line whose end has not arrived yet
    // The data of the current event so far: a view into the piece being fed, or into owned_.
    std::string owned_;
    std::string_view data_;
    bool has_data_ = false;
    bool data_in_piece_ = false;  // data_ points into the piece being fed, not into owned_
    std::string unfinished_;      // the lines of the current event, up to the limit
};

}  // namespace pdctl::load
