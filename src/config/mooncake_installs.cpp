#include "pdctl/config/mooncake_installs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <regex>

#include "pdctl/util/strings.hpp"

namespace pdctl::config {
namespace {

using util::lower;

// Reads digits at `pos`; nullopt (pos unchanged) when there are none.
std::optional<int> read_number(const std::string& text, std::size_t& pos) {
    std::size_t end = pos;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == pos || end - pos > 9) return std::nullopt;
    const int value = std::stoi(text.substr(pos, end - pos));
    pos = end;
    return value;
}

// Reads `[sep]word[sep]N` for one of `words` (PEP 440 allows ., - or _ and an omitted number).
bool read_tagged(const std::string& text, std::size_t& pos, std::initializer_list<const char*> words,
                 int& number) {
    std::size_t at = pos;
    if (at < text.size() && (text[at] == '.' || text[at] == '-' || text[at] == '_')) ++at;
    for (const char* word : words) {
        const std::string_view w(word);
        if (text.compare(at, w.size(), w) != 0) continue;
        std::size_t after = at + w.size();
        if (after < text.size() && (text[after] == '.' || text[after] == '-' || text[after] == '_')) ++after;
        number = read_number(text, after).value_or(0);
        pos = after;
        return true;
    }
    return false;
}

// PEP 440 sort key pieces. A dev release without pre/post sorts before that release's pre-releases.
int pre_rank(const Version& v) {
    if (v.pre_kind >= 0) return v.pre_kind;
    return v.post < 0 && v.dev >= 0 ? -1 : 3;
}

}  // namespace

std::optional<Version> parse_version(std::string_view input) {
    Version version;
    version.text = std::string(input);
    const std::string text = lower(input);
    std::size_t pos = text.rfind('v', 0) == 0 ? 1 : 0;
    for (;;) {
        const auto part = read_number(text, pos);
        if (!part) return std::nullopt;
        version.release.push_back(*part);
        const bool more = pos + 1 < text.size() && text[pos] == '.' &&
                          std::isdigit(static_cast<unsigned char>(text[pos + 1]));
        if (!more) break;
        ++pos;
    }
    int number = 0;
    if (read_tagged(text, pos, {"rc", "c", "pre", "preview"}, number)) {
        version.pre_kind = 2;
        version.pre = number;
    } else if (read_tagged(text, pos, {"beta", "b"}, number)) {
        version.pre_kind = 1;
        version.pre = number;
    } else if (read_tagged(text, pos, {"alpha", "a"}, number)) {
        version.pre_kind = 0;
        version.pre = number;
    }
    if (read_tagged(text, pos, {"post", "rev", "r"}, number)) version.post = number;
    if (read_tagged(text, pos, {"dev"}, number)) version.dev = number;
    if (pos < text.size() && text[pos] != '+') return std::nullopt;  // +local labels do not order
    return version;
}

int compare(const Version& a, const Version& b) {
    const auto length = std::max(a.release.size(), b.release.size());
    for (std::size_t i = 0; i < length; ++i) {
        const int x = i < a.release.size() ? a.release[i] : 0;
        const int y = i < b.release.size() ? b.release[i] : 0;
        if (x != y) return x < y ? -1 : 1;
    }
    const auto key = [](const Version& v) {
        // (pre rank, pre number, post, dev): no dev sorts after every dev.
        return std::array<int, 4>{pre_rank(v), v.pre_kind >= 0 ? v.pre : 0, v.post,
                                  v.dev < 0 ? std::numeric_limits<int>::max() : v.dev};
    };
    const auto ka = key(a);
    const auto kb = key(b);
    if (ka == kb) return 0;
    return ka < kb ? -1 : 1;
}

std::vector<MooncakeInstall> mooncake_installs(std::string_view shell) {
    // Wheel: distribution (underscores; e.g. mooncake_transfer_engine_cuda13), '-', version, '-', tags.
    static const std::regex wheel(
        R"((mooncake_transfer_engine[A-Za-z0-9_]*)-([0-9][A-Za-z0-9.!+_]*?)-[^\s'"/]*\.whl)",
        std::regex::icase);
    // Requirement: pip normalises -, _ and . in names; === is the arbitrary-equality pin.
    static const std::regex pin(
        R"((mooncake[-_.]transfer[-_.]engine(?:[-_.][A-Za-z0-9]+)*)\s*===?\s*v?([0-9][A-Za-z0-9.!+]*))",
        std::regex::icase);
    std::vector<std::pair<long, MooncakeInstall>> found;  // by position, so messages follow the text
    const std::string text(shell);
    for (const auto* pattern : {&wheel, &pin}) {
        for (std::sregex_iterator it(text.begin(), text.end(), *pattern), end; it != end; ++it) {
            const auto version = parse_version((*it)[2].str());
            if (version) found.push_back({it->position(), {it->str(), *version}});
        }
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<MooncakeInstall> installs;
    for (auto& [position, install] : found) installs.push_back(std::move(install));
    return installs;
}

bool mentions_mooncake_package(std::string_view shell) {
    static const std::regex package(R"(mooncake[-_.]transfer[-_.]engine|mooncake[^\s'"]*\.whl)",
                                    std::regex::icase);
    const std::string text(shell);
    return std::regex_search(text, package);
}

std::string mooncake_image_tag(const std::string& image) {
    const auto slash = image.rfind('/');
    const auto colon = image.rfind(':');
    if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return {};
    const auto repository = image.substr(0, colon);
    if (repository.find("mooncake") == std::string::npos) return {};
    return image.substr(colon + 1);
}

}  // namespace pdctl::config
