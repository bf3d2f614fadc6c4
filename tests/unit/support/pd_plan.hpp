#pragma once
// A small PD plan for the tests of what acts on groups (rolling restarts, rollouts): a master on n1, the
// prefill and decode roles with the fields given (`groups: [[n1], [n2]], tp_size: 8`), and a router of
// `impl` on n5, every unit a local process.

#include <string>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"

namespace pdctl::testing {

inline plan::Plan pd_plan(const std::string& prefill, const std::string& decode, const std::string& impl) {
    const std::string yaml = R"(cluster: r
executor: local
defaults: {runtime: process, gpus_per_node: 8}
nodes:
  - {name: n1, address: 127.0.0.1}
  - {name: n2, address: 127.0.0.2}
  - {name: n3, address: 127.0.0.3}
  - {name: n4, address: 127.0.0.4}
  - {name: n5, address: 127.0.0.5}
roles:
  mooncake-master: {kind: mooncake-master, nodes: [n1]}
  prefill: {kind: sglang, mode: prefill, )" +
                             prefill + R"(}
  decode: {kind: sglang, mode: decode, )" +
                             decode + R"(}
  router: {kind: router, impl: )" +
                             impl + R"(, nodes: [n5]}
)";
    return plan::build_plan(
        config::load_cluster("/r/pdctl.yaml", config::MemoryFileSource({{"/r/pdctl.yaml", yaml}})));
}

}  // namespace pdctl::testing
