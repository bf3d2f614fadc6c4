// `pdctl pull` for real: Debian's docker-registry (distribution 2.8) runs on the test bridge
// ($PDT_REGISTRY, 10.77.0.254:5000, plain HTTP, storage in the test's temporary directory), host 1 pushes
// the pdsim test image into it, and the real pdctl pulls it over SSH on the 8 hosts of the SSH test
// cluster (tests/cluster/up.sh; every host's registries.conf marks the registry insecure). Only the
// cluster's own addresses (10.77.0.0/24) are contacted, and only fully qualified image names are pulled.
#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "ssh_cluster.hpp"
#include "test_registry.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

class SshPullTest : public SshPdctlTest {
  protected:
    void SetUp() override {
        SshPdctlTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        const auto env = read_cluster_env(ssh_cluster_env_path());
        const char* ci = std::getenv("CI");
        const bool in_ci = ci && *ci;
        local_image = env.count("PDT_IMAGE") ? env.at("PDT_IMAGE") : "";
        registry = env.count("PDT_REGISTRY") ? env.at("PDT_REGISTRY") : "";
        if (local_image.empty() || registry.empty()) {
            if (in_ci)
                FAIL()
                    << "CI must have podman on the test hosts and the pdsim image (PDT_IMAGE, PDT_REGISTRY)";
            GTEST_SKIP() << "the test hosts have no podman image, or an older up.sh wrote no PDT_REGISTRY";
        }
        if (::access("/usr/bin/docker-registry", X_OK) != 0) {
            if (in_ci) FAIL() << "CI must have Debian's docker-registry (.ci/install-deps)";
            GTEST_SKIP() << "no /usr/bin/docker-registry: apt-get install docker-registry (.ci/install-deps)";
        }
        image = registry + "/pdctl/pdsim:test";
        const auto started = registry_server.start(temp, registry);
        ASSERT_EQ(started, "");

        // Host 1 (where podman works, in its own namespaces) pushes the image it already holds.
        const auto pushed =
            on_host(1, {"podman", "push", "--quiet", "--tls-verify=false", local_image, image});
        ASSERT_TRUE(pushed.ok()) << "podman push: " << pushed.err << exec::failure_reason(pushed);
        const auto id = on_host(1, {"podman", "image", "inspect", "--format", "{{.Id}}", local_image});
        ASSERT_TRUE(id.ok()) << id.err;
        expected_id = id.out.substr(0, id.out.find('\n'));
        ASSERT_EQ(expected_id.size(), 64u) << id.out;
        // Nothing of the registry's name on any host before the test (the pushed tag lives in the registry).
        on_every_host("podman rmi --ignore " + image + " " + registry +
                      "/pdctl/pdsim:nope >/dev/null 2>&1; true");
    }

    void TearDown() override {
        // Untag what the test pulled (the image stays under its localhost/ name for the other tests), then
        // stop the registry, whatever the test did; its storage goes with the temporary directory.
        if (executor && !image.empty()) {
            for (const auto& answer : on_every_host("podman rmi --ignore " + image +
                                                    " >/dev/null; podman images "
                                                    "--format '{{.Repository}}' | grep -c '^" +
                                                    registry + "/' || true"))
                EXPECT_EQ(answer.out, "0\n") << "an image from the test registry is left: " << answer.err;
        }
        registry_server.stop();
        SshPdctlTest::TearDown();
    }

    // 8 nodes, role `app` on all of them in the registry's image (and `extra` when given).
    std::filesystem::path write_profile(const std::string& extra_roles = {}) {
        std::string yaml =
            "cluster: sshpull\nexecutor: ssh\nstate_dir: /root/pdctl-state\n"
            "defaults:\n  ssh: {user: root, identity: " +
            cluster.key + "}\n  runtime: docker\n  container: {cli: podman, image: " + image + "}\nnodes:\n";
        for (std::size_t i = 0; i < 8; ++i)
            yaml += "  - {name: n" + std::to_string(i + 1) + ", address: " + cluster.hosts[i].address + "}\n";
        yaml +=
            "roles:\n  app: {kind: generic, nodes: [n1, n2, n3, n4, n5, n6, n7, n8], command: [pdsim], "
            "health: {path: /health, port: 30000}}\n" +
            extra_roles;
        const auto path = temp / "pdctl.yaml";
        spit(path, yaml);
        return path;
    }

    exec::CommandResult on_host(int i, const std::vector<std::string>& argv) const {
        return executor->run(cluster.node(i), exec::Command{argv, {}, std::chrono::minutes(2)});
    }

    std::string local_image, registry, image, expected_id;
    TestRegistry registry_server;
};

