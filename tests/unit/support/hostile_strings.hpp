#pragma once
// A seeded generator of strings meant to break shell quoting: quotes, `$()`, backticks, `;`, newlines,
// globs, leading dashes, unicode, raw bytes 1..255 (argv can hold any byte but NUL), and canary commands
// that would create a file if any shell ever parsed the string instead of passing it through.
// Shared by the unit property test (local /bin/sh, bash) and the SSH one (a real sshd and bash).

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace pdctl::testing {

// PDCTL_QUOTING_SEED overrides the seed so a failure printed by CI can be replayed exactly.
inline std::uint64_t quoting_seed(std::uint64_t fallback) {
    const char* text = std::getenv("PDCTL_QUOTING_SEED");
    return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

inline int quoting_cases(int fallback) {
    const char* text = std::getenv("PDCTL_QUOTING_CASES");
    return text && *text ? std::atoi(text) : fallback;
}

class HostileStrings {
  public:
    // `canary` is the path every embedded injection attempt would touch.
    HostileStrings(std::uint64_t seed, std::string canary) : rng_(seed), canary_(std::move(canary)) {
        const std::string touch = "touch " + canary_;
        pieces_ = {"'",
                   "\"",
                   "\\",
                   "`",
                   "$",
                   "$(",
                   ")",
                   "${",
                   "}",
                   ";",
                   "&",
                   "&&",
                   "|",
                   "||",
                   "<",
                   ">",
                   ">>",
                   "\n",
                   "\r",
                   "\t",
                   " ",
                   "  ",
                   "*",
                   "?",
                   "[a]",
                   "[!",
                   "~",
                   "~root",
                   "{a,b}",
                   "!",
                   "!!",
                   "#",
                   "%",
                   "=",
                   "-",
                   "--",
                   "-e",
                   "-n",
                   "--help",
                   "\\'",
                   "'\\''",
                   "\"'\"",
                   "\\\n",
                   "$HOME",
                   "${PATH}",
                   "$0",
                   "$1",
                   "$@",
                   "$*",
                   "$#",
                   "$$",
                   "$?",
                   "$((1+1))",
                   "$'\\x41'",
                   "é",
                   "日本語",
                   "\xF0\x9F\x92\xA5",
                   "\xC3\x28",
                   "\xFF\xFE",
                   "\x01\x7F",
                   "%s",
                   "%n",
                   "\\0",
                   "$(" + touch + ")",
                   "`" + touch + "`",
                   ";" + touch + ";",
                   "|" + touch,
                   "&" + touch + "&",
                   "\n" + touch + "\n",
                   "'$(" + touch + ")'",
                   "\"$(" + touch + ")\"",
                   "';" + touch + ";'",
                   "\";" + touch + ";\"",
                   "$(IFS=,;" + touch + ")",
                   "<(" + touch + ")",
                   ">(" + touch + ")",
                   "a=b",
                   "IFS=x"};
    }

    // One string: 0..max_pieces pieces, each a hostile fragment, a random byte or a plain letter.
    std::string next(int max_pieces = 8) {
        std::string out;
        const int pieces = std::uniform_int_distribution<int>(0, max_pieces)(rng_);
        for (int i = 0; i < pieces; ++i) {
            switch (std::uniform_int_distribution<int>(0, 5)(rng_)) {
                case 0:
                    out += static_cast<char>(std::uniform_int_distribution<int>(1, 255)(rng_));
                    break;
                case 1:
                    out += static_cast<char>('a' + std::uniform_int_distribution<int>(0, 25)(rng_));
                    break;
                default:
                    out += pieces_[std::uniform_int_distribution<std::size_t>(0, pieces_.size() - 1)(rng_)];
            }
        }
        return out;
    }

    std::vector<std::string> batch(std::size_t count, int max_pieces = 8) {
        std::vector<std::string> words;
        words.reserve(count);
        for (std::size_t i = 0; i < count; ++i) words.push_back(next(max_pieces));
        return words;
    }

    std::mt19937_64& rng() { return rng_; }

  private:
    std::mt19937_64 rng_;
    std::string canary_;
    std::vector<std::string> pieces_;
};

// Splits `printf '%s\0' ...` output back into the words.
inline std::vector<std::string> split_nul(const std::string& out) {
    std::vector<std::string> words;
    std::string current;
    for (char c : out) {
        if (c == '\0') {
            words.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    return words;
}

// "word 17: expected 61 27 0a, got 61" — bytes in hex, since the strings are unprintable.
inline std::string hex(const std::string& text) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : text) {
        if (!out.empty()) out += ' ';
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

}  // namespace pdctl::testing
