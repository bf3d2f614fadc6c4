// load_cluster(): the YAML structure, defaults, and the validation messages, pinned in full.

#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using testing::kMinimalCluster;
using testing::load;
using testing::load_error;

TEST(ConfigLoad, LoadsTheMinimalCluster) {
    const Cluster cluster = load(kMinimalCluster);
    EXPECT_EQ(cluster.name, "kimi3");
    EXPECT_EQ(cluster.config_path, "/c/pdctl.yaml");
    EXPECT_EQ(cluster.executor, ExecutorKind::Ssh);
    EXPECT_EQ(cluster.state_dir, "/var/lib/pdctl");
    ASSERT_EQ(cluster.nodes.size(), 2u);
    EXPECT_EQ(cluster.nodes[1].name, "n2");
    EXPECT_EQ(cluster.nodes[1].address, "10.0.0.2");
    EXPECT_EQ(cluster.nodes[1].ssh.user, "root");
    EXPECT_EQ(cluster.nodes[1].ssh.port, 22);
    EXPECT_FALSE(cluster.nodes[1].ssh.user_given) << "the built-in default gives way to ~/.ssh/config";
    EXPECT_FALSE(cluster.nodes[1].ssh.port_given);
    EXPECT_EQ(cluster.nodes[1].where.line, 6);
    ASSERT_EQ(cluster.roles.size(), 4u);
    const std::vector<std::string> names = {cluster.roles[0].name, cluster.roles[1].name,
                                            cluster.roles[2].name, cluster.roles[3].name};
    EXPECT_EQ(names, (std::vector<std::string>{"mooncake-master", "prefill", "decode", "router"}))
        << "file order";
    const Role& prefill = *cluster.find_role("prefill");
    EXPECT_EQ(prefill.kind, RoleKind::Sglang);
    EXPECT_EQ(prefill.mode, SglangMode::Prefill);
    EXPECT_EQ(prefill.nodes, (std::vector<std::string>{"n1"}));
    EXPECT_EQ(prefill.runtime, RuntimeKind::Docker);
    EXPECT_EQ(prefill.container.cli, "docker");
    EXPECT_EQ(prefill.container.image, "lmsysorg/sglang:kimi-k3");
    EXPECT_EQ(prefill.transfer_backend, "mooncake");
    EXPECT_EQ(prefill.stop_grace_seconds, 30);
    EXPECT_EQ(prefill.where.line, 11);
    EXPECT_EQ(cluster.find_role("mooncake-master")->mode, std::nullopt);
}