TEST_F(SshPullTest, FirstPullReachesEveryHostWithOneImageIdAndASecondFindsItPresent) {
    const auto config = write_profile();
    const auto first = pdctl(config, {"--json", "pull"});
    ASSERT_EQ(first.exit_code, 0) << first.dump();
    const auto images = first.events("pull_image");
    ASSERT_EQ(images.size(), 8u) << first.dump();
    for (const auto& event : images) {
        EXPECT_EQ(event["status"], "pulled") << event.dump();
        EXPECT_EQ(event["id"], expected_id) << event.dump();
    }
    const auto end = first.events("pull_end");
    ASSERT_EQ(end.size(), 1u);
    EXPECT_EQ(end[0]["ok"], true);
    EXPECT_EQ(end[0]["nodes_complete"], 8);
    EXPECT_EQ(end[0]["ids"][image], expected_id);
    std::cout << "[ measured ] first pull on 8 hosts: " << first.ms << " ms\n";

    // Each host's own podman agrees, independently of pdctl.
    const auto ids = on_every_host("podman image inspect --format '{{.Id}}' " + image);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        ASSERT_TRUE(ids[i].ok()) << cluster.hosts[i].name << ": " << ids[i].err
                                 << exec::failure_reason(ids[i]);
        EXPECT_EQ(ids[i].out, expected_id + "\n") << cluster.hosts[i].name;
    }

    const auto second = pdctl(config, {"pull"});
    ASSERT_EQ(second.exit_code, 0) << second.dump();
    for (int i = 1; i <= 8; ++i)
        EXPECT_NE(second.out.find("n" + std::to_string(i) + "       1/1  already present " + image + "  id " +
                                  expected_id.substr(0, 12)),
                  std::string::npos)
            << second.dump();
    EXPECT_NE(
        second.out.find("OK    8/8 nodes hold every image with the same ID; pulled 0, already present 8"),
        std::string::npos)
        << second.dump();
    std::cout << "[ measured ] second pull on 8 hosts (already present): " << second.ms << " ms\n";

    // Both runs are in the journal.
    const auto history = pdctl(config, {"--json", "history"});
    ASSERT_EQ(history.exit_code, 0) << history.dump();
    const auto runs = json::parse(history.out);
    int pulls = 0;
    for (const auto& run : runs["runs"]) pulls += run["verb"] == "pull" ? 1 : 0;
    EXPECT_EQ(pulls, 2) << history.out;
}

TEST_F(SshPullTest, AHostWithoutTheInsecureRegistryAndAMissingTagAreNamedWithTheirErrors) {
    // Host 3 forgets that the registry speaks plain HTTP; restored whatever happens.
    const std::string conf = "/etc/containers/registries.conf";
    ASSERT_TRUE(on_host(3, {"cp", conf, conf + ".pdctl-test"}).ok());
    Restore restore([&] { on_host(3, {"mv", conf + ".pdctl-test", conf}); });
    ASSERT_TRUE(
        on_host(
            3, {"sh", "-c",
                "printf 'unqualified-search-registries = []\\nshort-name-mode = \"enforcing\"\\n' > " + conf})
            .ok());
    // Role `extra` on n8 names a tag the registry does not have.
    const auto config = write_profile(
        "  extra: {kind: generic, nodes: [n8], command: [pdsim], health: {path: /health, port: 30001}, "
        "container: {image: " +
        registry + "/pdctl/pdsim:nope}}\n");
    const auto run = pdctl(config, {"pull"});
    EXPECT_EQ(run.exit_code, 4) << run.dump();
    EXPECT_NE(run.out.find(
                  "FAIL  6/8 nodes hold every image with the same ID; pulled 7, already present 0, failed 2"),
              std::string::npos)
        << run.dump();
    const auto line_of = [&](const std::string& prefix) {
        const auto at = run.out.find(prefix);
        return at == std::string::npos ? std::string() : run.out.substr(at, run.out.find('\n', at) - at);
    };
    const auto n3 = line_of("  n3: " + image + ": ");
    EXPECT_NE(n3.find("HTTP response to HTTPS client"), std::string::npos) << run.dump();
    const auto n8 = line_of("  n8: " + registry + "/pdctl/pdsim:nope: ");
    EXPECT_NE(n8.find("manifest unknown"), std::string::npos) << run.dump();
    std::cout << "[ errors ]\n" << n3 << "\n" << n8 << "\n";

    // --node narrows the run to the healthy host: exit 0.
    const auto only_n1 = pdctl(config, {"pull", "--node", "n1"});
    EXPECT_EQ(only_n1.exit_code, 0) << only_n1.dump();
    EXPECT_NE(only_n1.out.find("OK    1/1 nodes"), std::string::npos) << only_n1.dump();
}

}  // namespace
}  // namespace pdctl::testing
