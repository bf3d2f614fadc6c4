#pragma once
// Helpers for the config tests: files come from memory under /c/, the cluster file is /c/pdctl.yaml.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"

namespace pdctl::config::testing {

inline constexpr const char* kClusterFile = "/c/pdctl.yaml";

// Loads /c/pdctl.yaml = `yaml` with the other files given by path.
inline Cluster load(const std::string& yaml, std::map<std::string, std::string> other_files = {}) {
    other_files[kClusterFile] = yaml;
    return load_cluster(kClusterFile, MemoryFileSource(std::move(other_files)));
}

// The full ConfigError text of loading, or a failure if loading succeeds.
inline std::string load_error(const std::string& yaml, std::map<std::string, std::string> other_files = {}) {
    try {
        load(yaml, std::move(other_files));
    } catch (const ConfigError& error) {
        return error.what();
    }
    ADD_FAILURE() << "expected a ConfigError";
    return {};
}

// A valid cluster of 2 nodes and the four standard roles, to which a test appends its own text.
inline const char* kMinimalCluster = R"(cluster: kimi3
defaults:
  container: {image: lmsysorg/sglang:kimi-k3}
nodes:
  - {name: n1, address: 10.0.0.1}
  - {name: n2, address: 10.0.0.2}
roles:
  mooncake-master:
    kind: mooncake-master
    nodes: [n1]
  prefill:
    kind: sglang
    mode: prefill
    nodes: [n1]
  decode:
    kind: sglang
    mode: decode
    nodes: [n2]
  router:
    kind: router
    nodes: [n2]
)";

}  // namespace pdctl::config::testing
