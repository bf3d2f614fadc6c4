#include "pdctl/load/sse_parser.hpp"

namespace pdctl::load {
namespace {

constexpr std::size_t kUnfinishedLimit = 4096;

}  // namespace

void SseParser::feed(std::string_view bytes, const EventSink& on_event) {
    while (!bytes.empty()) {
        // Only the new bytes are searched: a line's start that came before is never looked at again.
        const auto end = bytes.find('\n');
        if (end == std::string_view::npos) {
            line_.append(bytes);
            break;
        }
        const bool carried = !line_.empty();
        std::string_view line = bytes.substr(0, end);
        if (carried) {
            line_.append(line);
            line = line_;
        }
        bytes.remove_prefix(end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        remember_raw(line);
        remember_raw("\n");
        take_line(line, carried, on_event);
        line_.clear();
    }
    // An event still open holds a view into this piece, which is gone once feed returns: keep a copy.
    if (has_data_ && data_in_piece_) {
        owned_.assign(data_);
        data_ = owned_;
        data_in_piece_ = false;
    }
}

std::vector<std::string> SseParser::feed(std::string_view bytes) {
    std::vector<std::string> events;
    feed(bytes, [&events](std::string_view data) { events.emplace_back(data); });
    return events;
}

std::string SseParser::unfinished() const {
    std::string text = unfinished_;
    if (text.size() < kUnfinishedLimit) text.append(line_, 0, kUnfinishedLimit - text.size());
    return text;
}

void SseParser::remember_raw(std::string_view text) {
    if (unfinished_.size() < kUnfinishedLimit)
        unfinished_.append(text.substr(0, kUnfinishedLimit - unfinished_.size()));
}

// `line_is_carried`: `line` is line_ (it began in an earlier piece), whose buffer may be taken over.
void SseParser::take_line(std::string_view line, bool line_is_carried, const EventSink& on_event) {
    if (line.empty()) {  // a blank line ends the event
        if (has_data_) on_event(data_);
        data_ = {};
        has_data_ = false;
        unfinished_.clear();
        return;
    }
    if (line.front() == ':') return;  // a comment (keep-alive)
    const auto colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    if (field != "data") return;
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (has_data_) {  // a second data line of the same event: rare, joined by a copy
        std::string joined;
        joined.reserve(data_.size() + 1 + value.size());
        joined.append(data_).append(1, '\n').append(value);
        owned_ = std::move(joined);
        data_ = owned_;
        data_in_piece_ = false;
    } else if (line_is_carried) {
        // The line was gathered in line_ already: take its buffer instead of copying it again.
        const auto offset = static_cast<std::size_t>(value.data() - line_.data());
        owned_.swap(line_);
        data_ = std::string_view(owned_).substr(offset, value.size());
        data_in_piece_ = false;
    } else {
        data_ = value;  // within this piece; feed copies it if the event is still open at its end
        data_in_piece_ = true;
    }
    has_data_ = true;
}

}  // namespace pdctl::load
