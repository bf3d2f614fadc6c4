#pragma once
// What the system's OpenSSH client will do for one destination, read from `ssh -G DEST`: its fully
// evaluated configuration (Host and Match blocks, Include, the system-wide defaults), one
// "keyword value" line each, keywords in lower case.

#include <string>
#include <vector>

namespace pdctl::exec {

struct OpenSshView {
    std::string hostname;
    std::string user;
    int port = 22;
    std::vector<std::string> identity_files;     // as printed: may start with `~/`
    std::vector<std::string> certificate_files;  // CertificateFile
    std::string proxy_jump;                      // empty: none
    std::string proxy_command;                   // empty: none
    bool gssapi = false;                         // GSSAPIAuthentication yes
};

// Unknown keywords are ignored; "none" means unset for the proxies.
OpenSshView parse_ssh_g(const std::string& text);

}  // namespace pdctl::exec
