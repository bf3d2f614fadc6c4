// The profiles shipped in profiles/ must pass the doctor: the production one cleanly, the local
// simulated one with only the loopback notes that its executor downgrades to info.
#include <filesystem>

#include "lint_test_util.hpp"
#include "pdctl/config/embedded_profile.hpp"

namespace pdctl::lint::testing {
namespace {

Report doctor_of(const std::string& relative) {
    const auto cluster =
        config::load_cluster(std::string(PDCTL_SOURCE_DIR) + "/" + relative, config::DiskFileSource());
    return run_static_rules(cluster, plan::build_plan(cluster));
}

std::string listed(const Report& report) {
    std::string text;
    for (const auto& f : report.findings)
        text += f.id + " " + to_string(f.severity) + ": " + f.message + "\n";
    return text;
}

TEST(LintShippedProfiles, ProductionProfilePassesWithNoFindingAtAll) {
    const auto report = doctor_of("profiles/kimi3-pro6000-pd/pdctl.yaml");
    EXPECT_TRUE(report.findings.empty()) << listed(report);
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
