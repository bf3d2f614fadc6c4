// `pdctl export prometheus`: the golden files of the shipped profiles (the production one behind SMG
// in two prefill and two decode groups, the local one behind MiniLB), and the exporter's promises:
// one labelled target per group's rank 0, the router's metrics listener where it has one, notes for
// what cannot be scraped. The CI's promtool tests (tests/prometheus/) check the same files' syntax
// and run their rule tests. Regenerate after an intended change with:
//   PDCTL_UPDATE_GOLDEN=1 build/tests/pdctl_unit_tests --gtest_filter='PrometheusExport*'
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/export/prometheus.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/golden.hpp"

namespace pdctl::exporter {
namespace {

namespace fs = std::filesystem;

struct PrometheusProfiles {
    // profiles/NAME with `edit` applied to its pdctl.yaml (each replacement must match).
    static plan::Plan plan_of(const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& edits = {}) {
        fs::current_path(PDCTL_SOURCE_DIR);  // relative paths keep the golden header checkout-independent
        std::map<std::string, std::string> files;
        for (const auto& entry : fs::directory_iterator("profiles/" + name))
            files["profiles/" + name + "/" + entry.path().filename().string()] =
                testing::read_text_file(entry.path());
        auto& yaml = files["profiles/" + name + "/pdctl.yaml"];
        for (const auto& [from, to] : edits) {
            const auto at = yaml.find(from);
            if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in " + name);
            yaml.replace(at, from.size(), to);
        }
        const auto cluster =
            config::load_cluster("profiles/" + name + "/pdctl.yaml", config::MemoryFileSource(files));
        return plan::build_plan(cluster);
    }

