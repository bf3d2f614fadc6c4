// The profiles shipped in profiles/ must pass the doctor: the production one cleanly, the local
// simulated one with only the loopback notes that its executor downgrades to info.
#include <filesystem>

#include "lint_test_util.hpp"
#include "pdctl/config/embedded_profile.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::lint::testing {
namespace {

Report doctor_of(const std::string& relative) {
    const auto cluster = config::load_cluster(std::string(pdctl::testing::source_dir()) + "/" + relative,
                                              config::DiskFileSource());
    return run_static_rules(cluster, plan::build_plan(cluster));
}

std::string listed(const Report& report) {
    std::string text;
    for (const auto& f : report.findings)
        text += f.id + " " + to_string(f.severity) + ": " + f.message + "\n";
    return text;
}

// The production profile has no error, and no warning but its own marked assumptions (PD014): the
// values the seed documents do not give, each listed with its file and line until a site confirms it.
TEST(LintShippedProfiles, ProductionProfileListsOnlyItsAssumptions) {
    const auto report = doctor_of("profiles/kimi3-pro6000-pd/pdctl.yaml");
    EXPECT_EQ(report.errors(), 0) << listed(report);
    std::vector<std::string> assumed;
    for (const auto& f : report.findings) {
        EXPECT_EQ(f.id, "PD014") << listed(report);
        EXPECT_EQ(f.severity, Severity::Warn);
        EXPECT_NE(f.location.line, 0) << f.message;
        assumed.push_back(f.role + " " + f.message.substr(0, f.message.find(' ')));
    }
    const std::vector<std::string> expected = {
        "prefill MODEL_PATH", "prefill NCCL_IB_GID_INDEX", "prefill MC_GID_INDEX",     "prefill BOOTSTRAP",
        "prefill EXTRA_ARGS", "decode MODEL_PATH",         "decode NCCL_IB_GID_INDEX", "decode MC_GID_INDEX",
        "decode BOOTSTRAP",   "decode EXTRA_ARGS"};
    EXPECT_EQ(assumed, expected) << listed(report);
}

TEST(LintShippedProfiles, LocalProfileHasNoErrorsOrWarnings) {
    const auto report = doctor_of("profiles/local/pdctl.yaml");
    EXPECT_EQ(report.errors(), 0) << listed(report);
    EXPECT_EQ(report.warnings(), 0) << listed(report);
    // Loopback everywhere is the point of the simulated cluster: noted, never blocking.
    for (const auto& f : report.findings) {
        EXPECT_EQ(f.severity, Severity::Info);
        EXPECT_TRUE(f.id == "PD009" || f.id == "PD010") << f.id;
    }
    EXPECT_EQ(with_id(report, "PD010").size(), 2u);  // prefill and decode
}

TEST(LintShippedProfiles, EmbeddedLocalProfileHasNoErrors) {
    std::map<std::string, std::string> files;
    const std::string directory = std::filesystem::path(config::kEmbeddedConfigPath).parent_path().string();
    for (const auto& [name, content] : config::embedded_local_profile())
        files[directory + "/" + name] = content;
    const auto cluster = config::load_cluster(config::kEmbeddedConfigPath, config::MemoryFileSource(files));
    const auto report = run_static_rules(cluster, plan::build_plan(cluster));
    EXPECT_EQ(report.errors(), 0) << listed(report);
}

}  // namespace
}  // namespace pdctl::lint::testing
