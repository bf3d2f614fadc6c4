// The flags pdctl puts on each server's command line, apart from the role's own args: read from the
// real plan builders, and written into docs/migrating.md, so the doc cannot drift from the code.
// Rewrite the doc's table after an intended change: PDCTL_UPDATE_GOLDEN=1 build/tests/pdctl_unit_tests
// --gtest_filter='GeneratedFlags*'
#include "pdctl/plan/generated_flags.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/build_paths.hpp"
#include "unit/support/golden.hpp"

namespace pdctl::plan {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBegin = "<!-- generated-flags:begin -->\n";
constexpr const char* kEnd = "<!-- generated-flags:end -->";

Plan kimi3_plan(config::Cluster& cluster) {
    cluster = config::load_cluster(
        std::string(pdctl::testing::source_dir()) + "/profiles/kimi3-pro6000-pd/pdctl.yaml",
        config::DiskFileSource());
    return build_plan(cluster);
}

// One row per role and flag: its value on rank 0 of the shipped profile, and where it comes from; a
// value that differs on other ranks says so.
std::string flags_table() {
    config::Cluster cluster;
    const auto plan = kimi3_plan(cluster);
    std::string table = "| role | flag | shipped profile, rank 0 | set from |\n|---|---|---|---|\n";
    for (const auto& stage : plan.stages) {
        const auto& role = *cluster.find_role(stage.role);
        const auto rank0 = generated_flags(stage.units.front(), role);
        for (const auto& flag : rank0) {
            bool per_rank = false;
            for (const auto& unit : stage.units)
                for (const auto& other : generated_flags(unit, role))
                    if (other.name == flag.name && other.value != flag.value) per_rank = true;
            table += "| " + stage.role + " | `" + flag.name + "` | " +
                     (flag.value.empty() ? std::string("—") : "`" + flag.value + "`") +
                     (per_rank ? " (each rank its own)" : "") + " | " + flag_source(role.kind, flag.name) +
                     " |\n";
        }
    }
    return table;
}

TEST(GeneratedFlags, SkipTheRolesOwnArgsAtTheEnd) {
    config::Cluster cluster;
    const auto plan = kimi3_plan(cluster);
    const auto& prefill = *plan.find_stage("prefill");
    const auto flags = generated_flags(prefill.units.at(1), *cluster.find_role("prefill"));
    const auto named = [&](const std::string& name) {
        return std::find_if(flags.begin(), flags.end(),
                            [&](const GeneratedFlag& f) { return f.name == name; });
    };
    ASSERT_NE(named("--tp-size"), flags.end());
    EXPECT_EQ(named("--tp-size")->value, "32");
    EXPECT_EQ(named("--node-rank")->value, "1");
    EXPECT_EQ(named("--mem-fraction-static"), flags.end()) << "EXTRA_ARGS is the role's own";
    EXPECT_EQ(named("--trust-remote-code"), flags.end());
}

TEST(GeneratedFlags, AnArgvThatDoesNotEndWithTheRolesArgsHasNone) {
    config::Cluster cluster;
    const auto plan = kimi3_plan(cluster);
    auto role = *cluster.find_role("prefill");
    role.args.push_back("--something-else");
    EXPECT_TRUE(generated_flags(plan.find_stage("prefill")->units.front(), role).empty());
}

TEST(GeneratedFlags, TheMigrationGuideListsThemAll) {
    const fs::path doc = fs::path(pdctl::testing::source_dir()) / "docs" / "migrating.md";
    std::string text = pdctl::testing::read_text_file(doc);
    const auto begin = text.find(kBegin);
    const auto end = text.find(kEnd);
    ASSERT_NE(begin, std::string::npos) << doc << " has no " << kBegin;
    ASSERT_NE(end, std::string::npos) << doc << " has no " << kEnd;
    const auto from = begin + std::string(kBegin).size();
    const std::string table = flags_table();
    if (std::getenv("PDCTL_UPDATE_GOLDEN")) {
        text.replace(from, end - from, table);
        std::ofstream(doc) << text;
        return;
    }
    EXPECT_EQ(text.substr(from, end - from), table)
        << "the flags pdctl sets changed: PDCTL_UPDATE_GOLDEN=1 rewrites the table in " << doc;
}

}  // namespace
}  // namespace pdctl::plan
