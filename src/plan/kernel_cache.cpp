#include "pdctl/plan/kernel_cache.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "pdctl/util/shell_quote.hpp"

namespace pdctl::plan {
namespace {

// Arguments that differ between the ranks of a group or only say where it listens: a kernel compiled
// by one rank is as valid on the others.
constexpr std::array<std::string_view, 9> kPlacementFlags = {"--host",
                                                             "--port",
                                                             "--dist-init-addr",
                                                             "--node-rank",
                                                             "--disaggregation-bootstrap-port",
                                                             "--metrics-port",
                                                             "--gated-launch-port",
                                                             "--bootstrap-port",
                                                             "--nccl-port"};

// Environment families that change what is compiled (kernel choices, architectures, JIT switches).
constexpr std::array<std::string_view, 7> kKernelEnvPrefixes = {"SGLANG_", "SGL_",  "TORCH",      "TRITON_",
                                                                "CUDA_",   "NVTE_", "FLASHINFER_"};

// The cache's own locations: where it is, not what it holds.
bool is_cache_location(std::string_view key) {
    return key == "SGLANG_CACHE_DIR" || key == "FLASHINFER_WORKSPACE_BASE" || key == "CUDA_CACHE_PATH" ||
           (key.size() > 10 && key.substr(key.size() - 10) == "_CACHE_DIR");
}

std::string kernel_arguments(const std::vector<std::string>& argv) {
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& word = argv[i];
        const auto eq = word.find('=');
        const std::string flag = word.substr(0, eq);
        if (std::find(kPlacementFlags.begin(), kPlacementFlags.end(), flag) != kPlacementFlags.end()) {
            if (eq == std::string::npos) ++i;  // its value is the next word
            continue;
        }
        kept.push_back(word);
    }
    return util::join_command(kept);
}

}  // namespace

std::string kernel_cache_dir(const config::Cluster& cluster, const config::Role& role) {
    if (role.cache_dir.empty() || role.kind != config::RoleKind::Sglang) return {};
    return role.cache_dir + "/" + cluster.name + "-" + role.entry_name();
}

runtime::CacheSpec kernel_cache_for(const config::Cluster& cluster, const config::Role& role,
                                    const runtime::ProgramSpec& program,
                                    const runtime::RuntimeSpec& runtime) {
    runtime::CacheSpec cache;
    cache.dir = kernel_cache_dir(cluster, role);
    if (cache.dir.empty()) return cache;
    const bool container = runtime.kind == config::RuntimeKind::Docker;
    if (container) cache.mount = kContainerCacheRoot;
    cache.parts.push_back("program=" + kernel_arguments(program.argv));
    for (const auto& env : program.env) {
        if (env.secret || is_cache_location(env.key)) continue;
        const bool kernel_env =
            std::any_of(kKernelEnvPrefixes.begin(), kKernelEnvPrefixes.end(),
                        [&](std::string_view prefix) { return env.key.rfind(prefix, 0) == 0; });
        if (kernel_env) cache.parts.push_back("env " + env.key + "=" + env.value);
    }
    if (container) cache.parts.push_back("image=" + runtime.image);
    return cache;
}

std::vector<runtime::EnvEntry> kernel_cache_env(const std::string& root,
                                                const runtime::ProgramSpec& program) {
    // SGLANG_CACHE_DIR is the root of recent versions, which point the others below it themselves; the
    // others, at the same places, are what older versions read (and recent ones would have chosen).
    const std::array<std::pair<const char*, std::string>, 5> wanted = {{
        {"SGLANG_CACHE_DIR", root},
        {"TRITON_CACHE_DIR", root + "/triton"},
        {"TORCHINDUCTOR_CACHE_DIR", root + "/inductor"},
        {"SGLANG_DG_CACHE_DIR", root + "/deep_gemm"},
        {"CUDA_CACHE_PATH", root + "/nv"},
    }};
    std::vector<runtime::EnvEntry> env;
    for (const auto& variable : wanted) {
        const std::string key = variable.first;
        const bool set = std::any_of(program.env.begin(), program.env.end(),
                                     [&key](const runtime::EnvEntry& entry) { return entry.key == key; });
        if (!set) env.push_back({key, variable.second, false});
    }
    return env;
}

}  // namespace pdctl::plan
