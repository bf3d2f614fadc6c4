// Profile files and `env:` -> Role::env, bootstrap, args and model_path.

#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using testing::load;
using testing::load_error;

// One prefill role whose `profile:` / `env:` lines are given by the test (indented under the role).
std::string cluster_with(const std::string& role_lines, const std::string& top_lines = "") {
    return "cluster: a\n" + top_lines +
           "defaults: {container: {image: i}}\n"
           "nodes: [{name: n1, address: 10.0.0.1}]\n"
           "roles:\n"
           "  prefill:\n"
           "    kind: sglang\n"
           "    mode: prefill\n"
           "    nodes: [n1]\n" +
           role_lines;
}

std::vector<std::string> env_pairs(const Role& role) {
    std::vector<std::string> out;
    for (const auto& var : role.env) out.push_back(var.key + "=" + var.value);
    return out;
}

using Strings = std::vector<std::string>;

TEST(ConfigProfile, ExpandsFromConfigEnvAndEarlierKeys) {
    const Cluster cluster = load(cluster_with("    profile: prefill.env\n", "env_files: [config.env]\n"),
                                 {{"/c/config.env", "WHEELS=/data/flashkda_deploy/wheels\nIFACE=bond1\n"},
                                  {"/c/prefill.env",
                                   "export NCCL_SOCKET_IFNAME=$IFACE\n"
                                   "GLOO_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME}\n"
                                   "MC_WHEEL=\"${WHEELS}/mooncake-0.3.12.post1.whl\"\n"}});
    const Role& role = cluster.roles[0];
    // config.env's keys serve expansion only; they are not exported.
    EXPECT_EQ(env_pairs(role), (Strings{"NCCL_SOCKET_IFNAME=bond1", "GLOO_SOCKET_IFNAME=bond1",
                                        "MC_WHEEL=/data/flashkda_deploy/wheels/mooncake-0.3.12.post1.whl"}));
    EXPECT_EQ(role.profile_files, (Strings{"/c/prefill.env"}));
    EXPECT_EQ(role.env[1].where.file, "/c/prefill.env");
    EXPECT_EQ(role.env[1].where.line, 2);
}

TEST(ConfigProfile, ExportPrefixAndInlineComments) {
    const Cluster cluster = load(cluster_with("    profile: p.env\n"),
                                 {{"/c/p.env", "export A=1   # why A is 1\nB=two # note\n# C=3\n"}});
    EXPECT_EQ(env_pairs(cluster.roles[0]), (Strings{"A=1", "B=two"}));
}

TEST(ConfigProfile, MultiLineBootstrapIsTakenOutOfTheEnvironment) {
    const std::string profile =
        "WHEELS=/data/flashkda_deploy/wheels\n"
        "BOOTSTRAP=\"pip install ${WHEELS}/mooncake-0.3.12.post1.whl &&\n"
        "  python3 /tmp/patch_k3_sm120.py\"\n"
        "NCCL_IB_HCA=mlx5_0\n";
    const Cluster cluster = load(cluster_with("    profile: p.env\n"), {{"/c/p.env", profile}});
    const Role& role = cluster.roles[0];
    EXPECT_EQ(role.bootstrap,
              "pip install /data/flashkda_deploy/wheels/mooncake-0.3.12.post1.whl &&\n  python3 "
              "/tmp/patch_k3_sm120.py");
    EXPECT_EQ(env_pairs(role), (Strings{"WHEELS=/data/flashkda_deploy/wheels", "NCCL_IB_HCA=mlx5_0"}));
}

TEST(ConfigProfile, ExtraArgsAreSplitAndAppendedAfterYamlArgs) {
    const std::string profile =
        "TP=32\n"
        "EXTRA_ARGS=\"--tp-size $TP --json-model-override-args '{\\\"a\\\": 1}' --chunked-prefill-size "
        "8192\"\n";
    const Cluster cluster =
        load(cluster_with("    args: [--trust-remote-code]\n    profile: p.env\n"), {{"/c/p.env", profile}});
    EXPECT_EQ(cluster.roles[0].args,
              (Strings{"--trust-remote-code", "--tp-size", "32", "--json-model-override-args", "{\"a\": 1}",
                       "--chunked-prefill-size", "8192"}));
    EXPECT_EQ(env_pairs(cluster.roles[0]), (Strings{"TP=32"}));
}

