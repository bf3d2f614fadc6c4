#include "pdctl/load/sse_parser.hpp"

namespace pdctl::load {
namespace {

constexpr std::size_t kUnfinishedLimit = 4096;

}  // namespace

std::vector<std::string> SseParser::feed(std::string_view bytes) {
    std::vector<std::string> events;
    while (!bytes.empty()) {
        const auto end = bytes.find('\n');
        if (end == std::string_view::npos) {
            line_.append(bytes);
            break;
        }
        line_.append(bytes.substr(0, end));
        bytes.remove_prefix(end + 1);
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        if (unfinished_.size() < kUnfinishedLimit) unfinished_.append(line_).append("\n");
        take_line(line_, events);
        line_.clear();
    }
    return events;
}

std::string SseParser::unfinished() const {
    std::string text = unfinished_ + line_;
    if (text.size() > kUnfinishedLimit) text.resize(kUnfinishedLimit);
    return text;
}

void SseParser::take_line(std::string_view line, std::vector<std::string>& events) {
    if (line.empty()) {  // a blank line ends the event
        if (has_data_) events.push_back(std::move(data_));
        data_.clear();
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
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
}

}  // namespace pdctl::load
