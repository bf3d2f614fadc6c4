#include "pdctl/lint/argv.hpp"

#include <charconv>

namespace pdctl::lint {
namespace {

// An option word, as argparse sees it: `-x` or `--xyz`, but not a negative number.
bool is_option(std::string_view word) {
    if (word.size() < 2 || word[0] != '-') return false;
    return !(word[1] >= '0' && word[1] <= '9');
}

// Whether `word` is one of `names`, alone or as `name=value` (then `inline_value` gets the value).
bool matches(std::string_view word, FlagNames names, std::optional<std::string>& inline_value) {
    for (const auto name : names) {
        if (word == name) {
            inline_value.reset();
            return true;
        }
        if (word.size() > name.size() && word.substr(0, name.size()) == name && word[name.size()] == '=') {
            inline_value = std::string(word.substr(name.size() + 1));
            return true;
        }
    }
    return false;
}

}  // namespace

std::optional<std::string> flag_value(const std::vector<std::string>& argv, FlagNames names) {
    std::optional<std::string> value;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::optional<std::string> inline_value;
        if (!matches(argv[i], names, inline_value)) continue;
        if (inline_value) {
            value = inline_value;
        } else if (i + 1 < argv.size()) {
            value = argv[++i];
        } else {
            value.reset();
        }
    }
    return value;
}

std::optional<int> flag_int(const std::vector<std::string>& argv, FlagNames names) {
    const auto text = flag_value(argv, names);
    if (!text || text->empty()) return std::nullopt;
    int number = 0;
    const auto* end = text->data() + text->size();
    const auto [ptr, error] = std::from_chars(text->data(), end, number);
    if (error != std::errc() || ptr != end) return std::nullopt;
    return number;
}

bool flag_set(const std::vector<std::string>& argv, FlagNames names) {
    bool set = false;
    for (const auto& word : argv) {
        std::optional<std::string> inline_value;
        if (!matches(word, names, inline_value)) continue;
        set = !inline_value || *inline_value == "true" || *inline_value == "True" || *inline_value == "1";
    }
    return set;
}

std::vector<std::vector<std::string>> flag_occurrences(const std::vector<std::string>& argv,
                                                       FlagNames names) {
    std::vector<std::vector<std::string>> occurrences;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::optional<std::string> inline_value;
        if (!matches(argv[i], names, inline_value)) continue;
        std::vector<std::string> values;
        if (inline_value) values.push_back(*inline_value);
        while (i + 1 < argv.size() && !is_option(argv[i + 1])) values.push_back(argv[++i]);
        occurrences.push_back(std::move(values));
    }
    return occurrences;
}

std::vector<std::pair<std::string, std::string>> container_env(const std::vector<std::string>& options) {
    std::vector<std::pair<std::string, std::string>> env;
    const auto add = [&](const std::string& assignment) {
        const auto equals = assignment.find('=');
        if (equals != std::string::npos)
            env.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
    };
    for (std::size_t i = 0; i < options.size(); ++i) {
        const auto& word = options[i];
        if ((word == "-e" || word == "--env") && i + 1 < options.size()) {
            add(options[++i]);
        } else if (word.rfind("--env=", 0) == 0) {
            add(word.substr(6));
        } else if (word.rfind("-e", 0) == 0 && word.size() > 2 && word[2] != '-') {
            add(word.substr(2));
        }
    }
    return env;
}

}  // namespace pdctl::lint
