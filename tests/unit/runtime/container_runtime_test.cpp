// The docker runtime's command builders and its inspect parser, for docker and podman alike. The inspect
// script runs for real (sh) against a stand-in CLI that answers like docker or like podman does.
#include "pdctl/runtime/container_runtime.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "pdctl/exec/local_executor.hpp"

namespace pdctl::runtime {
namespace {

RuntimeSpec podman_spec(std::vector<std::string> options = {"--network", "host"}) {
    RuntimeSpec spec;
    spec.kind = config::RuntimeKind::Docker;
    spec.cli = "podman";
    spec.image = "localhost/pdctl/pdsim:test";
    spec.options = std::move(options);
    spec.stop_grace_seconds = 10;
    return spec;
}

UnitSpec prefill_unit() {
    UnitSpec unit;
    unit.name = "pd-c-prefill-2";
    unit.cluster = "c";
    unit.role = "prefill";
    unit.node = "n3";
    unit.rank = 2;
    unit.fingerprint = "0123456789ab";
    unit.program.argv = {"pdsim", "sglang.launch_server", "--port", "30000"};
    unit.program.env = {{"MODEL_PATH", "/data/m", false}, {"HF_TOKEN", "s3cret", true}};
    return unit;
}

std::vector<std::string> payload_of(const RuntimeSpec& spec) {
    return start_payload(ContainerRuntime(spec, "/state/c/n3").start(prefill_unit()));
}

TEST(ContainerRuntime, StartRunsDetachedUnderAnInitWithLabelsAndTheEnvFile) {
    const auto payload = payload_of(podman_spec());
    const std::vector<std::string> expected = {"podman",
                                               "run",
                                               "-d",
                                               "--init",
                                               "--name",
                                               "pd-c-prefill-2",
                                               "--label",
                                               "pdctl.cluster=c",
                                               "--label",
                                               "pdctl.config=0123456789ab",
                                               "--label",
                                               "pdctl.node=n3",
                                               "--label",
                                               "pdctl.rank=2",
                                               "--label",
                                               "pdctl.role=prefill",
                                               "--env-file",
                                               "/state/c/n3/pd-c-prefill-2.env",
                                               "--network",
                                               "host",
                                               "localhost/pdctl/pdsim:test",
                                               "pdsim",
                                               "sglang.launch_server",
                                               "--port",
                                               "30000"};
    EXPECT_EQ(payload, expected);
    // Secrets travel on stdin only.
    const auto start = ContainerRuntime(podman_spec(), "/state/c/n3").start(prefill_unit());
    // The last line marks the end: a start whose sender died mid-way must not run on half an env.
    EXPECT_EQ(start.stdin_data, "MODEL_PATH=/data/m\nHF_TOKEN=s3cret\n# pdctl: end of environment\n");
    for (const auto& arg : start.argv) EXPECT_EQ(arg.find("s3cret"), std::string::npos) << arg;
}

TEST(ContainerRuntime, InitChosenInTheOptionsIsNotAddedAgain) {
    for (const std::string option : {"--init", "--init=false"}) {
        const auto payload = payload_of(podman_spec({option, "--network", "host"}));
        EXPECT_EQ(std::count(payload.begin(), payload.end(), "--init"), option == "--init" ? 1 : 0) << option;
        EXPECT_EQ(std::count(payload.begin(), payload.end(), option), 1) << option;
    }
}

TEST(ContainerRuntime, ParsesDockerAndPodmanInspectAnswers) {
    ContainerRuntime runtime(podman_spec(), "/state/c/n3");
    // What the inspect script prints: docker's timestamp is RFC 3339, podman's Go's time format; a
    // container created but never started has the zero time.
    const auto units = runtime.parse_inspect(
        "unit=pd-c-prefill-2\nstate=running\npid=4242\nexit_code=0\nstarted_at=2026-11-29T08:12:03."
        "123456789Z\n"
        "pdctl.cluster=c\npdctl.role=prefill\npdctl.rank=2\npdctl.node=n3\npdctl.config=0123456789ab\nnow="
        "1795940000\n\n"
        "unit=pd-c-decode-0\nstate=exited\npid=0\nexit_code=137\nstarted_at=2026-11-29 08:12:03.1 +0000 UTC\n"
        "pdctl.cluster=c\npdctl.role=decode\npdctl.rank=0\npdctl.node=n3\npdctl.config=ba9876543210\nnow="
        "1\n\n"
        "unit=pd-c-router-0\nstate=created\npid=0\nexit_code=0\nstarted_at=0001-01-01 00:00:00 +0000 UTC\n"
        "pdctl.cluster=c\npdctl.role=router\npdctl.rank=0\npdctl.node=n3\npdctl.config=ba9876543210\nnow="
        "1\n\n");
    ASSERT_EQ(units.size(), 3u);
    EXPECT_TRUE(units[0].running);
    EXPECT_EQ(units[0].exit_code, "") << "a running container has no exit code";
    EXPECT_EQ(units[0].pid, 4242);
    EXPECT_EQ(units[0].started_epoch, 1795939923);
    EXPECT_EQ(units[0].labels.at("pdctl.role"), "prefill");
    EXPECT_EQ(units[0].labels.count("started_at"), 0u);
    EXPECT_FALSE(units[1].running);
    EXPECT_EQ(units[1].exit_code, "137");
    EXPECT_EQ(units[1].started_epoch, 1795939923);
    EXPECT_EQ(units[2].started_epoch, 0) << "never started";
}

// A stand-in for the container CLI: `ps` lists two ids; `container inspect` prints what the real CLI
// prints for the script's template, docker-style ("/name") or podman-style ("name").
class InspectScript : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        dir = std::filesystem::temp_directory_path() /
              ("pdctl-inspect-" + std::to_string(::getpid()) + "-" + GetParam());
        std::filesystem::create_directories(dir);
        const std::string slash = GetParam() == "docker" ? "/" : "";
        const std::string time =
            GetParam() == "docker" ? "2026-11-29T08:12:03.5Z" : "2026-11-29 08:12:03.5 +0000 UTC";
        std::ofstream(dir / "cli") << "#!/bin/sh\n"
                                      "echo \"$*\" >> \"$(dirname \"$0\")/calls\"\n"
                                      "case $1 in\n"
                                      "ps) printf 'aaa\\nbbb\\n' ;;\n"
                                      "container) for id in aaa bbb; do printf '"
                                   << "unit=" << slash << "pd-c-%s-0\\nstate=running\\npid=7\\nexit_code=0\\n"
                                   << "started_at=" << time
                                   << "\\npdctl.cluster=c\\npdctl.role=%s\\npdctl.rank=0\\npdctl.node=n1\\n"
                                      "pdctl.config=abc\\n\\n' \"$id\" \"$id\"; done ;;\n"
                                      "esac\n";
        ::chmod((dir / "cli").c_str(), 0755);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::filesystem::path dir;
};

TEST_P(InspectScript, ListsTheClustersContainersByLabelAndNamesThemWithoutSlash) {
    RuntimeSpec spec = podman_spec();
    spec.cli = (dir / "cli").string();
    ContainerRuntime runtime(spec, "/state/c/n1");
    exec::LocalExecutor executor;
    const auto answer = executor.run(config::Node{}, runtime.inspect("c"));
    ASSERT_TRUE(answer.ok()) << answer.err;
    const auto units = runtime.parse_inspect(answer.out);
    ASSERT_EQ(units.size(), 2u) << answer.out;
    EXPECT_EQ(units[0].unit, "pd-c-aaa-0");
    EXPECT_EQ(units[1].unit, "pd-c-bbb-0");
    EXPECT_EQ(units[1].labels.at("pdctl.role"), "bbb");
    EXPECT_GT(units[0].node_now_epoch, 0);
    EXPECT_EQ(units[0].started_epoch, 1795939923);
    // The calls: ps by label, then one inspect of every id (its template spans lines).
    std::ifstream calls_file(dir / "calls");
    const std::string calls((std::istreambuf_iterator<char>(calls_file)), std::istreambuf_iterator<char>());
    EXPECT_EQ(
        calls.rfind("ps -aq --filter label=pdctl.cluster=c\ncontainer inspect --format unit={{.Name}}\n", 0),
        0u)
        << calls;
    const std::string ids = "}}\n aaa bbb\n";
    EXPECT_EQ(calls.substr(calls.size() - std::min(calls.size(), ids.size())), ids) << calls;
}

TEST(ContainerLogActivity, TheNewestTimestampIsTheLastWriteInDockersAndPodmansFormats) {
    ContainerRuntime runtime(podman_spec(), "/state/c/n1");
    // docker: RFC 3339 in UTC with nanoseconds; podman: with the node's zone.
    const auto docker = runtime.parse_log_activity(
        "now=1795940000\n\n"
        "2026-11-29T08:12:03.123456789Z [2026-11-29 08:12:03 TP0] Load weight begin.\n"
        "2026-11-29T08:12:10.5Z Loading shards: 10%\rLoading shards: 20%\n");
    EXPECT_EQ(docker.node_now_epoch, 1795940000);
    EXPECT_EQ(docker.last_write_epoch, 1795939930);
    EXPECT_EQ(docker.quiet_seconds(), 70);
    EXPECT_EQ(docker.lines, (std::vector<std::string>{"[2026-11-29 08:12:03 TP0] Load weight begin.",
                                                      "Loading shards: 10%", "Loading shards: 20%"}));
    const auto podman = runtime.parse_log_activity(
        "now=1795940000\n\n2026-11-29T09:12:10.000000000+01:00 KV Cache is allocated.\n");
    EXPECT_EQ(podman.last_write_epoch, 1795939930);
    EXPECT_EQ(podman.lines, (std::vector<std::string>{"KV Cache is allocated."}));
    // No such container: the CLI's error is a line without a time, so the quiet time is unknown.
    const auto missing = runtime.parse_log_activity("now=1795940000\n\nError: no such container pd-c-x-0\n");
    EXPECT_EQ(missing.quiet_seconds(), -1);
}

INSTANTIATE_TEST_SUITE_P(Cli, InspectScript, ::testing::Values("docker", "podman"),
                         [](const auto& param_info) { return std::string(param_info.param); });

}  // namespace
}  // namespace pdctl::runtime
