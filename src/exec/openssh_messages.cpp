#include "pdctl/exec/openssh_messages.hpp"

#include <regex>
#include <sstream>
#include <string_view>
#include <vector>

#include "pdctl/exec/known_hosts.hpp"

namespace pdctl::exec {
namespace {

bool contains(const std::string& text, std::string_view needle) {
    return text.find(needle) != std::string::npos;
}

// ssh's lines without the decoration around the host-key warnings (the @@@ banner, "IT IS POSSIBLE
// THAT SOMEONE IS DOING SOMETHING NASTY!" ...): the first ones that say something.
std::vector<std::string> meaningful_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (line.empty() || line.rfind("@@@", 0) == 0) continue;
        lines.push_back(line);
    }
    return lines;
}

std::string first_match(const std::string& text, const std::regex& pattern, std::size_t group = 0) {
    std::smatch match;
    return std::regex_search(text, match, pattern) ? match[group].str() : std::string();
}

// The line naming a low-level cause, if any ("ssh: connect to host ... port 22: Connection refused").
std::string line_with(const std::vector<std::string>& lines, std::string_view needle) {
    for (const auto& line : lines)
        if (line.find(needle) != std::string::npos) return line;
    return {};
}

}  // namespace

std::string describe_openssh_failure(const std::string& stderr_text, const OpenSshFailureContext& context) {
    const auto lines = meaningful_lines(stderr_text);
    std::string ssh_said = lines.empty() ? "ssh exited 255 and printed nothing" : "ssh: " + lines.front();
    const std::string known_name = known_hosts_name(context.host, context.port);

    if (contains(stderr_text, "REMOTE HOST IDENTIFICATION HAS CHANGED")) {
        const std::string presented = first_match(stderr_text, std::regex(R"(SHA256:[A-Za-z0-9+/=]+)"));
        const std::string offending = first_match(stderr_text, std::regex(R"(Offending [^\n]* in (\S+))"), 1);
        return "HOST KEY CHANGED: " + (offending.empty() ? context.known_hosts : offending) +
               " has another key for " + known_name + ", but the host presents " +
               (presented.empty() ? "a different key" : presented) +
               ". If the change is expected (the host was reinstalled), remove the old entry: ssh-keygen -R "
               "'" +
               known_name + "' -f " + context.known_hosts;
    }
    if (contains(stderr_text, "host key is known for") ||
        contains(stderr_text, "Host key verification failed")) {
        // ssh names the host it checked: a jump host's, when the way to the node goes through one.
        const std::string named =
            first_match(stderr_text, std::regex(R"(host key is known for (\S+) and you have requested)"), 1);
        return "unknown host " + (named.empty() ? known_name : named) + ": " + context.known_hosts +
               " has no key for it and host keys are always verified. Check the fingerprint out of band, "
               "then add it (ssh-keyscan, or run once with --accept-new-host-keys)";
    }
    if (contains(stderr_text, "Permission denied (")) {
        return "authentication as " + context.user + " failed (" + line_with(lines, "Permission denied") +
               "): no key of ssh-agent, the ssh config or pdctl.yaml was accepted";
    }
    if (auto line = line_with(lines, "Connection refused"); !line.empty())
        return "connection refused (is sshd running and listening on that port?); " + ("ssh: " + line);
    if (auto line = line_with(lines, "timed out"); !line.empty())
        return "connect timed out (host down or port filtered?); ssh: " + line;
    if (auto line = line_with(lines, "Could not resolve hostname"); !line.empty())
        return "cannot resolve host name; ssh: " + line;
    if (auto line = line_with(lines, "No route to host"); !line.empty())
        return "no route to host; ssh: " + line;
    if (auto line = line_with(lines, "Network is unreachable"); !line.empty())
        return "network is unreachable; ssh: " + line;
    return ssh_said;
}

}  // namespace pdctl::exec
