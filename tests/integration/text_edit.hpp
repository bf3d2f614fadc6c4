#pragma once
// Editing a profile's text in tests: every occurrence of one string replaced by another.

#include <string>

namespace pdctl::testing {

inline void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
        text.replace(pos, from.size(), to);
}

// profiles/local (or its SSH copy) with prefill and decode as two 2-node groups of TP 16 each, and,
// for "smg", the router switched to SMG with fast health checks and a short drain: the shape the
// rolling, heal and drill tests run. `prefill_groups` false keeps prefill one group on n1, n2.
inline void two_groups_each(std::string& text, const std::string& impl, bool prefill_groups = true) {
    replace_all(text, "tp_size: 32\n    ep_size: 32", "tp_size: 16\n    ep_size: 16");
    replace_all(text, "nodes: [n1, n2, n3, n4]",
                prefill_groups ? "groups: [[n1, n2], [n3, n4]]" : "nodes: [n1, n2]");
    replace_all(text, "nodes: [n5, n6, n7, n8]", "groups: [[n5, n6], [n7, n8]]");
    if (impl == "smg")
        replace_all(text, "program: [pdsim, sglang_router.launch_router]\n    impl: minilb",
                    "program: [pdsim, smg, launch]\n    impl: smg\n"
                    "    env: {PDSIM_ROUTER_CHECK_MS: \"100\", PDSIM_ROUTER_DRAIN_MS: \"300\"}");
}

}  // namespace pdctl::testing
