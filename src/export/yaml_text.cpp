#include "pdctl/export/yaml_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <string_view>

namespace pdctl::exporter {
namespace {

// Words YAML 1.1 (what PyYAML and many tools still speak) resolves to null or a boolean, in any of
// the spellings its resolver accepts.
bool yaml_keyword(const std::string& text) {
    static constexpr std::array<std::string_view, 22> kWords = {
        "null", "Null", "NULL", "~",  "true", "True", "TRUE", "false", "False", "FALSE", "yes",
        "Yes",  "YES",  "no",   "No", "NO",   "on",   "On",   "ON",    "off",   "Off",   "OFF"};
    if (std::find(kWords.begin(), kWords.end(), text) != kWords.end()) return true;
    return text == "y" || text == "Y" || text == "n" || text == "N";
}

// Anything a YAML 1.1 or 1.2 resolver could read as an int or a float: decimal, octal, hex, binary,
// sexagesimal (1:20), with `_` separators, exponents, .inf/.nan. Broad on purpose: quoting a string
// that did not need it costs nothing.
bool looks_numeric(const std::string& text) {
    static const std::regex kNumber(
        R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?|[-+]?0[xXoObB][0-9a-fA-F_]+|)"
        R"([-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))");
    return std::regex_match(text, kNumber);
}

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (c < 0x20 || c == 0x7f)
                    out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
                else
                    out += static_cast<char>(c);  // UTF-8 passes through: YAML is Unicode
        }
    }
    return out + "\"";
}

// Text with double quotes or backslashes (a PromQL expression, a JSON snippet) reads as written in
// single quotes, where only `'` is doubled; control characters need double quotes' escapes.
bool single_quote_reads_better(const std::string& text) {
    if (text.find('"') == std::string::npos && text.find('\\') == std::string::npos) return false;
    for (const unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return false;
    return true;
}

std::string single_quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string scalar(const Tree& value) {
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        if (plain_scalar_ok(text)) return text;
        return single_quote_reads_better(text) ? single_quoted(text) : quoted(text);
    }
    if (value.is_null()) return "null";
    return value.dump();  // numbers and booleans as JSON writes them, which YAML reads back the same
}

// A multi-line string reads best as a literal block (`|`): shell scripts and probe programs stay as
// written. Only when the block says exactly the string: printable characters, no line of blanks only,
// no leading blank (that would need an indentation indicator), at most one final newline.
bool literal_block_ok(const Tree& value) {
    if (!value.is_string()) return false;
    const auto& text = value.get_ref<const std::string&>();
    if (text.find('\n') == std::string::npos || text.front() == ' ' || text.front() == '\n') return false;
    if (text.size() >= 2 && text.compare(text.size() - 2, 2, "\n\n") == 0) return false;
    std::size_t line_start = 0;
    bool blank_line = true;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            if (blank_line && i > line_start) return false;
            line_start = i + 1;
            blank_line = true;
            continue;
        }
        if (c < 0x20 || c == 0x7f) return false;
        if (c != ' ') blank_line = false;
    }
    return !(blank_line && text.size() > line_start);
}

void emit_literal_block(const std::string& text, int indent, std::string& out) {
    const bool final_newline = text.back() == '\n';
    out += final_newline ? " |\n" : " |-\n";
    const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
    std::size_t start = 0;
    const std::size_t end = final_newline ? text.size() - 1 : text.size();
    while (start <= end) {
        const auto newline = std::min(text.find('\n', start), end);
        const std::string line = text.substr(start, newline - start);
        out += (line.empty() ? "" : pad + line) + "\n";
        start = newline + 1;
    }
}

bool is_empty_collection(const Tree& value) {
    return (value.is_object() || value.is_array()) && value.empty();
}

void emit(const Tree& node, int indent, std::string& out);

// A value after `key:` or `- `: a scalar or an empty collection stays on the line; a non-empty
// collection starts on the next line (a map one level deeper; a list under a key at the key's level,
// the usual Kubernetes style).
void emit_value(const Tree& value, int indent, bool under_key, std::string& out) {
    if (value.is_object() && !value.empty()) {
        out += "\n";
        emit(value, indent + 2, out);
    } else if (value.is_array() && !value.empty()) {
        out += "\n";
        emit(value, under_key ? indent : indent + 2, out);
    } else if (literal_block_ok(value)) {
        emit_literal_block(value.get_ref<const std::string&>(), indent, out);
    } else if (is_empty_collection(value)) {
        out += value.is_object() ? " {}\n" : " []\n";
    } else {
        out += " " + scalar(value) + "\n";
    }
}

void emit(const Tree& node, int indent, std::string& out) {
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    if (node.is_object()) {
        for (const auto& [key, value] : node.items()) {
            out += pad + (plain_scalar_ok(key) ? key : quoted(key)) + ":";
            emit_value(value, indent, true, out);
        }
    } else if (node.is_array()) {
        for (const auto& item : node) {
            if (item.is_object() && !item.empty()) {
                // The item's first key on the dash's line, the others aligned under it.
                std::string inner;
                emit(item, indent + 2, inner);
                out += pad + "- " + inner.substr(static_cast<std::size_t>(indent) + 2);
            } else if (item.is_array() && !item.empty()) {
                out += pad + "-\n";
                emit(item, indent + 2, out);
            } else {
                out += pad + "-";
                emit_value(item, indent, false, out);
            }
        }
    } else {
        out += pad + scalar(node) + "\n";
    }
}

}  // namespace

bool plain_scalar_ok(const std::string& text) {
    if (text.empty() || yaml_keyword(text) || looks_numeric(text)) return false;
    // Indicators that change the meaning of a scalar's first character.
    static constexpr std::string_view kLeading = "-?:,[]{}#&*!|>'\"%@`= ";
    if (kLeading.find(text.front()) != std::string_view::npos) {
        // `-x` and `--host` are plain in YAML (a dash needs a space after it to start a list item),
        // which keeps command lines readable; a lone `-` is not.
        if (text.front() != '-' || text.size() == 1 || text[1] == ' ') return false;
    }
    if (text.back() == ' ' || text.back() == ':') return false;
    if (text.find(": ") != std::string::npos || text.find(" #") != std::string::npos) return false;
    for (const unsigned char c : text)
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '\'') return false;
    // Flow indicators are harmless in block context, but kept quoted so a reader never wonders.
    for (const char c : {'{', '}', '[', ']', ',', '#'})
        if (text.find(c) != std::string::npos) return false;
    return true;
}

std::string to_yaml(const Tree& tree) {
    std::string out;
    if (is_empty_collection(tree)) return tree.is_object() ? "{}\n" : "[]\n";
    emit(tree, 0, out);
    return out;
}

}  // namespace pdctl::exporter
