#include "sim/args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace pdsim {
namespace {

bool is_flag(std::string_view token) {
    return token.size() > 1 && token[0] == '-' && token[1] == '-';
}

// gflags accepts a single dash too; a lone "-5" is a (negative) value, not a flag.
bool is_gflag(std::string_view token) {
    return is_flag(token) ||
           (token.size() > 1 && token[0] == '-' && !std::isdigit(static_cast<unsigned char>(token[1])));
}

const FlagSpec* find_spec(std::span<const FlagSpec> table, std::string_view name) {
    auto it =
        std::find_if(table.begin(), table.end(), [&](const FlagSpec& spec) { return spec.name == name; });
    return it == table.end() ? nullptr : &*it;
}

std::string canonical_name(const FlagSpec& spec) {
    return std::string(spec.canonical.empty() ? spec.name : spec.canonical);
}

}  // namespace

const ParsedArgs::Occurrences& ParsedArgs::all(std::string_view name) const {
    static const Occurrences kNone;
    auto it = values_.find(name);
    return it == values_.end() ? kNone : it->second;
}

std::optional<std::string> ParsedArgs::last(std::string_view name) const {
    const Occurrences& occurrences = all(name);
    if (occurrences.empty() || occurrences.back().empty()) {
        return std::nullopt;
    }
    return occurrences.back().front();
}

std::string ParsedArgs::str(std::string_view name, std::string_view fallback) const {
    return last(name).value_or(std::string(fallback));
}

int ParsedArgs::integer(std::string_view name, int fallback) const {
    auto value = last(name);
    if (!value) {
        return fallback;
    }
    char* end = nullptr;
    long parsed = std::strtol(value->c_str(), &end, 10);
    if (value->empty() || *end != '\0') {
        throw UsageError(fmt::format("argument {}: invalid int value: '{}'", name, *value));
    }
    return static_cast<int>(parsed);
}

bool ParsedArgs::boolean(std::string_view name, bool fallback) const {
    const Occurrences& occurrences = all(name);
    if (occurrences.empty()) {
        return fallback;
    }
    if (occurrences.back().empty()) {
        return true;
    }
    const std::string& value = occurrences.back().front();
    if (value == "true" || value == "1" || value == "yes" || value == "True") {
        return true;
    }
    if (value == "false" || value == "0" || value == "no" || value == "False") {
        return false;
    }
    throw UsageError(fmt::format("argument {}: invalid boolean value: '{}'", name, value));
}

ParsedArgs parse_flags(std::span<const std::string> argv, std::span<const FlagSpec> table, Dialect dialect) {
    ParsedArgs parsed;
    const bool gflags = dialect == Dialect::kGflags;
    auto flag_like = [&](std::string_view token) { return gflags ? is_gflag(token) : is_flag(token); };

    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::string_view token = argv[i];
        if (!flag_like(token)) {
            parsed.ignored_.emplace_back(token);  // a stray positional token
            continue;
        }
        std::string name(token);
        std::optional<std::string> inline_value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name.resize(eq);
        }
        if (gflags && !is_flag(name)) {
            name.insert(0, "-");  // "-port" and "--port" are the same gflag
        }
        const FlagSpec* spec = find_spec(table, name);
        if (spec == nullptr && gflags && name.rfind("--no", 0) == 0 && !inline_value) {
            // gflags spells "false" for a bool as --noflag.
            const FlagSpec* negated = find_spec(table, "--" + name.substr(4));
            if (negated != nullptr && negated->arity == Arity::kSwitch) {
                parsed.values_[canonical_name(*negated)].push_back({"false"});
                continue;
            }
        }
        if (spec == nullptr) {
            // Unknown flag: it takes a value unless the next token is another flag.
            parsed.ignored_.push_back(name);
            if (!inline_value && i + 1 < argv.size() && !flag_like(argv[i + 1])) {
                ++i;
            }
            continue;
        }

        std::vector<std::string> values;
        if (inline_value) {
            values.push_back(*inline_value);
        } else if (spec->arity != Arity::kSwitch) {
            if (i + 1 >= argv.size() || flag_like(argv[i + 1])) {
                throw UsageError(fmt::format("argument {}: expected one argument", name));
            }
            values.push_back(argv[++i]);
        }
        if (spec->arity == Arity::kOneOrTwo && i + 1 < argv.size() && !flag_like(argv[i + 1])) {
            values.push_back(argv[++i]);
        }
        parsed.values_[canonical_name(*spec)].push_back(std::move(values));
    }
    return parsed;
}

}  // namespace pdsim
