#include "pdctl/config/detail/yaml_reader.hpp"

#include <algorithm>

#include "pdctl/config/duration.hpp"

namespace pdctl::config::detail {

namespace {

constexpr std::size_t kShownScalarLength = 40;

std::string quote_list(const std::vector<std::string>& names) {
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ");
        text += "`" + names[i] + "`";
    }
    return text;
}

}  // namespace

SourceLocation YamlContext::at(const YAML::Node& node, const SourceLocation& fallback) const {
    const YAML::Mark mark = node.Mark();
    if (node.IsNull() || mark.is_null() || mark.line < 0)
        return fallback.file.empty() ? SourceLocation{file} : fallback;
    return {file, mark.line + 1, mark.column + 1};
}

std::string describe(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Scalar: {
            std::string text = node.Scalar();
            if (text.size() > kShownScalarLength) text.replace(kShownScalarLength, std::string::npos, "...");
            return "`" + text + "`";
        }
        case YAML::NodeType::Sequence:
            return "a list";
        case YAML::NodeType::Map:
            return "a map";
        default:
            return "nothing";
    }
}

std::optional<std::string> as_string(const YamlContext& ctx, const YAML::Node& node,
                                     const SourceLocation& where, const std::string& path) {
    if (node.IsScalar()) return node.Scalar();
    ctx.error(where, path, "expected a string, got " + describe(node),
              node.IsNull() ? "write \"\" for an empty string" : std::string{});
    return std::nullopt;
}

