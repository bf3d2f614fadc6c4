// Golden files pin the plan of every shipped profile: any change to a command line shows up in review.
// Regenerate after an intended change with: PDCTL_UPDATE_GOLDEN=1 build/tests/pdctl_unit_tests
// --gtest_filter='PlanGolden*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/report/plan_view.hpp"
#include "unit/support/build_paths.hpp"
#include "unit/support/golden.hpp"

namespace pdctl::plan {
namespace {

namespace fs = std::filesystem;

using pdctl::testing::read_text_file;

void expect_golden(const fs::path& golden, const std::string& actual) {
    pdctl::testing::expect_golden(golden, actual, "plan");
}

class PlanGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(PlanGolden, MatchesGoldenFiles) {
    const fs::path source = pdctl::testing::source_dir();
    // Relative paths keep the golden files independent of where the repository is checked out.
    fs::current_path(source);
    const std::string profile = GetParam();
    config::DiskFileSource disk;
    const auto cluster = config::load_cluster("profiles/" + profile + "/pdctl.yaml", disk);
    const auto plan = build_plan(cluster);
    const fs::path golden = source / "tests" / "golden";
    for (const std::string verb : {"start", "stop"})
        expect_golden(golden / (profile + ".plan-" + verb + ".txt"), report::render_plan_text(plan, verb));
    expect_golden(golden / (profile + ".plan.json"), report::plan_to_json(plan, "restart").dump(2) + "\n");
}

INSTANTIATE_TEST_SUITE_P(ShippedProfiles, PlanGolden, ::testing::Values("kimi3-pro6000-pd", "local"),
                         [](const auto& param_info) {
                             std::string name = param_info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// The seed profile with one choice changed: each router implementation, `entry: serve`, a Mooncake
// version with --rpc_port. The start plan pins each one's command lines and gates.
struct Variant {
    std::string name;
    void (*change)(config::Cluster&);
};

config::Role& role_named(config::Cluster& cluster, const std::string& name) {
    for (auto& role : cluster.roles)
        if (role.name == name) return role;
    throw std::runtime_error("no role " + name);
}

const Variant kVariants[] = {
    {"router-sglang-router",
     [](config::Cluster& c) { role_named(c, "router").router_impl = config::RouterImpl::SglangRouter; }},
    {"router-smg", [](config::Cluster& c) { role_named(c, "router").router_impl = config::RouterImpl::Smg; }},
    {"entry-serve",
     [](config::Cluster& c) {
         role_named(c, "prefill").entry = config::SglangEntry::Serve;
         role_named(c, "decode").entry = config::SglangEntry::Serve;
     }},
    {"mooncake-0.3.12",
     [](config::Cluster& c) { role_named(c, "mooncake-master").mooncake_version = "0.3.12.post1"; }},
    // A second network: the programs bind and advertise 10.20.0.N, SSH stays on 174.1.60.N.
    {"compute-network",
     [](config::Cluster& c) {
         for (std::size_t i = 0; i < c.nodes.size(); ++i)
             c.nodes[i].compute_address = "10.20.0." + std::to_string(i + 1);
     }},
};

void PrintTo(const Variant& variant, std::ostream* out) {
    *out << variant.name;
}

class PlanVariant : public ::testing::TestWithParam<Variant> {};

TEST_P(PlanVariant, MatchesGoldenFiles) {
    const fs::path source = pdctl::testing::source_dir();
    fs::current_path(source);
    config::DiskFileSource disk;
    auto cluster = config::load_cluster("profiles/kimi3-pro6000-pd/pdctl.yaml", disk);
    GetParam().change(cluster);
    expect_golden(source / "tests" / "golden" / ("kimi3-pro6000-pd." + GetParam().name + ".plan-start.txt"),
                  report::render_plan_text(build_plan(cluster), "start"));
}

INSTANTIATE_TEST_SUITE_P(Kimi3, PlanVariant, ::testing::ValuesIn(kVariants), [](const auto& param_info) {
    std::string name = param_info.param.name;
    std::replace_if(
        name.begin(), name.end(), [](char c) { return c == '-' || c == '.'; }, '_');
    return name;
});

// profiles/local with its prefill as two groups of 2 nodes (TP16 each): one stage per group, each with
// its own rank 0, --dist-init-addr and bootstrap server; decode gates on both, the router is given both.
TEST(PlanGroups, TwoPrefillGroupsMatchTheGoldenFiles) {
    const fs::path source = pdctl::testing::source_dir();
    fs::current_path(source);
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::directory_iterator("profiles/local"))
        files["profiles/local/" + entry.path().filename().string()] = read_text_file(entry.path());
    auto& yaml = files["profiles/local/pdctl.yaml"];
    const std::string prefill = "    mode: prefill\n    nodes: [n1, n2, n3, n4]\n";
    ASSERT_NE(yaml.find(prefill), std::string::npos);
    yaml.replace(yaml.find(prefill), prefill.size(), "    mode: prefill\n    groups: [[n1, n2], [n3, n4]]\n");
    const std::string sizes = "    tp_size: 32\n    ep_size: 32\n";
    yaml.replace(yaml.find(sizes), sizes.size(), "    tp_size: 16\n    ep_size: 16\n");
    const auto cluster = config::load_cluster("profiles/local/pdctl.yaml", config::MemoryFileSource(files));
    const auto plan = build_plan(cluster);
    const fs::path golden = source / "tests" / "golden";
    expect_golden(golden / "local.two-prefill-groups.plan-start.txt",
                  report::render_plan_text(plan, "start"));
    expect_golden(golden / "local.two-prefill-groups.plan.json",
                  report::plan_to_json(plan, "restart").dump(2) + "\n");
}

// executor: slurm (tests/profiles/slurm, the SLURM scenario's): each group's sbatch and srun lines, the
// job's files, and stop as scancel of the job by name.
TEST(PlanSlurm, TheSlurmProfileMatchesTheGoldenFiles) {
    const fs::path source = pdctl::testing::source_dir();
    fs::current_path(source);
    config::DiskFileSource disk;
    const auto cluster = config::load_cluster("tests/profiles/slurm/pdctl.yaml", disk);
    const auto plan = build_plan(cluster);
    const fs::path golden = source / "tests" / "golden";
    for (const std::string verb : {"start", "stop"})
        expect_golden(golden / ("slurm.plan-" + verb + ".txt"), report::render_plan_text(plan, verb));
    expect_golden(golden / "slurm.plan.json", report::plan_to_json(plan, "restart").dump(2) + "\n");
}

// `nodes: from-allocation` (tests/profiles/slurm-alloc) in a fixed allocation: the same deployment as
// steps of allocation 4242, the nodes named by position, srun --jobid/--overlap, and stop by step.
TEST(PlanSlurm, TheAllocationProfileMatchesTheGoldenFiles) {
    const fs::path source = pdctl::testing::source_dir();
    fs::current_path(source);
    config::DiskFileSource disk;
    const auto allocation = [] {
        config::SlurmAllocation fixed{"4242", "pds[1-8]", {}};
        for (int k = 1; k <= 8; ++k)
            fixed.nodes.push_back({"pds" + std::to_string(k), "10.66.0." + std::to_string(k)});
        return fixed;
    };
    const auto cluster = config::load_cluster("tests/profiles/slurm-alloc/pdctl.yaml", disk, allocation);
    const auto plan = build_plan(cluster);
    const fs::path golden = source / "tests" / "golden";
    for (const std::string verb : {"start", "stop"})
        expect_golden(golden / ("slurm-alloc.plan-" + verb + ".txt"), report::render_plan_text(plan, verb));
    expect_golden(golden / "slurm-alloc.plan.json", report::plan_to_json(plan, "restart").dump(2) + "\n");
}

}  // namespace
}  // namespace pdctl::plan