TEST(ConfigLoad, ReadsEveryKey) {
    const Cluster cluster = load(R"(cluster: kimi3-pro6000
executor: local
state_dir: /tmp/pdctl
secrets: [MY_API_KEY]
defaults:
  ssh: {user: ops, port: 2222, identity: ~/.ssh/id_ed25519}
  runtime: process
  container: {cli: podman, image: img:1, options: [--network, host]}
  gpus_per_node: 8
  stop_grace_seconds: 45
nodes:
  - name: n1
    address: 174.1.60.1
  - name: n2
    address: 174.1.60.2
    ssh: {port: 22}
roles:
  prefill:
    kind: sglang
    mode: prefill
    nodes: [n2, n1]
    env: {MY_API_KEY: k, NCCL_IB_HCA: mlx5_0}
    args: [--trust-remote-code, 1]
    program: [pdsim, sglang.launch_server]
    host: 0.0.0.0
    port: 30000
    model_path: /models/k3
    tp_size: 16
    ep_size: 16
    gpus_per_node: 4
    bootstrap_port: 8998
    dist_init_port: 5000
    transfer_backend: nixl
    health: {path: /health, port: 30000, expect_status: 204, deadline: 25m, interval: 500ms}
    depends_on: []
    runtime: docker
    container: {image: img:2}
    stop_grace_seconds: 60
  mc:
    kind: mooncake-master
    nodes: [n1]
    metrics_port: 9003
  r:
    kind: router
    nodes: [n1]
    mini_lb: true
    prefill: [prefill]
    decode: [d]
  d: {kind: sglang, mode: decode, nodes: [n2]}
  g:
    kind: generic
    nodes: [n1]
    command: [python3, -m, http.server]
    health: {path: /, port: 8000}
    depends_on: [mc]
)");
    EXPECT_EQ(cluster.name, "kimi3-pro6000");
    EXPECT_EQ(cluster.executor, ExecutorKind::Local);
    EXPECT_EQ(cluster.state_dir, "/tmp/pdctl");
    EXPECT_EQ(cluster.nodes[0].ssh.user, "ops");
    EXPECT_EQ(cluster.nodes[0].ssh.port, 2222);
    EXPECT_EQ(cluster.nodes[0].ssh.identity, "~/.ssh/id_ed25519") << "~ is kept";
    EXPECT_EQ(cluster.nodes[1].ssh.user, "ops") << "per-field override";
    EXPECT_EQ(cluster.nodes[1].ssh.port, 22);
    EXPECT_TRUE(cluster.nodes[1].ssh.user_given && cluster.nodes[1].ssh.port_given)
        << "written in the file, so it wins over ~/.ssh/config even where it equals the default";

    const Role& p = *cluster.find_role("prefill");
    EXPECT_EQ(p.nodes, (std::vector<std::string>{"n2", "n1"}));
    ASSERT_EQ(p.env.size(), 2u);
    EXPECT_EQ(p.env[0].key, "MY_API_KEY");
    EXPECT_TRUE(p.env[0].secret) << "listed in secrets:";
    EXPECT_FALSE(p.env[1].secret);
    EXPECT_EQ(p.env[1].where.line, 22);
    EXPECT_EQ(p.args, (std::vector<std::string>{"--trust-remote-code", "1"}));
    EXPECT_EQ(p.program, (std::vector<std::string>{"pdsim", "sglang.launch_server"}));
    EXPECT_EQ(p.host, "0.0.0.0");
    EXPECT_EQ(p.port, 30000);
    EXPECT_EQ(p.model_path, "/models/k3");
    EXPECT_EQ(p.tp_size, 16);
    EXPECT_EQ(p.ep_size, 16);
    EXPECT_EQ(p.gpus_per_node, 4);
    EXPECT_EQ(p.bootstrap_port, 8998);
    EXPECT_EQ(p.dist_init_port, 5000);
    EXPECT_EQ(p.transfer_backend, "nixl");
    EXPECT_EQ(p.health.path, "/health");
    EXPECT_EQ(p.health.port, 30000);
    EXPECT_EQ(p.health.expect_status, 204);
    EXPECT_EQ(p.health.deadline, std::chrono::minutes(25));
    EXPECT_EQ(p.health.interval, std::chrono::milliseconds(500));
    EXPECT_TRUE(p.depends_on_explicit);
    EXPECT_TRUE(p.depends_on.empty());
    EXPECT_EQ(p.runtime, RuntimeKind::Docker);
    EXPECT_EQ(p.container.cli, "podman") << "per-field override of defaults.container";
    EXPECT_EQ(p.container.image, "img:2");
    EXPECT_EQ(p.container.options, (std::vector<std::string>{"--network", "host"}));
    EXPECT_EQ(p.stop_grace_seconds, 60);

    const Role& mc = *cluster.find_role("mc");
    EXPECT_EQ(mc.metrics_port, 9003);
    EXPECT_EQ(mc.runtime, RuntimeKind::Process);
    EXPECT_EQ(mc.gpus_per_node, 8) << "from defaults";
    EXPECT_EQ(mc.stop_grace_seconds, 45);

    const Role& r = *cluster.find_role("r");
    EXPECT_EQ(r.router_impl, config::RouterImpl::MiniLb);
    EXPECT_EQ(r.prefill_roles, (std::vector<std::string>{"prefill"}));
    EXPECT_EQ(r.decode_roles, (std::vector<std::string>{"d"}));
    EXPECT_EQ(cluster.find_role("d")->depends_on, (std::vector<std::string>{"prefill"}));
    const Role& g = *cluster.find_role("g");
    EXPECT_EQ(g.command, (std::vector<std::string>{"python3", "-m", "http.server"}));
    EXPECT_EQ(g.depends_on, (std::vector<std::string>{"mc"}));
}