TEST(ConfigProfile, ExtraArgsWithUnbalancedQuotes) {
    EXPECT_EQ(
        load_error(cluster_with("    profile: p.env\n"), {{"/c/p.env", "EXTRA_ARGS=\"--x 'y\"\n"}}),
        "/c/p.env:1:1: error: roles.prefill.profile[p.env].EXTRA_ARGS: unterminated single quote in the "
        "arguments (hint: EXTRA_ARGS is split into words like a shell command line)\n"
        "1 error in /c/p.env");
}

TEST(ConfigProfile, ModelPathFillsModelPathUnlessTheYamlSetsIt) {
    const std::map<std::string, std::string> files = {{"/c/p.env", "MODEL_PATH=/models/kimi-k3\n"}};
    const Cluster from_profile = load(cluster_with("    profile: p.env\n"), files);
    EXPECT_EQ(from_profile.roles[0].model_path, "/models/kimi-k3");
    EXPECT_EQ(env_pairs(from_profile.roles[0]), (Strings{"MODEL_PATH=/models/kimi-k3"})) << "stays in env";
    const Cluster from_yaml =
        load(cluster_with("    model_path: /models/other\n    profile: p.env\n"), files);
    EXPECT_EQ(from_yaml.roles[0].model_path, "/models/other");
}

TEST(ConfigProfile, SeveralProfilesInOrderThenYamlEnv) {
    const Cluster cluster =
        load(cluster_with("    profile: [common.env, prefill.env]\n"
                          "    env: {B: yaml, D: \"$NOT_EXPANDED\"}\n"),
             {{"/c/common.env", "A=1\nB=common\nC=3\n"}, {"/c/prefill.env", "C=${A}${C}\nE=5\n"}});
    const Role& role = cluster.roles[0];
    EXPECT_EQ(env_pairs(role), (Strings{"A=1", "B=yaml", "C=13", "E=5", "D=$NOT_EXPANDED"}));
    EXPECT_EQ(role.profile_files, (Strings{"/c/common.env", "/c/prefill.env"}));
    EXPECT_EQ(role.env[1].where.file, "/c/pdctl.yaml") << "B now comes from the YAML";
}

TEST(ConfigProfile, UndefinedVariableInAProfile) {
    EXPECT_EQ(
        load_error(cluster_with("    profile: kimi3_prefill.env\n"),
                   {{"/c/kimi3_prefill.env", "NCCL_IB_HCA=mlx5_0\nNCCL_IB_GID_INDEX=3\nX=${NCCL_IB_HAC}\n"}}),
        "/c/kimi3_prefill.env:3:3: error: roles.prefill.profile[kimi3_prefill.env].X: undefined variable "
        "`NCCL_IB_HAC` (hint: did you mean `NCCL_IB_HCA`?)\n"
        "1 error in /c/kimi3_prefill.env");
}

TEST(ConfigProfile, UnterminatedQuoteInAProfile) {
    EXPECT_EQ(load_error(cluster_with("    profile: p.env\n"), {{"/c/p.env", "A=1\nB='abc\nC=2\n"}}),
              "/c/p.env:2:3: error: roles.prefill.profile[p.env].B: unterminated single quote (hint: close "
              "the value "
              "with `'`)\n"
              "1 error in /c/p.env");
}

TEST(ConfigProfile, UnreadableFilesAreReportedWhereTheYamlNamesThem) {
    EXPECT_EQ(
        load_error(cluster_with("    profile: [p.env, /etc/missing.env]\n", "env_files: [gone.env]\n"),
                   {{"/c/p.env", "A=1\n"}}),
        "/c/pdctl.yaml:2:13: error: env_files: cannot read file `/c/gone.env` (hint: relative paths start at "
        "the cluster file's directory)\n"
        "/c/pdctl.yaml:10:22: error: roles.prefill.profile: cannot read file `/etc/missing.env`\n"
        "2 errors in /c/pdctl.yaml");
}

TEST(ConfigProfile, ErrorsInConfigEnv) {
    EXPECT_EQ(load_error(cluster_with("", "env_files: [config.env]\n"), {{"/c/config.env", "A=$B\n"}}),
              "/c/config.env:1:3: error: env_files[config.env].A: undefined variable `B` (hint: define it "
              "earlier in "
              "this file or in an env_files file, or write ${B:-default})\n"
              "1 error in /c/config.env");
}

TEST(ConfigProfile, ASharedProfileErrorIsReportedOnce) {
    std::string yaml = cluster_with("    profile: p.env\n");
    yaml += "  decode: {kind: sglang, mode: decode, nodes: [n1], profile: p.env}\n";
    EXPECT_EQ(load_error(yaml, {{"/c/p.env", "A=\"x\n"}}),
              "/c/p.env:1:3: error: roles.prefill.profile[p.env].A: unterminated double quote (hint: close "
              "the value "
              "with `\"`)\n"
              "1 error in /c/p.env");
}

