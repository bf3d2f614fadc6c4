// `pdctl export prometheus`: the golden files of the shipped profiles (the production one as shipped,
// behind SMG in two prefill and two decode groups, and without --enable-metrics; the local one behind
// MiniLB), and the exporter's promises: every rank of a group that serves metrics a labelled target,
// the router's metrics listener where it has one, blackbox probes of every rank and of the router,
// one note naming what is not scraped and why. The CI's promtool tests (tests/prometheus/) check the
// same files with promtool, amtool and the blackbox exporter and run their rule tests. Regenerate
// after an intended change with:
//   PDCTL_UPDATE_GOLDEN=1 build/tests/pdctl_unit_tests --gtest_filter='PrometheusExport*'
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/export/prometheus.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/build_paths.hpp"
#include "unit/support/golden.hpp"

namespace pdctl::exporter {
namespace {

namespace fs = std::filesystem;

struct PrometheusProfiles {
    // profiles/NAME with `edit` applied to its pdctl.yaml (each replacement must match).
    static plan::Plan plan_of(const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& edits = {}) {
        fs::current_path(
            pdctl::testing::source_dir());  // relative paths keep the golden header checkout-independent
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

    // The production profile with SGLang's metrics off, as the old script ran it.
    static plan::Plan kimi3_without_metrics() {
        return plan_of("kimi3-pro6000-pd", {{kPrefillMetrics, ""}, {kDecodeMetrics, ""}});
    }
    static constexpr const char* kPrefillMetrics =
        "    # Not a flag of deploy_pd.sh: without it SGLang's /metrics answers 404, and nothing can see KV\n"
        "    # transfers failing or requests queueing (docs/migrating.md, \"Metrics\").\n"
        "    args: [--enable-metrics]\n";
    static constexpr const char* kDecodeMetrics = "    args: [--enable-metrics]   # as prefill's\n";

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
    const fs::path golden = fs::path(pdctl::testing::source_dir()) / "tests" / "golden" / "prometheus";
    testing::expect_golden(golden / (stem + ".prometheus.yml"), exported.config, "scrape configuration");
    testing::expect_golden(golden / (stem + ".alerts.yml"), exported.rules, "alert rules");
    testing::expect_golden(golden / (stem + ".alerts.test.yml"), exported.tests, "rule tests");
    testing::expect_golden(golden / (stem + ".blackbox.yml"), exported.blackbox, "blackbox modules");
    testing::expect_golden(golden / (stem + ".alertmanager.yml"), exported.alertmanager, "Alertmanager");
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

TEST(PrometheusExport, TheProductionProfileBehindSmgMatchesTheGoldenFiles) {
    const auto plan = PrometheusProfiles::kimi3_behind_smg();
    expect_files("kimi3-pro6000-pd.smg", prometheus_export(plan, {}));
}

TEST(PrometheusExport, TheProductionProfileWithoutMetricsMatchesTheGoldenFiles) {
    expect_files("kimi3-pro6000-pd.metrics-off",
                 prometheus_export(PrometheusProfiles::kimi3_without_metrics(), {}));
}

TEST(PrometheusExport, TheLocalProfileMatchesTheGoldenFiles) {
    expect_files("local", prometheus_export(PrometheusProfiles::plan_of("local"), {}));
}

TEST(PrometheusExport, EveryRankOfEveryGroupTheRouterAndTheMasterAreLabelledTargets) {
    const auto plan = PrometheusProfiles::kimi3_behind_smg();
    const auto exported = prometheus_export(plan, {});
    std::map<std::pair<std::string, int>, PrometheusTarget> by_rank;
    for (const auto& target : exported.targets) by_rank[{target.group, target.rank}] = target;
    ASSERT_EQ(by_rank.size(), 10u) << "master, two ranks of two prefill and two decode groups, router";
    for (const auto& stage : plan.stages)
        for (const auto& unit : stage.units) {
            if (stage.kind != config::RoleKind::Sglang && unit.rank > 0) continue;
            ASSERT_TRUE(by_rank.count({stage.role, unit.rank})) << stage.role << " rank " << unit.rank;
            const auto& target = by_rank.at({stage.role, unit.rank});
            EXPECT_EQ(target.node, unit.node) << stage.role;
            EXPECT_EQ(target.role, stage.config_role);
        }
    EXPECT_EQ(by_rank.at({"prefill-2", 0}).job, "pd-kimi3-pro6000-sglang");
    EXPECT_EQ(by_rank.at({"prefill-2", 0}).node, "n3");
    EXPECT_EQ(by_rank.at({"prefill-2", 1}).address, "174.1.60.4:30000") << "a rank >= 1 on its own node";
    EXPECT_EQ(by_rank.at({"router", 0}).address, "174.1.60.5:29000") << "SMG's default metrics port";
    EXPECT_EQ(by_rank.at({"mooncake-master", 0}).address, "174.1.60.1:9003");

    // Every target of the config file carries its labels, and the rules name this cluster.
    const auto config = YAML::Load(exported.config);
    std::size_t listed = 0;
    for (const auto& job : config["scrape_configs"])
        for (const auto& entry : job["static_configs"]) {
            ++listed;
            for (const char* label : {"cluster", "role", "group", "node", "rank"})
                EXPECT_TRUE(entry["labels"][label].IsDefined()) << label << " in " << job["job_name"];
        }
    EXPECT_EQ(listed, exported.targets.size() + exported.probes.size());
    const auto rules = YAML::Load(exported.rules);
    std::vector<std::string> names;
    for (const auto& rule : rules["groups"][0]["rules"]) {
        names.push_back(rule["alert"].as<std::string>());
        EXPECT_NE(rule["expr"].as<std::string>().find("cluster=\"kimi3-pro6000\""), std::string::npos)
            << rule["alert"];
    }
    EXPECT_EQ(names, (std::vector<std::string>{"PDRankDown", "PDRouterDown", "PDRouterNotServing",
                                               "PDTargetDown", "PDKVTransferFailures", "PDBootstrapFailures",
                                               "PDQueueGrowing", "PDRouterNoHealthyPrefill",
                                               "PDRouterNoHealthyDecode", "PDBlackboxDown"}));
    // SMG's health gauge is per worker URL; the rule lists the prefill groups' URLs, escaped.
    const auto prefill_rule = rules["groups"][0]["rules"][7]["expr"].as<std::string>();
    EXPECT_NE(prefill_rule.find("smg_worker_health"), std::string::npos) << prefill_rule;
    EXPECT_NE(prefill_rule.find(R"(http://174\\.1\\.60\\.3:30000)"), std::string::npos) << prefill_rule;
}

TEST(PrometheusExport, EveryRanksPortAndTheRouterAreProbedThroughTheBlackboxExporter) {
    PrometheusOptions options;
    options.blackbox_address = "10.9.9.9:9115";
    options.alertmanager_address = "10.9.9.9:9093";
    options.webhook_url = "http://10.9.9.9:5001/hook";
    const auto exported = prometheus_export(PrometheusProfiles::kimi3_without_metrics(), options);
    std::map<std::string, std::vector<std::string>> by_job;
    for (const auto& probe : exported.probes) by_job[probe.job].push_back(probe.target);
    EXPECT_EQ(by_job["pd-kimi3-pro6000-probe-ranks"],
              (std::vector<std::string>{"174.1.60.1:30000", "174.1.60.2:30000", "174.1.60.3:30000",
                                        "174.1.60.4:30000", "174.1.60.5:30000", "174.1.60.6:30000",
                                        "174.1.60.7:30000", "174.1.60.8:30000"}))
        << "ranks >= 1 too";
    EXPECT_EQ(by_job["pd-kimi3-pro6000-probe-router-health"],
              (std::vector<std::string>{"http://174.1.60.5:31000/health"}));
    EXPECT_EQ(by_job["pd-kimi3-pro6000-probe-router-generate"],
              (std::vector<std::string>{"http://174.1.60.5:31000/generate"}));

    // The standard relabelling: the target becomes ?target= and the instance; the exporter the address.
    const auto config = YAML::Load(exported.config);
    bool found = false;
    for (const auto& job : config["scrape_configs"]) {
        if (job["job_name"].as<std::string>() != "pd-kimi3-pro6000-probe-router-generate") continue;
        found = true;
        EXPECT_EQ(job["metrics_path"].as<std::string>(), "/probe");
        EXPECT_EQ(job["params"]["module"][0].as<std::string>(), "pd_router_generate");
        EXPECT_EQ(job["relabel_configs"][0]["target_label"].as<std::string>(), "__param_target");
        EXPECT_EQ(job["relabel_configs"][1]["target_label"].as<std::string>(), "instance");
        EXPECT_EQ(job["relabel_configs"][2]["replacement"].as<std::string>(), "10.9.9.9:9115");
    }
    EXPECT_TRUE(found) << exported.config;
    EXPECT_EQ(config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"][0].as<std::string>(),
              "10.9.9.9:9093");

    const auto blackbox = YAML::Load(exported.blackbox);
    EXPECT_EQ(blackbox["modules"]["pd_tcp_connect"]["prober"].as<std::string>(), "tcp");
    EXPECT_EQ(blackbox["modules"]["pd_router_generate"]["http"]["method"].as<std::string>(), "POST");
    EXPECT_EQ(blackbox["modules"]["pd_router_generate"]["http"]["body"].as<std::string>(),
              R"({"text":"ping","sampling_params":{"max_new_tokens":1}})");
    const auto alertmanager = YAML::Load(exported.alertmanager);
    EXPECT_EQ(alertmanager["receivers"][0]["webhook_configs"][0]["url"].as<std::string>(),
              "http://10.9.9.9:5001/hook");
    EXPECT_EQ(alertmanager["route"]["receiver"].as<std::string>(),
              alertmanager["receivers"][0]["name"].as<std::string>());
}

TEST(PrometheusExport, AGroupWithoutMetricsIsProbedNeverScraped) {
    // A scrape of SGLang without --enable-metrics answers 404 as long as the group runs: Prometheus would
    // record it down, and PDTargetDown would fire on a healthy deployment.
    const auto exported = prometheus_export(PrometheusProfiles::kimi3_without_metrics(), {});
    for (const auto& target : exported.targets)
        EXPECT_EQ(target.job, "pd-kimi3-pro6000-mooncake-master") << target.address;
    EXPECT_EQ(exported.rules.find("sglang:"), std::string::npos) << "no rule reads what is not scraped";
    EXPECT_NE(exported.rules.find("alert: PDRankDown"), std::string::npos);
    EXPECT_NE(exported.rules.find("alert: PDRouterNoHealthyDecode"), std::string::npos) << "from the probes";
    ASSERT_FALSE(exported.notes.empty());
    EXPECT_EQ(
        exported.notes.front(),
        "not scraped: prefill (SGLang without --enable-metrics: /metrics answers 404), decode (SGLang "
        "without --enable-metrics: /metrics answers 404), router (MiniLB has no /metrics); the blackbox "
        "probes watch them (PDRankDown, PDRouterDown, PDRouterNotServing); the KV transfer, bootstrap "
        "and queue alerts need --enable-metrics in those groups' args");
}

TEST(PrometheusExport, NotesNameWhatCannotBeScrapedAsConfigured) {
    // The production profile runs MiniLB; its SGLang groups export metrics.
    const auto exported = prometheus_export(PrometheusProfiles::plan_of("kimi3-pro6000-pd"), {});
    const auto notes = joined(exported.notes);
    EXPECT_NE(notes.find("not scraped: router (MiniLB has no /metrics)"), std::string::npos) << notes;
    EXPECT_EQ(notes.find("SGLang without --enable-metrics"), std::string::npos) << notes;
    EXPECT_NE(exported.config.find("# note: not scraped: router"), std::string::npos)
        << "the notes head the file";
    for (const auto& target : exported.targets) EXPECT_NE(target.job, "pd-kimi3-pro6000-router");

    // One group without it: named, and only it.
    const auto one = prometheus_export(
        PrometheusProfiles::plan_of("kimi3-pro6000-pd", {{PrometheusProfiles::kDecodeMetrics, ""}}), {});
    EXPECT_NE(joined(one.notes).find("not scraped: decode (SGLang without --enable-metrics: /metrics answers "
                                     "404), router (MiniLB has no /metrics)"),
              std::string::npos)
        << joined(one.notes);

    const auto rust = prometheus_export(
        PrometheusProfiles::plan_of("kimi3-pro6000-pd", {{"impl: minilb", "impl: sglang-router"}}), {});
    const auto rust_notes = joined(rust.notes);
    EXPECT_NE(rust_notes.find("binds its metrics to 127.0.0.1 unless --prometheus-host"), std::string::npos)
        << rust_notes;
    EXPECT_EQ(rust_notes.find("not scraped"), std::string::npos) << rust_notes;
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