TEST(ConfigLoad, UnknownKeyWithHint) {
    std::string yaml = kMinimalCluster;
    yaml += "    prot: 31000\n";
    EXPECT_EQ(load_error(yaml),
              "/c/pdctl.yaml:22:5: error: roles.router.prot: unknown key (hint: did you mean `port`?)\n"
              "1 error in /c/pdctl.yaml");
}

TEST(ConfigLoad, UnknownKeyWithoutCloseMatchListsTheValidKeys) {
    EXPECT_EQ(
        load_error("cluster: a\nnodes: []\nroles: {}\nwhatever: 1\n"),
        "/c/pdctl.yaml:2:8: error: nodes: needs at least one node\n"
        "/c/pdctl.yaml:3:8: error: roles: needs at least one role\n"
        "/c/pdctl.yaml:4:1: error: whatever: unknown key (hint: valid keys here: `cluster`, `executor`, "
        "`state_dir`, `coordinator`, `secrets`, `env_files`, `defaults`, `nodes`, `roles`, `files`, "
        "`slurm`, `doctor` or `drills`)\n"
        "3 errors in /c/pdctl.yaml");
}

TEST(ConfigLoad, KeyOfAnotherKindSaysWhereItBelongs) {
    std::string yaml = kMinimalCluster;
    yaml += "    bootstrap_port: 8998\n    command: [x]\n";
    yaml.insert(yaml.find("    nodes: [n2]\n"), "    bootstrap_port: 8998\n");
    EXPECT_EQ(
        load_error(yaml),
        "/c/pdctl.yaml:18:5: error: roles.decode.bootstrap_port: only valid for kind sglang (mode prefill), "
        "not mode decode\n"
        "/c/pdctl.yaml:23:5: error: roles.router.bootstrap_port: only valid for kind sglang (mode prefill), "
        "not "
        "kind router\n"
        "/c/pdctl.yaml:24:5: error: roles.router.command: only valid for kind generic, not kind router\n"
        "3 errors in /c/pdctl.yaml");
}

TEST(ConfigLoad, WrongTypes) {
    EXPECT_EQ(
        load_error(R"(cluster: a
defaults: {container: {image: i}, gpus_per_node: eight}
nodes:
  - {name: n1, address: [10.0.0.1], ssh: {port: 22x}}
roles:
  router:
    kind: router
    nodes: n1
    port: abc
    mini_lb: maybe
    args: {a: 1}
    health: {deadline: soon}
)"),
        "/c/pdctl.yaml:2:50: error: defaults.gpus_per_node: expected an integer, got `eight`\n"
        "/c/pdctl.yaml:4:25: error: nodes[0].address: expected a string, got a list\n"
        "/c/pdctl.yaml:4:49: error: nodes[0].ssh.port: expected an integer, got `22x`\n"
        "/c/pdctl.yaml:6:3: error: roles.router.prefill: the router has no prefill role (hint: define a role "
        "with kind: sglang and mode: prefill)\n"
        "/c/pdctl.yaml:6:3: error: roles.router.decode: the router has no decode role (hint: define a role "
        "with "
        "kind: sglang and mode: decode)\n"
        "/c/pdctl.yaml:8:12: error: roles.router.nodes: expected a list, got `n1`\n"
        "/c/pdctl.yaml:9:11: error: roles.router.port: expected an integer, got `abc`\n"
        "/c/pdctl.yaml:10:14: error: roles.router.mini_lb: expected true or false, got `maybe`\n"
        "/c/pdctl.yaml:11:11: error: roles.router.args: expected a list, got a map\n"
        "/c/pdctl.yaml:12:24: error: roles.router.health.deadline: invalid duration `soon` (hint: use 500ms, "
        "90s, 25m, 1h, or a plain number of seconds)\n"
        "10 errors in /c/pdctl.yaml");
}

