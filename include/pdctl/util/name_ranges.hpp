#pragma once
// Node names for people, folded the way pdsh's hostlists are: "n1–n2, n5–n8, gpu-a".

#include <string>
#include <vector>

namespace pdctl::util {

// Names sharing a prefix with consecutive numbers become one range ("n5–n8"); the rest stay as they
// are. Order: first appearance of each prefix, numbers ascending within it. Duplicates count once.
std::string name_ranges(const std::vector<std::string>& names);

}  // namespace pdctl::util
