#pragma once
// A clean 4-node PD cluster in memory (files under /d/), which each test breaks in exactly one way:
// loaded through the real loader, so findings carry real file:line:col locations.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/lint/rules.hpp"
#include "pdctl/plan/builder.hpp"

namespace pdctl::lint::testing {

inline constexpr const char* kYaml = "/d/pdctl.yaml";
inline constexpr const char* kPrefillEnv = "/d/prefill.env";
inline constexpr const char* kDecodeEnv = "/d/decode.env";

// Prefill on n1-n2, decode on n3-n4, master on n1, router on n3: every rule passes (SGLang with
// --enable-metrics, which PD022 asks for).
inline const char* kCleanYaml = R"(cluster: lint
defaults:
  container: {image: lmsysorg/sglang:kimi-k3, options: [--cap-add, SYS_PTRACE]}
  gpus_per_node: 8
nodes:
  - {name: n1, address: 10.0.0.1}
  - {name: n2, address: 10.0.0.2}
  - {name: n3, address: 10.0.0.3}
  - {name: n4, address: 10.0.0.4}
roles:
  mooncake-master:
    kind: mooncake-master
    nodes: [n1]
  prefill:
    kind: sglang
    args: [--enable-metrics]
    mode: prefill
    nodes: [n1, n2]
    profile: prefill.env
    host: 0.0.0.0
  decode:
    kind: sglang
    args: [--enable-metrics]
    mode: decode
    nodes: [n3, n4]
    profile: decode.env
    host: 0.0.0.0
  router:
    kind: router
    nodes: [n3]
    port: 31000
)";

// Line 4 is the first free line of each profile.
inline const char* kCleanProfile = R"(export NCCL_SOCKET_IFNAME=bond1
export GLOO_SOCKET_IFNAME=bond1
BOOTSTRAP="pip install --no-deps /w/mooncake_transfer_engine_cuda13-0.3.12.post1-cp312-cp312-manylinux_2_28_x86_64.whl"
)";

struct Scenario {
    std::map<std::string, std::string> files{
        {kYaml, kCleanYaml}, {kPrefillEnv, kCleanProfile}, {kDecodeEnv, kCleanProfile}};

    Scenario& append(const std::string& file, const std::string& text) {
        files[file] += text;
        return *this;
    }
    // Replaces the one occurrence of `from` in `file` (a test that edits something that is not
    // there fails here, not silently).
    Scenario& replace(const std::string& file, const std::string& from, const std::string& to) {
        auto& text = files[file];
        const auto at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from << " not in " << file;
        if (at != std::string::npos) text.replace(at, from.size(), to);
        return *this;
    }

    plan::Plan plan() const {
        return plan::build_plan(config::load_cluster(kYaml, config::MemoryFileSource(files)));
    }

    Report run() const {
        try {
            const auto cluster = config::load_cluster(kYaml, config::MemoryFileSource(files));
            return run_static_rules(cluster, plan::build_plan(cluster));
        } catch (const config::ConfigError& error) {
            ADD_FAILURE() << error.what();
            return {};
        }
    }
};

// The findings of one rule.
inline std::vector<Finding> with_id(const Report& report, const std::string& id) {
    std::vector<Finding> out;
    std::copy_if(report.findings.begin(), report.findings.end(), std::back_inserter(out),
                 [&](const Finding& f) { return f.id == id; });
    return out;
}

// IDs of every error and warning, to check that a scenario breaks exactly one rule.
inline std::vector<std::string> problem_ids(const Report& report) {
    std::vector<std::string> ids;
    for (const auto& f : report.findings)
        if (f.severity != Severity::Info && std::find(ids.begin(), ids.end(), f.id) == ids.end())
            ids.push_back(f.id);
    return ids;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace pdctl::lint::testing
