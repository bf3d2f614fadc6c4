#include "pdctl/exec/openssh_policy_config.hpp"

#include <stdexcept>
#include <string_view>

namespace pdctl::exec {
namespace {

// ssh_config's quoting: double quotes around an argument with blanks; there is no escape for a quote.
std::string quoted(const std::string& path) {
    if (path.find_first_of("\"\n\r") != std::string::npos)
        throw std::invalid_argument("an ssh config cannot name the path " + path +
                                    ": it holds a double quote or a line break");
    return "\"" + path + "\"";
}

}  // namespace

std::string openssh_policy_config(const OpenSshOptions& options, const std::string& home) {
    // ssh takes the first value it finds for each keyword: these come before anything the operator's
    // files say, as pdctl's -o options do on the command line.
    std::string text =
        "# Written by pdctl: its host-key policy for every ssh, a ProxyJump's included, then\n"
        "# the operator's own ssh config.\n"
        "Host *\n"
        "  BatchMode yes\n";
    text += std::string("  StrictHostKeyChecking ") + (options.accept_new_host_keys ? "accept-new" : "yes") +
            "\n";
    if (!options.known_hosts.empty()) text += "  UserKnownHostsFile " + quoted(options.known_hosts) + "\n";
    text += "  UpdateHostKeys no\n";
    if (options.ssh_config == "/dev/null") {
        // No config at all (`-F /dev/null`, as the benchmarks' baselines): ssh accepts /dev/null only
        // as -F itself; an Include of it fails its owner-and-permissions check.
    } else if (!options.ssh_config.empty()) {
        text += "  Include " + quoted(options.ssh_config) + "\n";
    } else {
        text += "  Include " + quoted(home + "/.ssh/config") + "\n";
        text += "  Include " + quoted("/etc/ssh/ssh_config") + "\n";
    }
    return text;
}

}  // namespace pdctl::exec