    // The production profile as most 2026 deployments run it: SMG, two groups of each kind.
    static plan::Plan kimi3_behind_smg() {
        return plan_of("kimi3-pro6000-pd", {{"impl: minilb", "impl: smg"},
                                            {"    mode: prefill\n    nodes: [n1, n2, n3, n4]\n",
                                             "    mode: prefill\n    groups: [[n1, n2], [n3, n4]]\n"},
                                            {"    mode: decode\n    nodes: [n5, n6, n7, n8]\n",
                                             "    mode: decode\n    groups: [[n5, n6], [n7, n8]]\n"}});
    }
};

void expect_files(const std::string& stem, const PrometheusExport& exported) {
    const fs::path golden = fs::path(PDCTL_SOURCE_DIR) / "tests" / "golden" / "prometheus";
    testing::expect_golden(golden / (stem + ".prometheus.yml"), exported.config, "scrape configuration");
    testing::expect_golden(golden / (stem + ".alerts.yml"), exported.rules, "alert rules");
    testing::expect_golden(golden / (stem + ".alerts.test.yml"), exported.tests, "rule tests");
}

TEST(PrometheusExport, TheProductionProfileBehindSmgMatchesTheGoldenFiles) {
    const auto plan = PrometheusProfiles::kimi3_behind_smg();
    expect_files("kimi3-pro6000-pd.smg", prometheus_export(plan, {}));
}

TEST(PrometheusExport, TheLocalProfileMatchesTheGoldenFiles) {
    expect_files("local", prometheus_export(PrometheusProfiles::plan_of("local"), {}));
}

TEST(PrometheusExport, EveryGroupsRankZeroTheRouterAndTheMasterAreLabelledTargets) {
    const auto plan = PrometheusProfiles::kimi3_behind_smg();
    const auto exported = prometheus_export(plan, {});
    std::map<std::string, PrometheusTarget> by_group;
    for (const auto& target : exported.targets) by_group[target.group] = target;
    ASSERT_EQ(by_group.size(), 6u) << "master, two prefill groups, two decode groups, router";
    for (const auto& stage : plan.stages) {
        ASSERT_TRUE(by_group.count(stage.role)) << stage.role;
        const auto& target = by_group.at(stage.role);
        EXPECT_EQ(target.node, stage.units.front().node) << stage.role;
        EXPECT_EQ(target.rank, 0);
        EXPECT_EQ(target.role, stage.config_role);
    }
    EXPECT_EQ(by_group.at("prefill-2").job, "pd-kimi3-pro6000-sglang");
    EXPECT_EQ(by_group.at("prefill-2").node, "n3");
    EXPECT_EQ(by_group.at("router").address, "174.1.60.5:29000") << "SMG's default metrics port";
    EXPECT_EQ(by_group.at("mooncake-master").address, "174.1.60.1:9003");

    // Every target of the config file carries its labels, and the rules name this cluster.
    const auto config = YAML::Load(exported.config);
    std::size_t listed = 0;
    for (const auto& job : config["scrape_configs"])
        for (const auto& entry : job["static_configs"]) {
            ++listed;
            for (const char* label : {"cluster", "role", "group", "node", "rank"})
                EXPECT_TRUE(entry["labels"][label].IsDefined()) << label << " in " << job["job_name"];
        }
    EXPECT_EQ(listed, exported.targets.size());
    const auto rules = YAML::Load(exported.rules);
    std::vector<std::string> names;
    for (const auto& rule : rules["groups"][0]["rules"]) {
        names.push_back(rule["alert"].as<std::string>());
        EXPECT_NE(rule["expr"].as<std::string>().find("cluster=\"kimi3-pro6000\""), std::string::npos)
            << rule["alert"];
    }
    EXPECT_EQ(names, (std::vector<std::string>{"PDTargetDown", "PDKVTransferFailures", "PDBootstrapFailures",
                                               "PDQueueGrowing", "PDRouterNoHealthyPrefill",
                                               "PDRouterNoHealthyDecode"}));
    // SMG's health gauge is per worker URL; the rule lists the prefill groups' URLs, escaped.
    const auto prefill_rule = rules["groups"][0]["rules"][4]["expr"].as<std::string>();
    EXPECT_NE(prefill_rule.find("smg_worker_health"), std::string::npos) << prefill_rule;
    EXPECT_NE(prefill_rule.find(R"(http://174\\.1\\.60\\.3:30000)"), std::string::npos) << prefill_rule;
}

TEST(PrometheusExport, NotesNameWhatCannotBeScrapedAsConfigured) {
    // The production profile runs MiniLB and SGLang without --enable-metrics.
    const auto exported = prometheus_export(PrometheusProfiles::plan_of("kimi3-pro6000-pd"), {});
    std::string notes;
    for (const auto& note : exported.notes) notes += note + "\n";
    EXPECT_NE(notes.find("router: MiniLB has no metrics listener"), std::string::npos) << notes;
    EXPECT_NE(notes.find("prefill: SGLang serves /metrics only with --enable-metrics"), std::string::npos)
        << notes;
    EXPECT_NE(exported.config.find("# note: router: MiniLB"), std::string::npos) << "the notes head the file";
    for (const auto& target : exported.targets) EXPECT_NE(target.job, "pd-kimi3-pro6000-router");

    const auto rust = prometheus_export(
        PrometheusProfiles::plan_of("kimi3-pro6000-pd", {{"impl: minilb", "impl: sglang-router"}}), {});
    std::string rust_notes;
    for (const auto& note : rust.notes) rust_notes += note + "\n";
    EXPECT_NE(rust_notes.find("binds its metrics to 127.0.0.1 unless --prometheus-host"), std::string::npos)
        << rust_notes;
    EXPECT_NE(rust.rules.find("sgl_router_worker_health"), std::string::npos);
}

TEST(PrometheusExport, TheRoutersOwnMetricsFlagsAreFollowed) {
    const auto plan = PrometheusProfiles::plan_of(
        "local", {{"impl: minilb", "impl: smg\n    args: [--prometheus-port, \"29100\"]"},
                  {"program: [pdsim, sglang_router.launch_router]", "program: [pdsim, smg, launch]"}});
    const auto exported = prometheus_export(plan, {});
    bool found = false;
    for (const auto& target : exported.targets)
        if (target.job == "pd-local-router") {
            found = true;
            EXPECT_EQ(target.address, "127.0.0.5:29100");
        }
    EXPECT_TRUE(found) << exported.config;
}

TEST(PrometheusExport, WindowsAndHoldTimesComeFromTheOptions) {
    PrometheusOptions options;
    options.scrape_interval = std::chrono::seconds(1);
    options.evaluation_interval = std::chrono::seconds(1);
    options.window = std::chrono::seconds(20);
    options.hold = std::chrono::seconds(0);
    const auto exported = prometheus_export(PrometheusProfiles::plan_of("local"), options);
    EXPECT_NE(exported.config.find("scrape_interval: 1s"), std::string::npos);
    EXPECT_NE(exported.rules.find("[20s]"), std::string::npos);
    EXPECT_EQ(exported.rules.find("for:"), std::string::npos) << "a zero hold fires at once";
    // The tests follow: the fault is seen 5 s after it begins.
    EXPECT_NE(exported.tests.find("eval_time: 15s"), std::string::npos);
}

}  // namespace
}  // namespace pdctl::exporter
