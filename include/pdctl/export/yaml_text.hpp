#pragma once
// A JSON tree as YAML text, for manifests a reviewer reads and a golden file pins: block style, keys in
// the tree's own order (nlohmann::ordered_json keeps insertion order, so the output is deterministic),
// and every string that a YAML parser could read as anything but that string double-quoted. The last
// point is the one that matters to Kubernetes: an unquoted `8998` or `true` in `args:` is an integer
// or a boolean, which the API server refuses where it wants strings.

#include <nlohmann/json.hpp>
#include <string>

namespace pdctl::exporter {

using Tree = nlohmann::ordered_json;

// One YAML document's body (no `---`), ending in a newline.
std::string to_yaml(const Tree& tree);

// Whether `text` may be written as a plain (unquoted) scalar and read back as the same string by a
// YAML 1.1 or 1.2 parser: no indicator characters at its start, no `: ` or ` #` inside, and nothing
// that resolves to null, a boolean or a number (`8998`, `0.85`, `yes`, `~`, `1e3`, `0x1f`, `.inf`).
bool plain_scalar_ok(const std::string& text);

}  // namespace pdctl::exporter