TEST(ConfigLoad, MissingRequiredKeysPointAtTheParentMap) {
    EXPECT_EQ(
        load_error(R"(defaults: {container: {image: i}}
nodes:
  - name: n1
roles:
  prefill:
    nodes: [n1]
  decode:
    kind: sglang
    nodes: [n1]
)"),
        "/c/pdctl.yaml:1:1: error: missing required key `cluster` (hint: a short name such as kimi3-pro6000; "
        "it labels everything pdctl starts)\n"
        "/c/pdctl.yaml:3:5: error: nodes[0]: missing required key `address` (hint: the IP or hostname pdctl "
        "and the other nodes reach this node at)\n"
        "/c/pdctl.yaml:6:5: error: roles.prefill: missing required key `kind` (hint: one of mooncake-master, "
        "sglang, router, generic)\n"
        "/c/pdctl.yaml:8:5: error: roles.decode: missing required key `mode` (hint: prefill or decode)\n"
        "4 errors in /c/pdctl.yaml");
}

TEST(ConfigLoad, UnknownNodeWithHint) {
    EXPECT_EQ(
        load_error(R"(cluster: a
defaults: {container: {image: i}}
nodes:
  - {name: gpu-a1, address: 10.0.0.1}
  - {name: gpu-b1, address: 10.0.0.2}
roles:
  mc: {kind: mooncake-master, nodes: [gpu-a1, gpu-a2, gpu-a1, cpu-z9]}
)"),
        "/c/pdctl.yaml:7:47: error: roles.mc.nodes[1]: unknown node `gpu-a2` (hint: did you mean `gpu-a1`?)\n"
        "/c/pdctl.yaml:7:55: error: roles.mc.nodes[2]: node `gpu-a1` is listed twice (hint: a node holds one "
        "rank of a role)\n"
        "/c/pdctl.yaml:7:63: error: roles.mc.nodes[3]: unknown node `cpu-z9` (hint: nodes are defined under "
        "`nodes:`)\n"
        "3 errors in /c/pdctl.yaml");
}

TEST(ConfigLoad, DuplicateNode) {
    EXPECT_EQ(
        load_error(R"(cluster: a
defaults: {container: {image: i}}
nodes:
  - name: n1
    address: 10.0.0.1
  - name: n1
    address: 10.0.0.2
roles:
  mc: {kind: mooncake-master, nodes: [n1]}
)"),
        "/c/pdctl.yaml:6:11: error: nodes[1].name: duplicate node name `n1` (hint: first defined at line 4)\n"
        "1 error in /c/pdctl.yaml");
}

TEST(ConfigLoad, InvalidNamesAndEnumValues) {
    EXPECT_EQ(
        load_error(R"(cluster: Kimi_3
executor: sshh
defaults: {container: {image: i}, runtime: dokcer}
nodes:
  - {name: -n1, address: 10.0.0.1}
roles:
  pre fill: {kind: sglnag, nodes: [-n1]}
)"),
        "/c/pdctl.yaml:1:10: error: cluster: invalid cluster name `Kimi_3` (hint: use lowercase letters, "
        "digits "
        "and `-`, starting with a letter or digit)\n"
        "/c/pdctl.yaml:2:11: error: executor: expected `ssh`, `local` or `slurm`, got `sshh` (hint: did you "
        "mean "
        "`ssh`?)\n"
        "/c/pdctl.yaml:3:44: error: defaults.runtime: expected `docker` or `process`, got `dokcer` (hint: "
        "did "
        "you mean `docker`?)\n"
        "/c/pdctl.yaml:5:12: error: nodes[0].name: invalid node name `-n1` (hint: use letters, digits, `.`, "
        "`_` "
        "and `-`, starting with a letter or digit)\n"
        "/c/pdctl.yaml:7:3: error: roles.pre fill: invalid role name (hint: use letters, digits, `.`, `_` "
        "and "
        "`-`, starting with a letter or digit)\n"
        "/c/pdctl.yaml:7:20: error: roles.pre fill.kind: expected `mooncake-master`, `sglang`, `router` or "
        "`generic`, got `sglnag` (hint: did you mean `sglang`?)\n"
        "6 errors in /c/pdctl.yaml");
}

