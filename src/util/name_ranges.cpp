#include "pdctl/util/name_ranges.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace pdctl::util {
namespace {

// "n12" -> {"n", 12}; a name without a trailing number (or with a leading zero) has none.
bool split_number(const std::string& name, std::string& prefix, long long& number) {
    std::size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
    const auto tail = name.substr(digits);
    if (tail.empty() || tail.size() > 12 || (tail.size() > 1 && tail[0] == '0')) return false;
    prefix = name.substr(0, digits);
    number = std::stoll(tail);
    return true;
}

}  // namespace

std::string name_ranges(const std::vector<std::string>& names) {
    std::vector<std::string> order;  // prefixes (numbered) and plain names, in first-appearance order
    std::map<std::string, std::set<long long>> numbers;
    std::set<std::string> plain;
    for (const auto& name : names) {
        std::string prefix;
        long long number = 0;
        if (split_number(name, prefix, number)) {
            const auto key = "#" + prefix;
            if (!numbers.count(key)) order.push_back(key);
            numbers[key].insert(number);
        } else if (plain.insert(name).second) {
            order.push_back(name);
        }
    }
    std::string out;
    auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    for (const auto& key : order) {
        if (key[0] != '#' || !numbers.count(key)) {
            add(key);
            continue;
        }
        const auto prefix = key.substr(1);
        const auto& set = numbers[key];
        for (auto it = set.begin(); it != set.end();) {
            auto end = it;
            while (std::next(end) != set.end() && *std::next(end) == *end + 1) ++end;
            add(*it == *end ? prefix + std::to_string(*it)
                            : prefix + std::to_string(*it) + "–" + prefix + std::to_string(*end));
            it = std::next(end);
        }
    }
    return out;
}

}  // namespace pdctl::util
