#include "pdctl/exec/ssh_config.hpp"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "pdctl/util/strings.hpp"

namespace pdctl::exec {
namespace {

using util::lower;

constexpr int kMaxIncludeDepth = 16;

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

std::string read_file(const std::string& path, bool& ok) {
    std::ifstream in(path, std::ios::binary);
    ok = static_cast<bool>(in);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::string home_dir() {
    const char* home = std::getenv("HOME");
    return home ? home : "";
}

}  // namespace

SshConfigLine split_ssh_config_line(std::string_view line) {
    SshConfigLine split;
    std::size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size() || line[i] == '#') return split;
    std::size_t key_end = i;
    while (key_end < line.size() && !is_space(line[key_end]) && line[key_end] != '=') ++key_end;
    split.key = lower(line.substr(i, key_end - i));
    std::size_t rest = key_end;
    while (rest < line.size() && is_space(line[rest])) ++rest;
    if (rest < line.size() && line[rest] == '=') ++rest;
    while (rest < line.size() && is_space(line[rest])) ++rest;
    split.rest = std::string(line.substr(rest));
    // The words: blank-separated, "double quotes" grouping.
    std::size_t at = rest;
    while (at < line.size()) {
        while (at < line.size() && is_space(line[at])) ++at;
        if (at >= line.size()) break;
        std::string word;
        if (line[at] == '"') {
            const auto end = line.find('"', at + 1);
            word = std::string(
                line.substr(at + 1, end == std::string_view::npos ? std::string_view::npos : end - at - 1));
            at = end == std::string_view::npos ? line.size() : end + 1;
        } else {
            while (at < line.size() && !is_space(line[at])) word += line[at++];
        }
        split.args.push_back(std::move(word));
    }
    return split;
}

bool ssh_pattern_match(std::string_view pattern, std::string_view text) {
    // Iterative wildcard match with backtracking to the last `*`.
    std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
    auto same = [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    };
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || (pattern[p] != '*' && same(pattern[p], text[t])))) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

bool ssh_host_patterns_match(const std::vector<std::string>& patterns, std::string_view host) {
    bool matched = false;
    for (const auto& pattern : patterns) {
        if (!pattern.empty() && pattern[0] == '!') {
            if (ssh_pattern_match(std::string_view(pattern).substr(1), host)) return false;
        } else if (ssh_pattern_match(pattern, host)) {
            matched = true;
        }
    }
    return matched;
}

SshConfig SshConfig::parse(std::string_view text, const std::string& source_name,
                           const std::string& base_dir) {
    SshConfig config;
    config.parse_into(text, source_name, base_dir, 0);
    return config;
}

SshConfig SshConfig::load(const std::string& path) {
    SshConfig config;
    bool ok = false;
    const std::string text = read_file(path, ok);
    if (!ok) return config;  // no config file: nothing to honour
    const auto slash = path.rfind('/');
    config.parse_into(text, path, slash == std::string::npos ? "." : path.substr(0, slash), 0);
    return config;
}

void SshConfig::parse_into(std::string_view text, const std::string& source_name, const std::string& base_dir,
                           int depth) {
    if (blocks_.empty()) blocks_.push_back(Block{});  // settings before the first Host apply to all
    int line_number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const auto split = split_ssh_config_line(line);
        if (split.key.empty()) continue;
        const std::string& key = split.key;
        const auto& args = split.args;
        const std::string where = source_name + ":" + std::to_string(line_number) + ": ";
        if (args.empty()) {
            warnings_.push_back(where + key + " has no value; ignored");
            continue;
        }

        if (key == "host") {
            blocks_.push_back(Block{args, false, {}});
        } else if (key == "match") {
            if (args.size() == 1 && lower(args[0]) == "all") {
                blocks_.push_back(Block{{"*"}, false, {}});
            } else {
                warnings_.push_back(where +
                                    "Match blocks are not supported by pdctl's libssh2 transport; their "
                                    "settings are ignored there (ssh.transport auto/openssh honours them)");
                for (const auto& arg : args)
                    if (lower(arg) == "exec") has_match_exec_ = true;
                blocks_.push_back(Block{{}, true, {}});
            }
        } else if (key == "include") {
            if (depth >= kMaxIncludeDepth) {
                warnings_.push_back(where + "Include nested too deeply; ignored");
                continue;
            }
            const Block outer = blocks_.back();
            const std::size_t before = blocks_.size();
            for (const auto& arg : args) {
                std::string pattern = arg;
                if (pattern.rfind("~/", 0) == 0) pattern = home_dir() + pattern.substr(1);
                if (pattern.empty() || pattern[0] != '/') pattern = base_dir + "/" + pattern;
                glob_t found{};
                if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
                    for (std::size_t n = 0; n < found.gl_pathc; ++n) {
                        bool ok = false;
                        const std::string path = found.gl_pathv[n];
                        const std::string included = read_file(path, ok);
                        if (ok) {
                            parse_into(included, path, base_dir, depth + 1);
                        } else {
                            warnings_.push_back(where + "cannot read included file " + path);
                        }
                    }
                }
                ::globfree(&found);
            }
            // As in OpenSSH, the lines after an Include belong to the block that held it.
            if (blocks_.size() != before) blocks_.push_back(Block{outer.patterns, outer.never, {}});
        } else if (key == "port") {
            int port = 0;
            const auto& value = args[0];
            const bool digits =
                !value.empty() && value.size() <= 5 &&
                std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
            if (digits) port = std::stoi(value);
            if (port < 1 || port > 65535) {
                warnings_.push_back(where + "Port '" + value + "' is not a port number; ignored");
                continue;
            }
            blocks_.back().settings.push_back({key, value});
        } else if (key == "hostname" || key == "user" || key == "identityfile" || key == "proxyjump" ||
                   key == "proxycommand") {
            // ProxyCommand takes the rest of the line verbatim.
            std::string value = key == "proxycommand" ? split.rest : args[0];
            blocks_.back().settings.push_back({key, std::move(value)});
        }
        // Every other keyword is an OpenSSH setting pdctl has no use for.
    }
}

SshHostConfig SshConfig::lookup(const std::string& host) const {
    SshHostConfig out;
    for (const auto& block : blocks_) {
        if (block.never) continue;
        if (!block.patterns.empty() && !ssh_host_patterns_match(block.patterns, host)) continue;
        for (const auto& [key, value] : block.settings) {
            if (key == "hostname" && !out.hostname) out.hostname = value;
            if (key == "user" && !out.user) out.user = value;
            if (key == "port" && !out.port) out.port = std::stoi(value);
            if (key == "identityfile") out.identity_files.push_back(value);
            if (key == "proxyjump" && !out.proxy_jump) out.proxy_jump = value;
            if (key == "proxycommand" && !out.proxy_command) out.proxy_command = value;
        }
    }
    return out;
}

}  // namespace pdctl::exec
