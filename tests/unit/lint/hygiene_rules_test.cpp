// PD018 (keys nothing reads) and PD019 (a flag pdctl sets, given again in args or EXTRA_ARGS): the
// leftovers of a deploy_pd.sh deployment moved to pdctl.
#include "lint_test_util.hpp"

namespace pdctl::lint::testing {
namespace {

constexpr const char* kSharedEnv = "/d/config.env";

Scenario with_shared_env(const std::string& shared, const std::string& prefill_line) {
    Scenario scenario;
    scenario.replace(kYaml, "cluster: lint\n", "cluster: lint\nenv_files: [config.env]\n");
    scenario.files[kSharedEnv] = shared;
    scenario.append(kPrefillEnv, prefill_line);
    return scenario;
}

TEST(LintPD018, ASharedKeyNoProfileExpandsIsNamedWithItsLine) {
    const auto report = with_shared_env("MODEL_ROOT=/data/models\nPREFILL_NODES=174.1.60.1,174.1.60.2\n",
                                        "MODEL_PATH=${MODEL_ROOT}/K3\n")
                            .run();
    const auto found = with_id(report, "PD018");
    ASSERT_EQ(found.size(), 1u) << found.size();
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_EQ(found[0].location.file, kSharedEnv);
    EXPECT_EQ(found[0].location.line, 2);
    EXPECT_TRUE(contains(found[0].message, "config.env sets PREFILL_NODES, which no profile uses"))
        << found[0].message;
    EXPECT_EQ(problem_ids(report), (std::vector<std::string>{"PD018"})) << "MODEL_ROOT is used";
}

TEST(LintPD018, AProfileKeyNothingReadsIsNamedOncePerLine) {
    // TP_SIZE was deploy_pd.sh's input; NCCL_* and SGLANG_* are read by the stack; WHEEL is used by
    // BOOTSTRAP at run time; DIR only to build another key.
    // (BOOTSTRAP in single quotes: the server's shell expands $WHEEL, so the key must reach it.)
    auto scenario = Scenario().append(
        kPrefillEnv,
        "TP_SIZE=32\nNCCL_IB_HCA=mlx5_0\nSGLANG_LOG_LEVEL=info\n"
        "DIR=/w\nPATCH=${DIR}/p.py\nWHEEL=/w/x.whl\n"
        "BOOTSTRAP='pip install $WHEEL "
        "/w/mooncake_transfer_engine_cuda13-0.3.12.post1-cp312-cp312-manylinux_2_28_x86_64.whl'\n");
    const auto found = with_id(scenario.run(), "PD018");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].location.line, 4);
    EXPECT_TRUE(contains(found[0].message, "prefill.env sets TP_SIZE, which nothing reads"))
        << found[0].message;
    EXPECT_TRUE(contains(found[1].message, "sets PATCH")) << found[1].message;
    EXPECT_TRUE(contains(found[0].fix, "docs/migrating.md"));
}

TEST(LintPD018, AKeyMentionedInArgsOrSetInYamlEnvIsUsed) {
    auto scenario = Scenario().append(kPrefillEnv, "SERVED_NAME=kimi\n");
    scenario.replace(
        kYaml, "    args: [--enable-metrics]\n    mode: prefill\n",
        "    args: [--enable-metrics, --served-model-name, '${SERVED_NAME}']\n    env: {OTHER: 1}\n"
        "    mode: prefill\n");
    EXPECT_TRUE(with_id(scenario.run(), "PD018").empty());
}

TEST(LintPD019, AFlagInExtraArgsThatPdctlSetsNamesBothValues) {
    const auto report =
        Scenario().append(kPrefillEnv, "EXTRA_ARGS=\"--trust-remote-code --tp-size 8\"\n").run();
    const auto found = with_id(report, "PD019");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_EQ(found[0].location.file, kPrefillEnv);
    EXPECT_EQ(found[0].location.line, 4);
    EXPECT_TRUE(
        contains(found[0].message,
                 "prefill gives --tp-size 8 in EXTRA_ARGS (prefill.env:4), and pdctl sets it to 16 from "
                 "tp_size: (default: nodes × gpus_per_node); the server takes the last: 8"))
        << found[0].message;
    EXPECT_TRUE(contains(found[0].fix, "remove --tp-size from EXTRA_ARGS"));
}

TEST(LintPD019, APerRankFlagGivenOnceForTheRoleIsAnError) {
    const auto found =
        with_id(Scenario().append(kDecodeEnv, "EXTRA_ARGS=\"--node-rank=0 --port 30001\"\n").run(), "PD019");
    ASSERT_EQ(found.size(), 2u);  // in the order pdctl generates them: --port, then --node-rank
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_TRUE(contains(found[0].message, "--port 30001")) << found[0].message;
    EXPECT_EQ(found[1].severity, Severity::Error);
    EXPECT_TRUE(contains(found[1].message, "--node-rank 0 in EXTRA_ARGS")) << found[1].message;
    EXPECT_TRUE(contains(found[1].message, "on every rank, which each need their own")) << found[1].message;
}

TEST(LintPD019, YamlArgsAreNamedAsArgsAndRouterWorkersMayBeAdded) {
    auto scenario = Scenario();
    scenario.replace(kYaml, "    port: 31000\n",
                     "    port: 31000\n    args: [--prefill, 'http://10.0.0.9:30000', --host, 0.0.0.0]\n");
    const auto found = with_id(scenario.run(), "PD019");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].message, "the router") || contains(found[0].message,
                                                                     "router gives --host 0.0.0.0 "
                                                                     "in its `args:`"))
        << found[0].message;
    EXPECT_EQ(found[0].location.file, kYaml);
}

}  // namespace
}  // namespace pdctl::lint::testing
