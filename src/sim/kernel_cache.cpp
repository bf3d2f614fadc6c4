#include "sim/kernel_cache.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace pdsim {
namespace {

// Bumped when what pdsim "compiles" changes: entries of another version are not its kernels.
constexpr std::string_view kKernelVersion = "pdsim-kernels-1";

// What a compiled kernel depends on among the server's flags: the model and its shapes, the parallel
// layout, the mode (prefill and decode capture different graphs), the KV layout. Not the addresses,
// ports or node rank: every node of a group compiles the same kernels.
std::string kernel_identity(const ServerArgs& args) {
    return fmt::format("{}|model={}|tp={}|ep={}|dp={}|dp-attention={}|mode={}|page={}|kv-dtype={}",
                       kKernelVersion, args.model_path, args.tp_size, args.ep_size, args.dp_size,
                       args.enable_dp_attention, args.disaggregation_mode, args.page_size,
                       args.kv_cache_dtype);
}

// FNV-1a, 64 bit: a name for the entry, not a defence against anyone.
std::string short_hash(std::string_view text) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ULL;
    }
    return fmt::format("{:016x}", hash);
}

}  // namespace

std::string kernel_cache_root() {
    if (const char* root = std::getenv("SGLANG_CACHE_DIR"); root != nullptr && *root != '\0') return root;
    const char* home = std::getenv("HOME");
    return std::string(home != nullptr && *home != '\0' ? home : "/root") + "/.cache/sglang";
}

KernelCacheResult use_kernel_cache(const std::string& root, const ServerArgs& args, Millis compile_time) {
    namespace fs = std::filesystem;
    KernelCacheResult result;
    const fs::path entry = fs::path(root) / "pdsim-kernels" / short_hash(kernel_identity(args));
    result.entry = entry.string();
    std::error_code error;
    if (fs::is_regular_file(entry, error)) {
        result.hit = true;
        return result;
    }
    const auto began = Clock::now();
    sleep_ms(compile_time);
    result.compiled = std::chrono::duration_cast<Millis>(Clock::now() - began);
    // Written under a temporary name and renamed: another rank of the same node compiling at the same
    // time, or a stop in the middle, never leaves a half entry that a later start would trust.
    fs::create_directories(entry.parent_path(), error);
    const fs::path partial = entry.string() + fmt::format(".{}.tmp", ::getpid());
    {
        std::ofstream out(partial);
        out << kernel_identity(args) << '\n';
        if (!out) return result;
    }
    fs::rename(partial, entry, error);
    if (error) fs::remove(partial, error);
    return result;
}

}  // namespace pdsim
