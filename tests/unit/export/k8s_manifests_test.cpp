// `pdctl export k8s`: the golden manifests of the production profile, and the builder's promises —
// every rank's exact plan argv from one template, no secret value anywhere, an image or a clear error.
// Regenerate the golden files after an intended change with:
//   PDCTL_UPDATE_GOLDEN=1 build/tests/pdctl_unit_tests --gtest_filter='K8sExport*'
#include "pdctl/export/k8s_manifests.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/runtime/process_runtime.hpp"
#include "pdctl/util/exit_code.hpp"
#include "unit/support/build_paths.hpp"
#include "unit/support/golden.hpp"

namespace pdctl::exporter {
namespace {

namespace fs = std::filesystem;

void expect_k8s_golden(const fs::path& golden, const std::string& actual) {
    pdctl::testing::expect_golden(golden, actual, "manifests");
}

config::Cluster kimi3_cluster() {
    fs::current_path(
        pdctl::testing::source_dir());  // relative paths keep the golden header checkout-independent
    config::DiskFileSource disk;
    return config::load_cluster("profiles/kimi3-pro6000-pd/pdctl.yaml", disk);
}

std::string export_yaml(const config::Cluster& cluster, K8sFormat format, K8sOptions options = {}) {
    options.format = format;
    return k8s_manifests(cluster, plan::build_plan(cluster), options).yaml;
}

std::vector<YAML::Node> documents(const std::string& yaml) {
    return YAML::LoadAll(yaml);
}

const YAML::Node* find_kind(const std::vector<YAML::Node>& docs, const std::string& kind,
                            const std::string& name) {
    for (const auto& doc : docs)
        if (doc["kind"].as<std::string>() == kind && doc["metadata"]["name"].as<std::string>() == name)
            return &doc;
    return nullptr;
}

std::vector<std::string> strings(const YAML::Node& list) {
    std::vector<std::string> out;
    for (const auto& item : list) out.push_back(item.as<std::string>());
    return out;
}

// What the kubelet does to args: $(VAR) replaced from `vars`, $$ → $ (Kubernetes expansion rules).
std::string expand(const std::string& text, const std::map<std::string, std::string>& vars) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
            out += '$';
            ++i;
        } else if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '(') {
            const auto close = text.find(')', i);
            const auto var = vars.find(text.substr(i + 2, close - i - 2));
            if (close == std::string::npos || var == vars.end()) {
                out += text[i];
                continue;
            }
            out += var->second;
            i = close;
        } else {
            out += text[i];
        }
    }
    return out;
}

TEST(K8sExportGolden, Kimi3ProductionProfileMatchesTheGoldenFiles) {
    const auto cluster = kimi3_cluster();
    const fs::path golden = fs::path(pdctl::testing::source_dir()) / "tests" / "golden";
    expect_k8s_golden(golden / "k8s.lws.yaml", export_yaml(cluster, K8sFormat::Lws));
    expect_k8s_golden(golden / "k8s.rbg.yaml", export_yaml(cluster, K8sFormat::Rbg));
}

