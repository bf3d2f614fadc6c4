// libFuzzer target: the cluster loader (config::load_cluster) on a fuzzed pdctl.yaml. The env files the
// shipped profiles name sit next to it in memory (profiles/local under /l/, the production profile under
// /c/), so the seeds (the real pdctl.yaml files) load completely and mutations reach role validation,
// env expansion and the cross-checks. ConfigError is the expected answer to a bad file; any other
// exception escaping the loader is a bug (the CLI would report it as an internal error).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"

namespace {

std::map<std::string, std::string> g_files;

void add_profile(const std::filesystem::path& dir, const std::string& prefix) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".env") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        g_files[prefix + entry.path().filename().string()] = text.str();
    }
}

void load(const std::string& path, const std::string& yaml) {
    auto files = g_files;
    files[path] = yaml;
    try {
        (void)pdctl::config::load_cluster(path, pdctl::config::MemoryFileSource(std::move(files)));
    } catch (const pdctl::config::ConfigError&) {
        // A diagnosed config error: the parser's normal answer to bad input.
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const std::filesystem::path source(PDCTL_SOURCE_DIR);
    add_profile(source / "profiles/local", "/l/");
    add_profile(source / "profiles/kimi3-pro6000-pd", "/c/");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string yaml(reinterpret_cast<const char*>(data), size);
    load("/l/pdctl.yaml", yaml);
    load("/c/pdctl.yaml", yaml);
    return 0;
}
