#pragma once
// What `ssh -G` would print for a node, read in-process from the ssh config files, for the common case
// where the files say nothing that needs OpenSSH's own evaluation: `ssh.transport: auto` then decides
// without one `ssh -G` process per node (process creation is what costs on a busy machine).
//
// Conservative by design: the files are parsed once, and a node's view is given only when every line
// of every Host block that applies to it is one this reader knows to leave the decision's facts alone
// (or is one of those facts: HostName, User, Port, IdentityFile, CertificateFile, ProxyJump,
// ProxyCommand, GSSAPIAuthentication). Anything else (a `Match` block other than `Match all`, an unknown
// or unlisted keyword such as ControlMaster or CanonicalizeHostname, a %-token or ${VAR} where this
// reader does not expand it, an upper-case alias, an Include it cannot read) gives no view: ask
// `ssh -G` for that node, as before.

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pdctl/exec/openssh_view.hpp"

namespace pdctl::exec {

// One config file as OpenSSH reads it: the -F file alone, else ~/.ssh/config then /etc/ssh/ssh_config.
struct OpenSshConfigSource {
    std::string name;         // for messages: the file's path
    std::string text;         // its content; a missing file is an empty text
    std::string include_dir;  // where a relative Include points: ~/.ssh (user files), /etc/ssh (system)
};

// The files an Include pattern names (glob, in order), with their contents; `~/` already expanded.
using IncludeReader =
    std::function<std::vector<std::pair<std::string, std::string>>(const std::string& pattern)>;

// The node's command line as pdctl gives it to OpenSSH (openssh_destination_args): -l, -p, -i, --, alias.
struct OpenSshDestination {
    std::string alias;
    std::string user;                     // -l; empty: not given
    std::optional<int> port;              // -p
    std::vector<std::string> identities;  // -i, in order
};

// Parses the argument list of openssh_destination_args(); nullopt for anything else in it.
std::optional<OpenSshDestination> parse_destination_args(const std::vector<std::string>& args);

class OpenSshConfigReading {
  public:
    // `home` expands `~/` in Include patterns (OpenSSH: the password database's home).
    static OpenSshConfigReading parse(const std::vector<OpenSshConfigSource>& sources,
                                      const std::string& home, const IncludeReader& read_include);

    // What `ssh -G` prints for these fields, or nullopt with `why` set: ask `ssh -G`. `identity_exists`
    // says whether a -i file exists (OpenSSH drops a missing one, and may then list its defaults).
    std::optional<OpenSshView> view_for(const OpenSshDestination& destination, const std::string& local_user,
                                        const std::function<bool(const std::string&)>& identity_exists,
                                        std::string* why = nullptr) const;

  private:
    struct Line {
        std::string key;  // lower case
        std::vector<std::string> args;
        std::string rest;   // the arguments as written (ProxyCommand)
        std::string where;  // file:line
    };
    struct Block {
        std::vector<std::vector<std::string>> conditions;  // every Host pattern list must match
        std::vector<Line> lines;
    };
    void parse_into(const OpenSshConfigSource& source, const std::vector<std::vector<std::string>>& outer,
                    const std::string& home, const IncludeReader& read_include, int depth);

    std::vector<Block> blocks_;
    std::string unsupported_;  // non-empty: no view for any node (a Match block, an Include too deep)
};

// The files OpenSSH would read for pdctl's nodes: `config_file` alone (-F) when given, else the user's
// ~/.ssh/config (of the password database's home, as OpenSSH) and /etc/ssh/ssh_config. Reads them and
// their Includes from disk, once.
OpenSshConfigReading load_openssh_config_reading(const std::string& config_file);

}  // namespace pdctl::exec
