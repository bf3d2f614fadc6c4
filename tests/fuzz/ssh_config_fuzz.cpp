// libFuzzer target: the ~/.ssh/config reader (exec::SshConfig::parse) and the lookup of a few hosts.
// Include is followed for real, so it is confined to a scratch directory holding two files (one a
// plain Host block, one including itself to hit the depth limit): an input whose Include line names
// a path with '/' (absolute, ~/, ../) is skipped, or the fuzzer could read /dev/zero.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "pdctl/exec/ssh_config.hpp"

namespace {

std::string g_dir;

bool includes_a_path(std::string_view text) {
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        std::string line(text.substr(start, end - start));
        start = end + 1;
        std::transform(line.begin(), line.end(), line.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (line.find("include") != std::string::npos && line.find('/') != std::string::npos) return true;
    }
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    char pattern[] = "/tmp/pdctl-ssh-config-fuzz.XXXXXX";
    if (!::mkdtemp(pattern)) std::abort();
    g_dir = pattern;
    std::ofstream(g_dir + "/hosts.conf")
        << "Host n? jump\n  HostName 10.0.0.%h\n  User deploy\n  Port 2222\n";
    std::ofstream(g_dir + "/loop.conf") << "Host loop\n  Include loop.conf\n";
    ::setenv("HOME", g_dir.c_str(), 1);  // ~/ in IdentityFile values; Include ~/... is skipped above
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pdctl::exec;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (includes_a_path(text)) return 0;
    const SshConfig config = SshConfig::parse(text, "fuzz_config", g_dir);
    for (const char* host : {"n1", "10.0.0.1", "jump", "loop", "PROD-Node-7.example.com", ""})
        (void)config.lookup(host);
    // The pattern matcher on its own, with the input's first line as a pattern against the rest.
    const auto newline = text.find('\n');
    if (newline != std::string_view::npos)
        (void)ssh_pattern_match(text.substr(0, newline), text.substr(newline + 1));
    return 0;
}
