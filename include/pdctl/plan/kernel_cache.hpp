#pragma once
// Where an SGLang rank keeps its compiled kernels between starts (`cache:`), and what makes them
// valid. SGLang keeps its JIT and compile caches (Triton, Inductor, torch.compile, DeepGEMM) under one
// root, SGLANG_CACHE_DIR (python/sglang/srt/environ.py); older versions read one variable per
// component. The rank gets a directory on its node that outlives it, the variables point into it, and
// the start script keys its content by a fingerprint (runtime::CacheSpec). Pure.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/runtime/unit_spec.hpp"

namespace pdctl::plan {

// Where a container sees its cache directory: SGLang's default root for root, set explicitly too.
inline constexpr const char* kContainerCacheRoot = "/root/.cache/sglang";

// The role's cache directory on its nodes: <cache>/<cluster>-<role> (its groups share it: they run the
// same kernels); "" when the role keeps none.
std::string kernel_cache_dir(const config::Cluster& cluster, const config::Role& role);

// The unit's cache: its directory, the mount point and the parts pdctl knows of its fingerprint: the
// program and its kernel-relevant arguments (not addresses, ports or the node rank: every rank of a
// group compiles the same kernels), the environment variables that change kernels, the image.
runtime::CacheSpec kernel_cache_for(const config::Cluster& cluster, const config::Role& role,
                                    const runtime::ProgramSpec& program, const runtime::RuntimeSpec& runtime);

// The variables that point SGLang's caches into `root`, for those `program` does not set itself.
std::vector<runtime::EnvEntry> kernel_cache_env(const std::string& root, const runtime::ProgramSpec& program);

}  // namespace pdctl::plan