std::optional<int> as_int(const YamlContext& ctx, const YAML::Node& node, const SourceLocation& where,
                          const std::string& path, int min, int max) {
    long long value = 0;  // wider than int, so 99999999999 is "out of range", not "not an integer"
    try {
        if (!node.IsScalar()) throw YAML::BadConversion(node.Mark());
        value = node.as<long long>();
    } catch (const YAML::BadConversion&) {
        ctx.error(where, path, "expected an integer, got " + describe(node));
        return std::nullopt;
    }
    if (value < min || value > max) {
        ctx.error(where, path,
                  "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                      std::to_string(value));
        return std::nullopt;
    }
    return static_cast<int>(value);
}

std::optional<std::vector<Item>> as_items(const YamlContext& ctx, const YAML::Node& node,
                                          const SourceLocation& where, const std::string& path,
                                          bool allow_scalar) {
    std::vector<Item> items;
    if (node.IsNull()) return items;  // `args:` with every entry commented out
    if (allow_scalar && node.IsScalar()) {
        items.push_back({node.Scalar(), where});
        return items;
    }
    if (!node.IsSequence()) {
        ctx.error(where, path,
                  std::string("expected ") + (allow_scalar ? "a string or a list" : "a list") + ", got " +
                      describe(node));
        return std::nullopt;
    }
    bool ok = true;
    std::size_t index = 0;
    for (const auto& element : node) {
        const std::string element_path = path + "[" + std::to_string(index++) + "]";
        const SourceLocation element_where = ctx.at(element, where);
        if (const auto value = as_string(ctx, element, element_where, element_path)) {
            items.push_back({*value, element_where});
        } else {
            ok = false;
        }
    }
    if (!ok) return std::nullopt;
    return items;
}

MapReader::MapReader(const YamlContext& ctx, const YAML::Node& node, std::string path, SourceLocation where)
    : ctx_(ctx), path_(std::move(path)), where_(std::move(where)) {
    if (node.IsNull()) {
        is_map_ = true;
        return;
    }
    if (!node.IsMap()) {
        ctx_.error(where_, path_, "expected a map, got " + describe(node));
        return;
    }
    is_map_ = true;
    for (auto it = node.begin(); it != node.end(); ++it) {
        const SourceLocation key_where = ctx_.at(it->first, where_);
        if (!it->first.IsScalar()) {
            ctx_.error(key_where, path_, "expected a key, got " + describe(it->first));
            continue;
        }
        const std::string key = it->first.Scalar();
        // yaml-cpp keeps duplicate keys; which one would win is not obvious, so refuse both.
        if (const Entry* first = find(key)) {
            ctx_.error(key_where, child_path(key), "duplicate key",
                       "first defined at line " + std::to_string(first->key_where.line));
            continue;
        }
        entries_.push_back({key, it->second, key_where, ctx_.at(it->second, key_where)});
    }
}

std::string MapReader::child_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

const MapReader::Entry* MapReader::find(const std::string& key) const {
    const auto it =
        std::find_if(entries_.begin(), entries_.end(), [&](const Entry& entry) { return entry.key == key; });
    return it == entries_.end() ? nullptr : &*it;
}

bool MapReader::string(const std::string& key, std::string& out) const {
    const Entry* entry = find(key);
    if (!entry) return false;
    const auto value = as_string(ctx_, entry->value, entry->value_where, child_path(key));
    if (value) out = *value;
    return value.has_value();
}

bool MapReader::integer(const std::string& key, int& out, int min, int max) const {
    const Entry* entry = find(key);
    if (!entry) return false;
    const auto value = as_int(ctx_, entry->value, entry->value_where, child_path(key), min, max);
    if (value) out = *value;
    return value.has_value();
}

bool MapReader::boolean(const std::string& key, bool& out) const {
    const Entry* entry = find(key);
    if (!entry) return false;
    try {
        if (!entry->value.IsScalar()) throw YAML::BadConversion(entry->value.Mark());
        out = entry->value.as<bool>();
        return true;
    } catch (const YAML::BadConversion&) {
        ctx_.error(entry->value_where, child_path(key),
                   "expected true or false, got " + describe(entry->value));
        return false;
    }
}

bool MapReader::duration(const std::string& key, Duration& out) const {
    const Entry* entry = find(key);
    if (!entry) return false;
    const auto text = as_string(ctx_, entry->value, entry->value_where, child_path(key));
    if (!text) return false;
    const auto value = parse_duration(*text);
    if (!value || value->count() == 0) {
        ctx_.error(
            entry->value_where, child_path(key),
            value ? std::string("must be greater than 0") : "invalid duration " + describe(entry->value),
            std::string("use ") + kDurationForms);
        return false;
    }
    out = *value;
    return true;
}

bool MapReader::strings(const std::string& key, std::vector<std::string>& out, bool allow_scalar) const {
    std::vector<Item> found;
    if (!items(key, found, allow_scalar)) return false;
    out.clear();
    for (auto& item : found) out.push_back(std::move(item.value));
    return true;
}

bool MapReader::items(const std::string& key, std::vector<Item>& out, bool allow_scalar) const {
    const Entry* entry = find(key);
    if (!entry) return false;
    auto value = as_items(ctx_, entry->value, entry->value_where, child_path(key), allow_scalar);
    if (value) out = std::move(*value);
    return value.has_value();
}

std::optional<std::size_t> MapReader::choice(const std::string& key,
                                             const std::vector<std::string>& names) const {
    const Entry* entry = find(key);
    if (!entry) return std::nullopt;
    const auto text = as_string(ctx_, entry->value, entry->value_where, child_path(key));
    if (!text) return std::nullopt;
    const auto it = std::find(names.begin(), names.end(), *text);
    if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
    ctx_.error(entry->value_where, child_path(key),
               "expected " + quote_list(names) + ", got " + describe(entry->value),
               did_you_mean(*text, names));
    return std::nullopt;
}

bool MapReader::require(const std::string& key, const std::string& hint) const {
    if (find(key)) return true;
    if (is_map_) ctx_.error(where_, path_, "missing required key `" + key + "`", hint);
    return false;
}

void MapReader::check_keys(const std::vector<std::string>& allowed,
                           const std::function<std::string(const std::string&)>& elsewhere) {
    std::vector<Entry> kept;
    for (auto& entry : entries_) {
        if (std::find(allowed.begin(), allowed.end(), entry.key) != allowed.end()) {
            kept.push_back(std::move(entry));
            continue;
        }
        const std::string reason = elsewhere ? elsewhere(entry.key) : std::string{};
        if (!reason.empty()) {
            ctx_.error(entry.key_where, child_path(entry.key), reason);
            continue;
        }
        std::string hint = did_you_mean(entry.key, allowed);
        if (entry.key == "<<") hint = "YAML merge keys are not supported; write the keys out";
        if (hint.empty()) hint = "valid keys here: " + quote_list(allowed);
        ctx_.error(entry.key_where, child_path(entry.key), "unknown key", hint);
    }
    entries_ = std::move(kept);
}

}  // namespace pdctl::config::detail
