#pragma once
// The compiled-kernel caches of a simulated server. Real SGLang compiles kernels (Triton, Inductor,
// torch.compile, DeepGEMM) on first use, during CUDA-graph capture and warm-up, and keeps them under
// one root, SGLANG_CACHE_DIR (default ~/.cache/sglang; python/sglang/srt/environ.py), keyed by what
// makes a kernel valid. pdsim keeps one entry per key under <root>/pdsim-kernels/: a start that finds
// its entry skips the compile time (PDSIM_COMPILE_MS), one that does not pays it and writes the entry.

#include <string>

#include "sim/process.hpp"
#include "sim/program_args.hpp"

namespace pdsim {

struct KernelCacheResult {
    bool hit = false;
    std::string entry;  // the entry's path ("" without a writable root)
    Millis compiled{0};
};

// The cache root the server uses: $SGLANG_CACHE_DIR, else $HOME/.cache/sglang.
std::string kernel_cache_root();

// Finds or compiles (sleeps `compile_time`) and records this server's kernels under `root`.
KernelCacheResult use_kernel_cache(const std::string& root, const ServerArgs& args, Millis compile_time);

}  // namespace pdsim