TEST(ConfigLoad, PortsAndCountsMustBeInRange) {
    std::string yaml = kMinimalCluster;
    yaml +=
        "    port: 70000\n    stop_grace_seconds: -1\n    health: {port: 99999999999, expect_status: 42}\n";
    EXPECT_EQ(
        load_error(yaml),
        "/c/pdctl.yaml:22:11: error: roles.router.port: must be between 1 and 65535, got 70000\n"
        "/c/pdctl.yaml:23:25: error: roles.router.stop_grace_seconds: must be between 0 and 86400, got -1\n"
        "/c/pdctl.yaml:24:20: error: roles.router.health.port: must be between 1 and 65535, got 99999999999\n"
        "/c/pdctl.yaml:24:48: error: roles.router.health.expect_status: must be between 100 and 599, got 42\n"
        "4 errors in /c/pdctl.yaml");
}

TEST(ConfigLoad, DockerRuntimeNeedsAnImage) {
    EXPECT_EQ(load_error(R"(cluster: a
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  mc:
    kind: mooncake-master
    nodes: [n1]
  local:
    kind: mooncake-master
    nodes: [n1]
    runtime: process
)"),
              "/c/pdctl.yaml:5:5: error: roles.mc.container.image: runtime docker needs a container image "
              "(hint: set "
              "defaults.container.image or roles.mc.container.image, or use runtime: process)\n"
              "1 error in /c/pdctl.yaml");
}

TEST(ConfigLoad, YamlSyntaxErrorHasFileLineAndColumn) {
    EXPECT_EQ(
        load_error("cluster: a\nnodes: [n1\nroles: {}\n"),
        "/c/pdctl.yaml:3:6: error: invalid YAML: end of sequence flow not found\n1 error in /c/pdctl.yaml");
}

TEST(ConfigLoad, MissingOrEmptyClusterFile) {
    try {
        load_cluster("/nowhere/pdctl.yaml", MemoryFileSource(std::map<std::string, std::string>{}));
        FAIL();
    } catch (const ConfigError& error) {
        EXPECT_STREQ(
            error.what(),
            "/nowhere/pdctl.yaml: error: cannot read the cluster file\n1 error in /nowhere/pdctl.yaml");
    }
    EXPECT_EQ(load_error("# nothing yet\n"),
              "/c/pdctl.yaml: error: the cluster file is empty (hint: docs/config.md describes its keys)\n"
              "1 error in /c/pdctl.yaml");
    EXPECT_EQ(load_error("- a\n- b\n"),
              "/c/pdctl.yaml:1:1: error: expected a map, got a list\n1 error in /c/pdctl.yaml");
}

TEST(ConfigLoad, DuplicateYamlKeysAreRefused) {
    std::string yaml = kMinimalCluster;
    yaml += "  prefill:\n    kind: generic\n";
    EXPECT_EQ(load_error(yaml),
              "/c/pdctl.yaml:22:3: error: roles.prefill: duplicate key (hint: first defined at line 11)\n"
              "1 error in /c/pdctl.yaml");
}

