#include "pdctl/load/chunk_meta.hpp"

#include <cstring>

namespace pdctl::load {
namespace {

// Where a chunk's meta_info is looked for first: SGLang writes it last, a proxy that re-serializes with
// sorted keys first; only when neither end has it is the whole chunk searched.
constexpr std::size_t kMetaWindow = 4096;
constexpr std::string_view kSpace = " \t\r\n";

bool is_space(char c) {
    return kSpace.find(c) != std::string_view::npos;
}

std::size_t skip_space(std::string_view json, std::size_t at) {
    while (at < json.size() && is_space(json[at])) ++at;
    return at;
}

// Whether the quote at `quote` opens the string "key" that is an object key; if so, where its value
// starts (after the colon), else npos.
//
// Why a match is always a key and never text inside a string value: in JSON a quote inside a string is
// always escaped, written \" — so a quote with no backslash before it is structural, opening or closing
// a string. A closing quote can only be followed (after whitespace) by , : } or ], never by a letter,
// and the keys looked for begin with one: so the quote opens a string. The key holds no quote or
// backslash, so that string ends at the quote after the key's letters exactly when it is the key; a
// string followed by a colon is an object key. Rejecting a quote that follows a backslash loses nothing:
// that is an escaped quote, or a closing one after an escaped backslash ("a\\"), which a letter cannot
// follow. An answer whose text says "completion_tokens":9 is sent as \"completion_tokens\":9 and is
// never taken for the key.
std::size_t value_after_key(std::string_view json, std::size_t quote, std::string_view key) {
    if (quote > 0 && json[quote - 1] == '\\') return std::string_view::npos;
    const std::size_t close = quote + 1 + key.size();
    if (close >= json.size() || json[close] != '"' || json.compare(quote + 1, key.size(), key) != 0)
        return std::string_view::npos;
    const std::size_t colon = skip_space(json, close + 1);
    if (colon >= json.size() || json[colon] != ':') return std::string_view::npos;
    return skip_space(json, colon + 1);
}

// The key's value within [from, to), searching backwards (memrchr visits only the quotes).
std::size_t find_key_backward(std::string_view json, std::string_view key, std::size_t from, std::size_t to) {
    while (to > from) {
        const void* hit = memrchr(json.data() + from, '"', to - from);
        if (hit == nullptr) return std::string_view::npos;
        const auto quote = static_cast<std::size_t>(static_cast<const char*>(hit) - json.data());
        if (const auto value = value_after_key(json, quote, key); value != std::string_view::npos)
            return value;
        to = quote;
    }
    return std::string_view::npos;
}

std::size_t find_key_forward(std::string_view json, std::string_view key, std::size_t from, std::size_t to) {
    while (from < to) {
        const void* hit = std::memchr(json.data() + from, '"', to - from);
        if (hit == nullptr) return std::string_view::npos;
        const auto quote = static_cast<std::size_t>(static_cast<const char*>(hit) - json.data());
        if (const auto value = value_after_key(json, quote, key); value != std::string_view::npos)
            return value;
        from = quote + 1;
    }
    return std::string_view::npos;
}

// Past the string that opens at `at` (a quote); npos if it does not end.
std::size_t skip_string(std::string_view json, std::size_t at) {
    for (std::size_t i = at + 1; i < json.size(); ++i) {
        if (json[i] == '\\')
            ++i;
        else if (json[i] == '"')
            return i + 1;
    }
    return std::string_view::npos;
}

// Past the value that starts at `at`; npos if it is cut short. Not a validator: what it skips is meta_info's
// other entries, which the caller does not read.
std::size_t skip_value(std::string_view json, std::size_t at) {
    if (at >= json.size()) return std::string_view::npos;
    if (json[at] == '"') return skip_string(json, at);
    if (json[at] == '{' || json[at] == '[') {
        int depth = 0;
        for (std::size_t i = at; i < json.size();) {
            const char c = json[i];
            if (c == '"') {
                i = skip_string(json, i);
                if (i == std::string_view::npos) return i;
                continue;
            }
            if (c == '{' || c == '[') ++depth;
            if ((c == '}' || c == ']') && --depth == 0) return i + 1;
            ++i;
        }
        return std::string_view::npos;
    }
    std::size_t i = at;  // a number, true, false or null
    while (i < json.size() && json[i] != ',' && json[i] != '}' && json[i] != ']' && !is_space(json[i])) ++i;
    return i == at ? std::string_view::npos : i;
}

// An integer value at `at` followed by the end of the value (so 1.5 or 1e3 is not read as 1); -1 if it
// is none, `end` past the value either way (npos if the value is cut short).
int read_int(std::string_view json, std::size_t at, std::size_t& end) {
    end = skip_value(json, at);
    if (end == std::string_view::npos) return -1;
    long long value = 0;
    std::size_t i = at;
    for (; i < end && json[i] >= '0' && json[i] <= '9' && i - at < 10; ++i)
        value = value * 10 + (json[i] - '0');
    return i == end && i > at && value <= 0x7fffffff ? static_cast<int>(value) : -1;
}

}  // namespace

std::size_t find_key_from_end(std::string_view json, std::string_view key) {
    return find_key_backward(json, key, 0, json.size());
}

bool first_key_is(std::string_view json, std::string_view key) {
    const std::size_t brace = skip_space(json, 0);
    if (brace >= json.size() || json[brace] != '{') return false;
    const std::size_t quote = skip_space(json, brace + 1);
    return quote < json.size() && json[quote] == '"' &&
           value_after_key(json, quote, key) != std::string_view::npos;
}

std::optional<ChunkMeta> read_chunk_meta(std::string_view chunk) {
    constexpr std::string_view kMeta = "meta_info";
    const std::size_t size = chunk.size();
    std::size_t at = find_key_backward(chunk, kMeta, size > kMetaWindow ? size - kMetaWindow : 0, size);
    if (at == std::string_view::npos && size > kMetaWindow) {
        at = find_key_forward(chunk, kMeta, 0, kMetaWindow);
        if (at == std::string_view::npos) at = find_key_backward(chunk, kMeta, 0, size - kMetaWindow);
    }
    if (at == std::string_view::npos || chunk[at] != '{') return std::nullopt;
    ChunkMeta meta;
    std::size_t i = skip_space(chunk, at + 1);
    if (i < size && chunk[i] == '}') return meta;
    while (i < size) {
        if (chunk[i] != '"') return std::nullopt;
        const std::size_t key_end = skip_string(chunk, i);
        if (key_end == std::string_view::npos) return std::nullopt;
        const std::string_view key = chunk.substr(i + 1, key_end - i - 2);
        const std::size_t colon = skip_space(chunk, key_end);
        if (colon >= size || chunk[colon] != ':') return std::nullopt;
        const std::size_t value = skip_space(chunk, colon + 1);
        std::size_t end = std::string_view::npos;
        if (key == "completion_tokens")
            meta.completion_tokens = read_int(chunk, value, end);
        else if (key == "prompt_tokens")
            meta.prompt_tokens = read_int(chunk, value, end);
        else if (key == "cached_tokens")
            meta.cached_tokens = read_int(chunk, value, end);
        else
            end = skip_value(chunk, value);
        if (end == std::string_view::npos) return std::nullopt;
        i = skip_space(chunk, end);
        if (i < size && chunk[i] == '}') return meta;
        if (i >= size || chunk[i] != ',') return std::nullopt;
        i = skip_space(chunk, i + 1);
    }
    return std::nullopt;
}

}  // namespace pdctl::load
