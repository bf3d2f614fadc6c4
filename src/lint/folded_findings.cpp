#include "pdctl/lint/folded_findings.hpp"

#include <algorithm>
#include <sstream>

#include "pdctl/util/name_ranges.hpp"

namespace pdctl::lint {
namespace {

// One word of a message: either the node's name (with what follows it, "n3:"), or the values the
// word had in the findings folded so far.
struct Slot {
    bool node = false;
    std::string after_node;  // punctuation after the node's name
    std::vector<std::string> values;
};

struct Group {
    std::string id;
    Severity severity = Severity::Error;
    std::vector<Slot> slots;
    std::vector<std::string> nodes;
    std::size_t count = 0;
};

constexpr std::string_view kPunctuation = "()[]{}:;,.'\"";

std::vector<Slot> slots_of(const Finding& finding) {
    std::vector<Slot> slots;
    std::istringstream words(finding.message);
    for (std::string word; words >> word;) {
        Slot slot;
        const auto rest =
            word.size() >= finding.node.size() ? word.substr(finding.node.size()) : std::string();
        if (!finding.node.empty() && word.starts_with(finding.node) &&
            rest.find_first_not_of(kPunctuation) == std::string::npos) {
            slot.node = true;
            slot.after_node = rest;
        } else {
            slot.values.push_back(word);
        }
        slots.push_back(std::move(slot));
    }
    return slots;
}

bool same_slot(const Slot& a, const Slot& b) {
    return a.node == b.node && a.after_node == b.after_node && a.values == b.values;
}

// The one slot in which `a` and `b` differ, or -1 when they differ in none or in more than one (or
// cannot be compared at all).
int only_difference(const Group& a, const Group& b) {
    if (a.id != b.id || a.severity != b.severity || a.nodes != b.nodes || a.slots.size() != b.slots.size())
        return -1;
    int found = -1;
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
        if (same_slot(a.slots[i], b.slots[i])) continue;
        if (found >= 0 || a.slots[i].node || b.slots[i].node) return -1;
        found = static_cast<int>(i);
    }
    return found;
}

void add_unique(std::vector<std::string>& to, const std::vector<std::string>& values) {
    for (const auto& value : values)
        if (std::find(to.begin(), to.end(), value) == to.end()) to.push_back(value);
}

// Several values of one word: the punctuation they share at either end once, the rest as ranges
// ("mlx5_0–mlx5_3") or a list ("NCCL_IB_HCA, --disaggregation-ib-device").
std::string folded_word(const std::vector<std::string>& values) {
    if (values.size() == 1) return values.front();
    std::size_t head = 0, tail = 0;
    const auto shortest = std::min_element(values.begin(), values.end(), [](const auto& a, const auto& b) {
                              return a.size() < b.size();
                          })->size();
    const auto shared_at = [&](std::size_t i, bool from_end) {
        const auto pick = [&](const std::string& v) { return from_end ? v[v.size() - 1 - i] : v[i]; };
        const char c = pick(values.front());
        return kPunctuation.find(c) != std::string_view::npos &&
               std::all_of(values.begin(), values.end(), [&](const std::string& v) { return pick(v) == c; });
    };
    while (head < shortest && shared_at(head, false)) ++head;
    while (tail + head < shortest && shared_at(tail, true)) ++tail;
    std::vector<std::string> middles;
    for (const auto& value : values) middles.push_back(value.substr(head, value.size() - head - tail));
    return values.front().substr(0, head) + util::name_ranges(middles) +
           values.front().substr(values.front().size() - tail);
}

std::string message_of(const Group& group) {
    std::string text;
    for (const auto& slot : group.slots) {
        if (!text.empty()) text += ' ';
        text += slot.node ? util::name_ranges(group.nodes) + slot.after_node : folded_word(slot.values);
    }
    return text;
}

}  // namespace

std::vector<FoldedFinding> fold_findings(const std::vector<Finding>& findings) {
    // The same message on several nodes: one group, its nodes listed.
    std::vector<Group> groups;
    for (const auto& finding : findings) {
        Group one{finding.id, finding.severity, slots_of(finding), {}, 1};
        const bool names_node =
            std::any_of(one.slots.begin(), one.slots.end(), [](const Slot& s) { return s.node; });
        if (!finding.node.empty()) one.nodes.push_back(finding.node);
        const auto same = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
            return g.id == one.id && g.severity == one.severity && g.slots.size() == one.slots.size() &&
                   std::equal(g.slots.begin(), g.slots.end(), one.slots.begin(), same_slot) &&
                   (names_node || g.nodes == one.nodes);
        });
        if (same == groups.end()) {
            groups.push_back(std::move(one));
        } else {
            add_unique(same->nodes, one.nodes);
            ++same->count;
        }
    }
    // Then groups that differ in one word, until none do.
    for (bool merged = true; merged;) {
        merged = false;
        for (std::size_t i = 0; i < groups.size() && !merged; ++i) {
            for (std::size_t j = i + 1; j < groups.size() && !merged; ++j) {
                const int slot = only_difference(groups[i], groups[j]);
                if (slot < 0) continue;
                add_unique(groups[i].slots[static_cast<std::size_t>(slot)].values,
                           groups[j].slots[static_cast<std::size_t>(slot)].values);
                groups[i].count += groups[j].count;
                groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(j));
                merged = true;
            }
        }
    }
    std::vector<FoldedFinding> folded;
    for (const auto& group : groups)
        folded.push_back({group.id, group.severity, message_of(group), group.count, group.nodes});
    return folded;
}

}  // namespace pdctl::lint
