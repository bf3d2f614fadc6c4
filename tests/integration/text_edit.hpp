#pragma once
// Editing a profile's text in tests: every occurrence of one string replaced by another.

#include <string>

namespace pdctl::testing {

inline void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
        text.replace(pos, from.size(), to);
}

}  // namespace pdctl::testing
