#pragma once
// The part of OpenSSH's client config (ssh_config(5)) that pdctl honours for a node's address:
// `Host` blocks with `*`/`?`/`!` patterns, HostName, User, Port, IdentityFile, Include; ProxyJump and
// ProxyCommand are recognised only to refuse them. As in OpenSSH, the first value found for a key wins
// (IdentityFile accumulates). `Match` blocks are skipped with a warning.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::exec {

struct SshHostConfig {
    std::optional<std::string> hostname;  // raw: may hold %h
    std::optional<std::string> user;
    std::optional<int> port;
    std::vector<std::string> identity_files;  // raw: may hold ~ and %d/%h/%r/%u/%p
    std::optional<std::string> proxy_jump;
    std::optional<std::string> proxy_command;
};

class SshConfig {
  public:
    SshConfig() = default;
    // `base_dir` resolves relative Include paths (OpenSSH: ~/.ssh for the user config).
    static SshConfig parse(std::string_view text, const std::string& source_name,
                           const std::string& base_dir);
    // A missing file is an empty config.
    static SshConfig load(const std::string& path);

    SshHostConfig lookup(const std::string& host) const;
    // Problems that did not stop parsing (unknown Port value, Match blocks, unreadable Include), with
    // `file:line:`.
    const std::vector<std::string>& warnings() const { return warnings_; }
    // A `Match exec` block: what applies depends on a command's result at connect time, which only
    // OpenSSH itself can evaluate.
    bool has_match_exec() const { return has_match_exec_; }

  private:
    struct Setting {
        std::string key;  // lower case
        std::string value;
    };
    struct Block {
        std::vector<std::string> patterns;  // empty = applies to every host (before the first Host)
        bool never = false;                 // a Match block we do not evaluate
        std::vector<Setting> settings;
    };
    void parse_into(std::string_view text, const std::string& source_name, const std::string& base_dir,
                    int depth);

    std::vector<Block> blocks_;
    std::vector<std::string> warnings_;
    bool has_match_exec_ = false;
};

// One line of an ssh_config file, split as OpenSSH splits it: the keyword in lower case, the text after
// it (and an optional `=`), and that text's words, "double quotes" grouping. An empty key: a blank or
// comment line. Both readers of the files (SshConfig, OpenSshConfigReading) split lines with it.
struct SshConfigLine {
    std::string key;
    std::string rest;
    std::vector<std::string> args;
};
SshConfigLine split_ssh_config_line(std::string_view line);

// OpenSSH pattern: `*` any run, `?` one character; case-insensitive like host names.
bool ssh_pattern_match(std::string_view pattern, std::string_view text);
// A Host line's pattern list: matches if some pattern matches and no `!pattern` does.
bool ssh_host_patterns_match(const std::vector<std::string>& patterns, std::string_view host);

}  // namespace pdctl::exec
