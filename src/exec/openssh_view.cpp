#include "pdctl/exec/openssh_view.hpp"

#include <charconv>
#include <sstream>

namespace pdctl::exec {

OpenSshView parse_ssh_g(const std::string& text) {
    OpenSshView view;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        const auto space = line.find(' ');
        if (space == std::string::npos) continue;
        const std::string key = line.substr(0, space);
        const std::string value = line.substr(space + 1);
        const bool none = value == "none";
        if (key == "hostname") {
            view.hostname = value;
        } else if (key == "user") {
            view.user = value;
        } else if (key == "port") {
            int port = 0;
            const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), port);
            if (error == std::errc() && end == value.data() + value.size()) view.port = port;
        } else if (key == "identityfile") {
            view.identity_files.push_back(value);
        } else if (key == "certificatefile" && !none) {
            view.certificate_files.push_back(value);
        } else if (key == "proxyjump" && !none) {
            view.proxy_jump = value;
        } else if (key == "proxycommand" && !none) {
            view.proxy_command = value;
        } else if (key == "gssapiauthentication") {
            view.gssapi = value == "yes";
        }
    }
    return view;
}

}  // namespace pdctl::exec
