#include "pdctl/config/slurm_allocation.hpp"

#include <cctype>
#include <stdexcept>

#include "pdctl/util/strings.hpp"

namespace pdctl::config {
namespace {

bool all_digits(const std::string& text) {
    if (text.empty()) return false;
    for (const char c : text)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

// A host list's top-level items: commas inside brackets separate ranges, not hosts.
std::vector<std::string> split_items(const std::string& hostlist) {
    std::vector<std::string> items;
    std::string current;
    int depth = 0;
    for (const char c : hostlist) {
        if (c == '[') ++depth;
        if (c == ']' && --depth < 0) throw std::invalid_argument("`]` without `[` in `" + hostlist + "`");
        if (c == ',' && depth == 0) {
            items.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (depth != 0) throw std::invalid_argument("unclosed `[` in `" + hostlist + "`");
    items.push_back(current);
    return items;
}

// "001-003" → 001, 002, 003: the width of the lower bound is kept (SLURM's zero padding).
void expand_range(const std::string& range, const std::string& item, std::vector<std::string>& out) {
    const auto dash = range.find('-');
    const std::string low = range.substr(0, dash);
    const std::string high = dash == std::string::npos ? low : range.substr(dash + 1);
    if (!all_digits(low) || !all_digits(high) || low.size() > 9 || high.size() > 9)
        throw std::invalid_argument("`" + range + "` in `" + item + "` is not a number or a range N-M");
    const long first = std::stol(low);
    const long last = std::stol(high);
    if (last < first) throw std::invalid_argument("reversed range `" + range + "` in `" + item + "`");
    if (last - first > 100000) throw std::invalid_argument("range `" + range + "` is too large");
    for (long n = first; n <= last; ++n) {
        std::string digits = std::to_string(n);
        if (digits.size() < low.size()) digits.insert(0, low.size() - digits.size(), '0');
        out.push_back(std::move(digits));
    }
}

// One item, bracket groups expanded left to right (several groups: every combination, in order).
void expand_item(const std::string& prefix, const std::string& rest, const std::string& item,
                 std::vector<std::string>& out) {
    const auto open = rest.find('[');
    if (open == std::string::npos) {
        out.push_back(prefix + rest);
        return;
    }
    const auto close = rest.find(']', open);
    const std::string head = prefix + rest.substr(0, open);
    std::vector<std::string> numbers;
    for (const auto& range : util::split(rest.substr(open + 1, close - open - 1), ','))
        expand_range(range, item, numbers);
    for (const auto& number : numbers) expand_item(head + number, rest.substr(close + 1), item, out);
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& hostlist) {
    const std::string trimmed(util::trim(hostlist));
    if (trimmed.empty()) throw std::invalid_argument("the host list is empty");
    std::vector<std::string> names;
    for (const auto& item : split_items(trimmed)) {
        if (item.empty()) throw std::invalid_argument("an empty name in `" + trimmed + "`");
        expand_item("", item, item, names);
    }
    return names;
}

std::vector<AllocatedNode> parse_node_addresses(const std::string& scontrol_output) {
    std::vector<AllocatedNode> nodes;
    for (const auto& line : util::split(scontrol_output, '\n')) {
        AllocatedNode node;
        for (const auto& word : util::split(line, ' ')) {
            if (word.rfind("NodeName=", 0) == 0) node.name = word.substr(9);
            if (word.rfind("NodeAddr=", 0) == 0) node.address = word.substr(9);
        }
        if (!node.name.empty() && !node.address.empty()) nodes.push_back(std::move(node));
    }
    return nodes;
}

std::vector<std::size_t> allocation_positions(const std::string& item) {
    const auto dash = item.find('-');
    const std::string low = item.substr(0, dash);
    const std::string high = dash == std::string::npos ? low : item.substr(dash + 1);
    if (!all_digits(low) || !all_digits(high) || low.size() > 6 || high.size() > 6) return {};
    std::vector<std::size_t> positions;
    for (auto n = std::stoul(low); n <= std::stoul(high); ++n) positions.push_back(n);
    return positions;  // empty for a reversed range: the loader names it
}

}  // namespace pdctl::config
