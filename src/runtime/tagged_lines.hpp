#pragma once
// The node scripts' answers of the form "KIND WORD WORD ...", one fact per line (cache_status.sh,
// prewarm.sh): each line's first word and a stream of the rest. Internal to runtime/.

#include <sstream>
#include <string>

namespace pdctl::runtime::detail {

// Calls each(kind, words) for every line of `output`.
template <typename Each>
void for_each_tagged_line(const std::string& output, Each each) {
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string kind;
        words >> kind;
        each(kind, words);
    }
}

}  // namespace pdctl::runtime::detail
