#pragma once
// Building blocks for the live-check tests: the recorded nvidia-smi outputs (tests/fixtures/), a
// probe answer written line by line in the probe's own format, and a node's needs.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pdctl/doctor/live_checks.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::doctor::testing {

inline std::string fixture(const std::string& name) {
    const auto path = std::filesystem::path(pdctl::testing::source_dir()) / "tests" / "fixtures" / name;
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << "missing fixture " << path;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A probe answer: `probe 1`, the lines added, `end`. Fields are joined with tabs.
class ProbeAnswer {
  public:
    ProbeAnswer& line(const std::vector<std::string>& fields) {
        for (std::size_t i = 0; i < fields.size(); ++i) body_ += (i ? "\t" : "") + fields[i];
        body_ += "\n";
        return *this;
    }
    // Every line of a recorded output under one kind (gpu, app), as the probe's each_line does.
    ProbeAnswer& lines(const std::string& kind, const std::string& text) {
        std::istringstream in(text);
        std::string row;
        while (std::getline(in, row)) line({kind, row});
        return *this;
    }
    ProbeAnswer& gpus(const std::string& query_csv, const std::string& apps_csv) {
        line({"gpu-query", "0"});
        lines("gpu", query_csv);
        line({"apps-query", "0"});
        return lines("app", apps_csv);
    }
    ProbeAnswer& idle_gpus() {
        return gpus(fixture("nvidia-smi-h200-idle.query-gpu.csv"),
                    fixture("nvidia-smi-h200-idle.compute-apps.csv"));
    }
    std::string text() const {
        return "probe\t1\nkernel\t6.1.0-18-amd64\nmemlock\tunlimited\n" + body_ + "end\n";
    }
    NodeProbe probe(double clock_offset = 0) const {
        NodeProbe probe;
        probe.exit_code = 0;
        probe.out = text();
        probe.clock = {true, clock_offset, 0.01};
        return probe;
    }

  private:
    std::string body_;
};

// An sglang prefill node `name` that needs `gpus` GPUs, no RDMA device, no interface.
inline NodeNeeds sglang_node(const std::string& name, int gpus = 1) {
    NodeNeeds needs;
    needs.node.name = name;
    needs.node.address = "10.0.0." + name.substr(1);
    needs.roles = {"prefill"};
    needs.sglang_role = "prefill";
    needs.gpus = gpus;
    needs.state_dir = "/var/lib/pdctl";
    return needs;
}

inline std::vector<lint::Finding> with_id(const LiveResult& result, const std::string& id) {
    std::vector<lint::Finding> out;
    for (const auto& finding : result.findings)
        if (finding.id == id) out.push_back(finding);
    return out;
}

inline std::string listed(const LiveResult& result) {
    std::string text;
    for (const auto& f : result.findings)
        text += f.id + " " + lint::to_string(f.severity) + " " + f.node + ": " + f.message + "\n";
    return text;
}

inline LiveResult evaluate_one(const NodeNeeds& needs, const ProbeAnswer& answer,
                               const LiveOptions& options = {}) {
    return evaluate_live({needs}, {answer.probe()}, options);
}

}  // namespace pdctl::doctor::testing