TEST(ConfigProfile, NewlinesOnlyInBootstrap) {
    EXPECT_EQ(
        load_error(cluster_with("    profile: p.env\n    env: {Y: \"a\\nb\"}\n"),
                   {{"/c/p.env", "X=\"a\nb\"\n"}}),
        "/c/pdctl.yaml:10:14: error: roles.prefill.env.Y: value contains a newline (hint: only BOOTSTRAP may "
        "span lines)\n"
        "/c/p.env:1:1: error: roles.prefill.profile[p.env].X: value contains a newline (hint: only BOOTSTRAP "
        "may span lines)\n"
        "2 errors in /c/pdctl.yaml, /c/p.env");
}

TEST(ConfigProfile, YamlEnvKeysAreChecked) {
    EXPECT_EQ(
        load_error(cluster_with("    env: {1X: a, EXTRA_ARGS: --x, OK: [1]}\n")),
        "/c/pdctl.yaml:9:11: error: roles.prefill.env.1X: invalid environment variable name (hint: letters, "
        "digits and `_`, not starting with a digit)\n"
        "/c/pdctl.yaml:9:18: error: roles.prefill.env.EXTRA_ARGS: is read from profile files only (hint: use "
        "the role's `args:` list)\n"
        "/c/pdctl.yaml:9:39: error: roles.prefill.env.OK: expected a string, got a list\n"
        "3 errors in /c/pdctl.yaml");
}

TEST(ConfigProfile, SecretsAreMarked) {
    const Cluster cluster = load(
        cluster_with("    profile: p.env\n    env: {HF_TOKEN: hf_y, MY_KEY: k}\n", "secrets: [MY_KEY]\n"),
        {{"/c/p.env", "DB_PASSWORD=pw\nMY_KEY=k2\nAUTH=\"Bearer $DB_PASSWORD\"\nPLAIN=1\n"}});
    for (const auto& var : cluster.roles[0].env) EXPECT_EQ(var.secret, var.key != "PLAIN") << var.key;
}

// The secret's text must never reach what(), however its lines are broken.
TEST(ConfigProfile, SecretValueNeverAppearsInWhat) {
    const std::string profile =
        "HF_TOKEN=hf_SeCrEt_1 tail\n"
        "MY_KEY=\"hf_SeCrEt_2\n"
        "more\"\n"
        "DB_PASSWORD=hf_SeCrEt_3${hf_SeCrEt_4}\n"
        "EXTRA_ARGS=\"--api-key $DB_PASSWORD\"\n"
        "X_TOKEN=${hf_SeCrEt_5:x}\n";
    const std::string error = load_error(
        cluster_with(
            "    profile: p.env\n    env: {API_TOKEN: \"hf_SeCrEt_6\\nx\", HF_TOKEN: [hf_SeCrEt_7]}\n",
            "secrets: [MY_KEY]\n"),
        {{"/c/p.env", profile}});
    EXPECT_EQ(error.find("SeCrEt"), std::string::npos) << error;
    EXPECT_EQ(
        error,
        "/c/pdctl.yaml:11:22: error: roles.prefill.env.API_TOKEN: value contains a newline (hint: only "
        "BOOTSTRAP may span lines)\n"
        "/c/pdctl.yaml:11:50: error: roles.prefill.env.HF_TOKEN: expected a string, got a list\n"
        "/c/p.env:1:21: error: roles.prefill.profile[p.env].HF_TOKEN: unquoted value contains whitespace "
        "(hint: "
        "quote the value: HF_TOKEN=\"...\"; bash would run the rest as a command)\n"
        "/c/p.env:2:1: error: roles.prefill.profile[p.env].MY_KEY: value contains a newline (hint: only "
        "BOOTSTRAP may span lines)\n"
        "/c/p.env:4:24: error: roles.prefill.profile[p.env].DB_PASSWORD: undefined variable, not named "
        "because it is part of a secret value (hint: single-quote the value if `$` is meant literally)\n"
        "/c/p.env:5:1: error: roles.prefill.profile[p.env].EXTRA_ARGS: expands a secret into the command "
        "line "
        "(hint: single-quote it so the server's shell expands the variable from its environment)\n"
        "/c/p.env:6:9: error: roles.prefill.profile[p.env].X_TOKEN: unsupported expansion (hint: supported "
        "forms: $VAR, ${VAR}, ${VAR:-default})\n"
        "7 errors in /c/pdctl.yaml, /c/p.env");
}

}  // namespace
}  // namespace pdctl::config
