#pragma once
// Internal to the config layer: reads yaml-cpp nodes into typed values and turns every problem
// (wrong type, out of range, unknown or duplicate key) into a Diagnostic at the node's position,
// so one pass over the file finds all mistakes. yaml-cpp positions are 0-based; ours are 1-based.

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/model.hpp"

namespace pdctl::config::detail {

struct YamlContext {
    std::string file;
    Diagnostics* diags = nullptr;

    // The node's position; `fallback` when yaml-cpp has none (null values carry the position of
    // whatever follows them, so callers pass the key's position instead).
    SourceLocation at(const YAML::Node& node, const SourceLocation& fallback = {}) const;
    void error(SourceLocation where, std::string key_path, std::string message, std::string hint = {}) const {
        diags->error(std::move(where), std::move(key_path), std::move(message), std::move(hint));
    }
};

// What a node holds, for "expected X, got Y": "`abc`", "a list", "a map", "nothing".
std::string describe(const YAML::Node& node);

// A scalar with its position, e.g. one node name in `nodes: [n1, n2]`.
struct Item {
    std::string value;
    SourceLocation where;
};

// Scalar conversions; nullopt after reporting why. `where` is the value's position.
std::optional<std::string> as_string(const YamlContext& ctx, const YAML::Node& node,
                                     const SourceLocation& where, const std::string& path);
std::optional<int> as_int(const YamlContext& ctx, const YAML::Node& node, const SourceLocation& where,
                          const std::string& path, int min, int max);
std::optional<std::vector<Item>> as_items(const YamlContext& ctx, const YAML::Node& node,
                                          const SourceLocation& where, const std::string& path,
                                          bool allow_scalar);

// A YAML map being read: typed getters by key, then check_keys() reports what nobody asked for.
class MapReader {
  public:
    struct Entry {
        std::string key;
        YAML::Node value;
        SourceLocation key_where;
        SourceLocation value_where;
    };

    // A null node (`defaults:` with nothing under it) reads as an empty map; anything else that is
    // not a map is reported once, and every getter then finds nothing.
    MapReader(const YamlContext& ctx, const YAML::Node& node, std::string path, SourceLocation where);

    bool is_map() const { return is_map_; }
    const SourceLocation& where() const { return where_; }
    const std::string& path() const { return path_; }
    std::string child_path(const std::string& key) const;
    const std::vector<Entry>& entries() const { return entries_; }
    const Entry* find(const std::string& key) const;
    const YamlContext& context() const { return ctx_; }

    // Each getter leaves `out` untouched when the key is absent or its value is invalid, and
    // returns true only when `out` was set.
    bool string(const std::string& key, std::string& out) const;
    bool integer(const std::string& key, int& out, int min, int max) const;
    bool port(const std::string& key, int& out) const { return integer(key, out, 1, 65535); }
    bool boolean(const std::string& key, bool& out) const;
    bool duration(const std::string& key, Duration& out) const;
    bool strings(const std::string& key, std::vector<std::string>& out, bool allow_scalar = false) const;
    bool items(const std::string& key, std::vector<Item>& out, bool allow_scalar = false) const;
    // Index into `names` of the value, which must be one of them.
    std::optional<std::size_t> choice(const std::string& key, const std::vector<std::string>& names) const;

    template <typename Enum>
    bool choice(const std::string& key, Enum& out,
                const std::vector<std::pair<std::string, Enum>>& options) const {
        std::vector<std::string> names;
        for (const auto& option : options) names.push_back(option.first);
        const auto index = choice(key, names);
        if (!index) return false;
        out = options[*index].second;
        return true;
    }

    // Reports `key` as missing (at this map's position) unless present; returns whether present.
    bool require(const std::string& key, const std::string& hint = {}) const;

    // Reports every key outside `allowed` and forgets it, so the getters never read it (one error
    // per mistake). `elsewhere(key)` may explain where a key does belong ("only valid for kind
    // router"); otherwise the key is unknown and the hint suggests the closest allowed key.
    void check_keys(const std::vector<std::string>& allowed,
                    const std::function<std::string(const std::string&)>& elsewhere = {});

  private:
    const YamlContext& ctx_;
    std::string path_;
    SourceLocation where_;
    bool is_map_ = false;
    std::vector<Entry> entries_;
};

}  // namespace pdctl::config::detail