TEST(ConfigLoad, DrillsAreRefusedUnlessTheFileAllowsThem) {
    EXPECT_FALSE(load(kMinimalCluster).drills_allowed);
    EXPECT_TRUE(load(std::string("drills: allowed\n") + kMinimalCluster).drills_allowed);
    EXPECT_FALSE(load(std::string("drills: refused\n") + kMinimalCluster).drills_allowed);
    const auto error = load_error(std::string("drills: yes\n") + kMinimalCluster);
    EXPECT_NE(error.find("/c/pdctl.yaml:1:9: error: drills:"), std::string::npos) << error;
    EXPECT_NE(error.find("allowed"), std::string::npos) << error;
}

TEST(ConfigLoad, ExtensionKeysAreFreeForAnchors) {
    const Cluster cluster = load(R"(x-image: &image lmsysorg/sglang:kimi-k3
cluster: a
defaults: {container: {image: *image}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  mc: {kind: mooncake-master, nodes: [n1]}
)");
    EXPECT_EQ(cluster.roles[0].container.image, "lmsysorg/sglang:kimi-k3");
}

TEST(ConfigLoad, MergeKeysGetAnExplanation) {
    EXPECT_EQ(load_error(R"(cluster: a
defaults: {container: {image: i}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  mc: {<<: {port: 1}, kind: mooncake-master, nodes: [n1]}
)"),
              "/c/pdctl.yaml:5:8: error: roles.mc.<<: unknown key (hint: YAML merge keys are not supported; "
              "write the "
              "keys out)\n"
              "1 error in /c/pdctl.yaml");
}

TEST(ConfigLoad, GenericRolesNeedACommandAndAHealthCheck) {
    EXPECT_EQ(
        load_error(R"(cluster: a
defaults: {container: {image: i}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  g1: {kind: generic, nodes: [n1]}
  g2: {kind: generic, nodes: [n1], command: [], health: {path: health}}
)"),
        "/c/pdctl.yaml:5:7: error: roles.g1: missing required key `command` (hint: the program's full argv, "
        "e.g. "
        "[python3, server.py])\n"
        "/c/pdctl.yaml:5:7: error: roles.g1: missing required key `health` (hint: kind generic has no "
        "default "
        "health check: set health.path and health.port)\n"
        "/c/pdctl.yaml:6:45: error: roles.g2.command: must not be empty\n"
        "/c/pdctl.yaml:6:57: error: roles.g2.health: missing required key `port` (hint: kind generic has no "
        "default health check: set health.path and health.port)\n"
        "/c/pdctl.yaml:6:64: error: roles.g2.health.path: must start with `/`\n"
        "5 errors in /c/pdctl.yaml");
}

// The acceptance test: one run reports every mistake, each with its file and line.
TEST(ConfigLoad, ReportsAllThreeMistakesWithFileAndLine) {
    const std::string yaml = R"(cluster: kimi3
defaults:
  container: {image: lmsysorg/sglang:kimi-k3}
nodes:
  - {name: n1, address: 174.1.60.1}
  - {name: n2, address: 174.1.60.2}
roles:
  prefill:
    kind: sglang
    mode: prefill
    nodes: [n1]
    prot: 30000
    profile: prefill.env
  decode:
    kind: sglang
    mode: decode
    nodes: [n3]
)";
    const std::string profile = "NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3\nNCCL_DEBUG=\"WARN\n";
    EXPECT_EQ(
        load_error(yaml, {{"/c/prefill.env", profile}}),
        "/c/pdctl.yaml:12:5: error: roles.prefill.prot: unknown key (hint: did you mean `port`?)\n"
        "/c/pdctl.yaml:17:13: error: roles.decode.nodes[0]: unknown node `n3` (hint: did you mean `n1`?)\n"
        "/c/prefill.env:2:12: error: roles.prefill.profile[prefill.env].NCCL_DEBUG: unterminated double "
        "quote "
        "(hint: close the value with `\"`)\n"
        "3 errors in /c/pdctl.yaml, /c/prefill.env");
}

}  // namespace
}  // namespace pdctl::config