// The LWS worker template, expanded the way the kubelet expands it in the pod of rank K, is exactly
// the argv pdctl's plan runs on rank K: one template, every rank, nothing re-derived.
TEST(K8sExportTemplate, EachRankExpandsToItsPlanArgv) {
    const auto cluster = kimi3_cluster();
    const auto plan = plan::build_plan(cluster);
    const auto docs = documents(export_yaml(cluster, K8sFormat::Lws));
    for (const std::string group : {"prefill", "decode"}) {
        const auto* lws = find_kind(docs, "LeaderWorkerSet", "kimi3-pro6000-" + group);
        ASSERT_NE(lws, nullptr) << group;
        const auto container =
            (*lws)["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0];
        const auto args = strings(container["args"]);
        const auto& stage = *plan.find_stage(group);
        ASSERT_EQ((*lws)["spec"]["leaderWorkerTemplate"]["size"].as<std::size_t>(), stage.units.size());
        for (const auto& unit : stage.units) {
            const std::map<std::string, std::string> vars = {
                {"LWS_WORKER_INDEX", std::to_string(unit.rank)},
                {"LWS_LEADER_ADDRESS", stage.units.front().compute_address},
                {"PDCTL_POD_IP", unit.compute_address}};
            std::vector<std::string> expanded;
            for (const auto& arg : args) expanded.push_back(expand(arg, vars));
            EXPECT_EQ(expanded, runtime::launch_argv(unit.program)) << group << " rank " << unit.rank;
        }
    }
}

// The router is given each group's leader by its Kubernetes name, never a pdctl address.
TEST(K8sExportTemplate, RouterReachesTheGroupLeadersByName) {
    const auto cluster = kimi3_cluster();
    const auto lws = documents(export_yaml(cluster, K8sFormat::Lws));
    const auto* router = find_kind(lws, "Deployment", "kimi3-pro6000-router");
    ASSERT_NE(router, nullptr);
    const auto args = strings((*router)["spec"]["template"]["spec"]["containers"][0]["args"]);
    const auto has = [&](const std::string& word) {
        return std::find(args.begin(), args.end(), word) != args.end();
    };
    EXPECT_TRUE(has("http://kimi3-pro6000-prefill-0.kimi3-pro6000-prefill:30000"));
    EXPECT_TRUE(has("http://kimi3-pro6000-decode-0.kimi3-pro6000-decode:30000"));
    const auto rbg = documents(export_yaml(cluster, K8sFormat::Rbg));
    const auto roles = rbg.front()["spec"]["roles"];
    const auto router_args =
        strings(roles[3]["standalonePattern"]["template"]["spec"]["containers"][0]["args"]);
    EXPECT_NE(std::find(router_args.begin(), router_args.end(), "http://s-kimi3-pro6000-prefill:30000"),
              router_args.end());
    EXPECT_EQ(strings(roles[3]["dependencies"]), (std::vector<std::string>{"prefill", "decode"}));
    EXPECT_EQ(strings(roles[2]["dependencies"]), (std::vector<std::string>{"prefill"}));
    EXPECT_FALSE(roles[0]["dependencies"]);
}

// A rank's startup window covers the gate's deadline: the 25-minute weight load of the profile.
TEST(K8sExportProbes, StartupProbeCoversTheGateDeadline) {
    const auto docs = documents(export_yaml(kimi3_cluster(), K8sFormat::Lws));
    const auto* prefill = find_kind(docs, "LeaderWorkerSet", "kimi3-pro6000-prefill");
    ASSERT_NE(prefill, nullptr);
    const auto startup =
        (*prefill)["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["startupProbe"];
    EXPECT_EQ(startup["periodSeconds"].as<int>(), 5);       // health.interval: 5s
    EXPECT_EQ(startup["failureThreshold"].as<int>(), 300);  // 300 × 5 s = 25m, health.deadline
    EXPECT_EQ(startup["httpGet"]["path"].as<std::string>(), "/health");
    EXPECT_EQ(startup["httpGet"]["port"].as<int>(), 30000);
}

// A cluster with secrets of every kind pdctl knows: a *TOKEN* key, a key listed under `secrets:`, a
// value built from a secret, and an --api-key argument.
constexpr const char* kSecretValues[] = {"hf_s3cr3t_t0ken_value", "listed-secret-value-42",
                                         "sk-router-api-key-0042"};

config::Cluster secret_cluster() {
    const std::string yaml = R"(cluster: sec
secrets: [MY_KEY]
defaults:
  container: {image: lmsysorg/sglang:v0.5.18}
  gpus_per_node: 8
nodes:
  - {name: n1, address: 10.0.0.1}
  - {name: n2, address: 10.0.0.2}
roles:
  prefill:
    kind: sglang
    mode: prefill
    nodes: [n1]
    profile: p.env
  decode:
    kind: sglang
    mode: decode
    nodes: [n2]
    profile: p.env
  router:
    kind: router
    impl: sglang-router
    nodes: [n2]
    port: 31000
    args: [--api-key, sk-router-api-key-0042]
)";
    const std::string profile =
        "HF_TOKEN=hf_s3cr3t_t0ken_value\nMY_KEY=listed-secret-value-42\nAUTH=\"Bearer $HF_TOKEN\"\n"
        "LITERAL='$(HOME) and $$'\n";
    return config::load_cluster("/c/pdctl.yaml",
                                config::MemoryFileSource({{"/c/pdctl.yaml", yaml}, {"/c/p.env", profile}}));
}

TEST(K8sExportSecrets, NoSecretValueAnywhereOnlySecretReferences) {
    const auto cluster = secret_cluster();
    for (const auto format : {K8sFormat::Lws, K8sFormat::Rbg}) {
        const auto yaml = export_yaml(cluster, format);
        for (const auto* secret : kSecretValues) EXPECT_EQ(yaml.find(secret), std::string::npos) << secret;
        EXPECT_EQ(yaml.find("Bearer"), std::string::npos);  // AUTH is built from a secret: a secret too
        EXPECT_NE(yaml.find("# Secret sec-secrets (create it first) must hold the keys: AUTH, HF_TOKEN, "
                            "MY_KEY, api-key."),
                  std::string::npos);
    }
    const auto docs = documents(export_yaml(cluster, K8sFormat::Lws));
    const auto* router = find_kind(docs, "Deployment", "sec-router");
    ASSERT_NE(router, nullptr);
    const auto container = (*router)["spec"]["template"]["spec"]["containers"][0];
    const auto args = strings(container["args"]);
    EXPECT_NE(std::find(args.begin(), args.end(), "$(PDCTL_ARG_API_KEY)"), args.end());
    bool api_key_ref = false;
    for (const auto& env : container["env"])
        if (env["name"].as<std::string>() == "PDCTL_ARG_API_KEY") {
            EXPECT_EQ(env["valueFrom"]["secretKeyRef"]["name"].as<std::string>(), "sec-secrets");
            EXPECT_EQ(env["valueFrom"]["secretKeyRef"]["key"].as<std::string>(), "api-key");
            EXPECT_FALSE(env["value"]);
            api_key_ref = true;
        }
    EXPECT_TRUE(api_key_ref);
    const auto* prefill = find_kind(docs, "LeaderWorkerSet", "sec-prefill");
    ASSERT_NE(prefill, nullptr);
    for (const auto& env :
         (*prefill)["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["env"]) {
        const auto name = env["name"].as<std::string>();
        if (name == "HF_TOKEN" || name == "MY_KEY" || name == "AUTH") {
            EXPECT_EQ(env["valueFrom"]["secretKeyRef"]["key"].as<std::string>(), name);
            EXPECT_FALSE(env["value"]) << name;
        }
        // Kubernetes expands $(VAR) in env values too: a literal one is escaped, and reads back as itself.
        if (name == "LITERAL") {
            EXPECT_EQ(env["value"].as<std::string>(), "$$(HOME) and $$$");
        }
    }
}

TEST(K8sExportSecrets, SecretNameCanBeChosen) {
    K8sOptions options;
    options.secret_name = "llm-keys";
    const auto yaml = export_yaml(secret_cluster(), K8sFormat::Rbg, options);
    EXPECT_NE(yaml.find("name: llm-keys"), std::string::npos);
    EXPECT_EQ(yaml.find("sec-secrets"), std::string::npos);
}

// profiles/local runs every role as a process: there is no image to put in a pod.
config::Cluster local_cluster() {
    fs::current_path(pdctl::testing::source_dir());
    config::DiskFileSource disk;
    return config::load_cluster("profiles/local/pdctl.yaml", disk);
}

TEST(K8sExportImage, ProcessRolesWithoutAnImageAreNamedWithTheirLine) {
    const auto cluster = local_cluster();
    try {
        export_yaml(cluster, K8sFormat::Lws);
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& error) {
        const std::string text = error.what();
        for (const std::string role : {"mooncake-master", "prefill", "decode", "router"})
            EXPECT_NE(text.find("roles." + role + ": runs as a process"), std::string::npos) << text;
        EXPECT_NE(text.find("profiles/local/pdctl.yaml:"), std::string::npos) << text;
        EXPECT_NE(text.find("--image"), std::string::npos) << text;
    }
}

TEST(K8sExportImage, ImageFlagFillsProcessRolesAndRoleImagesWin) {
    K8sOptions options;
    options.image = "registry.example/pdsim:1";
    options.role_images["router"] = "registry.example/router:2";
    const auto docs = documents(export_yaml(local_cluster(), K8sFormat::Lws, options));
    const auto* prefill = find_kind(docs, "LeaderWorkerSet", "local-prefill");
    ASSERT_NE(prefill, nullptr);
    const auto container =
        (*prefill)["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0];
    EXPECT_EQ(container["image"].as<std::string>(), "registry.example/pdsim:1");
    // A process's argv is the whole command: no image entrypoint in front of it.
    EXPECT_TRUE(container["command"]);
    EXPECT_FALSE(container["args"]);
    const auto* router = find_kind(docs, "Deployment", "local-router");
    ASSERT_NE(router, nullptr);
    EXPECT_EQ((*router)["spec"]["template"]["spec"]["containers"][0]["image"].as<std::string>(),
              "registry.example/router:2");
}

TEST(K8sExportImage, AnImageForAnUnknownRoleIsAUsageError) {
    K8sOptions options;
    options.role_images["prefil"] = "x:1";
    try {
        export_yaml(kimi3_cluster(), K8sFormat::Lws, options);
        FAIL() << "expected a Failure";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUsage);
        EXPECT_NE(std::string(failure.what()).find("no role prefil"), std::string::npos);
    }
}

// Addresses left in a role's own arguments mean nothing in a pod: the export says so.
TEST(K8sExportNotes, LeftoverNodeAddressesAreNamed) {
    K8sOptions options;
    options.image = "x:1";
    options.format = K8sFormat::Lws;
    const auto cluster = local_cluster();
    const auto manifests = k8s_manifests(cluster, plan::build_plan(cluster), options);
    bool named = false;
    for (const auto& note : manifests.notes)
        named = named || note.find("mooncake-master: argument `127.0.0.1` names 127.0.0.1 (node n1)") == 0;
    EXPECT_TRUE(named);
    EXPECT_NE(manifests.yaml.find("# note: mooncake-master: argument `127.0.0.1`"), std::string::npos);
}

TEST(K8sExportFormat, ParsesLwsAndRbgOnly) {
    EXPECT_EQ(parse_k8s_format("lws"), K8sFormat::Lws);
    EXPECT_EQ(parse_k8s_format("rbg"), K8sFormat::Rbg);
    EXPECT_FALSE(parse_k8s_format("LWS"));
    EXPECT_FALSE(parse_k8s_format("helm"));
}

}  // namespace
}  // namespace pdctl::exporter
