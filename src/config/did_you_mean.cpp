#include <algorithm>
#include <numeric>

#include "pdctl/config/diagnostics.hpp"

namespace pdctl::config {

namespace {

// Edit distance counting an adjacent transposition as one edit (optimal string alignment):
// `prot` for `port` is the most common typo of all, and plain Levenshtein calls it two edits.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    // Three rows: the transposition looks two characters back.
    std::vector<std::size_t> before(b.size() + 1);
    std::vector<std::size_t> previous(b.size() + 1);
    std::vector<std::size_t> current(b.size() + 1);
    std::iota(previous.begin(), previous.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                current[j] = std::min(current[j], before[j - 2] + 1);
            }
        }
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return previous[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
    // A third of the word's length: `prot` -> `port` (1 edit) is a typo, while two unrelated
    // short keys are not suggested for each other.
    const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
    const std::string* best = nullptr;
    std::size_t best_distance = limit + 1;
    for (const auto& candidate : candidates) {
        const std::size_t distance = edit_distance(word, candidate);
        if (distance < best_distance) {  // strict: the first of equally close candidates wins
            best = &candidate;
            best_distance = distance;
        }
    }
    return best ? "did you mean `" + *best + "`?" : std::string{};
}

}  // namespace pdctl::config
