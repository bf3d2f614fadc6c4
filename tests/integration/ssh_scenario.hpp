#pragma once
// The fixture of the whole-deployment tests over SSH with podman (ssh_scenario_test.cpp,
// ssh_rollout_test.cpp): the 8 hosts of the SSH test cluster stand in for 8-GPU nodes with idle GPUs,
// the profile tests/profiles/ssh-podman is copied per test, and no container is left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fake_gpu.hpp"
#include "ssh_cluster.hpp"
#include "text_edit.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

class SshScenarioTest : public SshPdctlTest {
  protected:
    void SetUp() override {
        SshPdctlTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        const auto env = read_cluster_env(ssh_cluster_env_path());
        image = env.count("PDT_IMAGE") ? env.at("PDT_IMAGE") : "";
        if (image.empty()) {
            const char* ci = std::getenv("CI");
            if (ci && *ci)
                FAIL() << "CI runs as root, so the test hosts must have podman and the pdsim image, but "
                       << ssh_cluster_env_path()
                       << " has no PDT_IMAGE (the CTest fixture ssh_podman_image runs "
                          "tests/cluster/podman-image.sh). Refusing to skip in CI.";
            GTEST_SKIP() << "the test hosts have no podman image: install podman, runc and catatonit "
                            "(.ci/install-deps) and run `ctest -L ssh`, whose fixtures load it";
        }
        for (const auto& [host, names] : containers())
            ASSERT_TRUE(names.empty()) << host << " has containers before the test: " << names.front();
        // The hosts stand in for 8-GPU nodes with idle GPUs: start's preflight then sees what it sees
        // on a real cluster (the profile's gpus_per_node is 8).
        const auto gpus = on_every_host([](int) {
            return exec::Command{{"sh", "-c",
                                  std::string("set -e\n") + kInstallNvidiaSmiStub +
                                      "printf '%s\\n' \"$3\" >/root/.ssh/environment\n",
                                  "fake-gpus", idle_gpu_query(8),
                                  gpu_fixture("nvidia-smi-h200-idle.compute-apps.csv"), kStubPath},
                                 {},
                                 std::chrono::seconds(30)};
        });
        for (std::size_t i = 0; i < gpus.size(); ++i)
            ASSERT_TRUE(gpus[i].ok()) << "host " << i + 1 << gpus[i].err;
    }

    void TearDown() override {
        // Never leave a container behind, whatever the test did: pdctl stop, then podman on every host.
        if (!profile.empty()) pdctl(profile, {"stop"});
        if (executor)
            on_every_host(
                "podman rm --all --force --time 0 >/dev/null 2>&1; "
                "rm -rf /root/pdctl-state /root/fake-bin /root/.ssh/environment");
        SshPdctlTest::TearDown();
    }

    // A copy of tests/profiles/ssh-podman in `dir`, named `name`, pointing at this cluster's key and
    // image. `extra_prefill_env` is appended to prefill.env.
    std::filesystem::path write_profile(const std::filesystem::path& dir, const std::string& name,
                                        const std::string& extra_prefill_env = {},
                                        const std::string& identity = {}) {
        const std::filesystem::path source =
            std::filesystem::path(pdctl::testing::source_dir()) / "tests" / "profiles" / "ssh-podman";
        std::filesystem::create_directories(dir);
        for (const auto& entry : std::filesystem::directory_iterator(source)) {
            std::string text = slurp(entry.path());
            if (entry.path().filename() == "pdctl.yaml") {
                replace_all(text, "cluster: sshpod", "cluster: " + name);
                replace_all(text, "identity: /tmp/pdctl-test-cluster/client/id_ed25519",
                            "identity: " + (identity.empty() ? cluster.key : identity));
                replace_all(text, "image: localhost/pdctl/pdsim:test", "image: " + image);
                use_cluster_addresses(text);
            }
            if (entry.path().filename() == "prefill.env") text += extra_prefill_env;
            spit(dir / entry.path().filename(), text);
        }
        return dir / "pdctl.yaml";
    }

    // Every container on every host (podman ps -a over SSH), by host name.
    std::map<std::string, std::vector<std::string>> containers() const {
        const auto answers = on_every_host("podman ps --all --format '{{.Names}}'");
        std::map<std::string, std::vector<std::string>> found;
        for (std::size_t i = 0; i < answers.size(); ++i) {
            const auto& answer = answers[i];
            EXPECT_TRUE(answer.ok()) << cluster.hosts[i].name << ": podman ps failed: " << answer.err
                                     << answer.transport_error;
            auto& names = found[cluster.hosts[i].name];
            std::istringstream lines(answer.out);
            std::string line;
            while (std::getline(lines, line))
                if (!line.empty()) names.push_back(line);
            std::sort(names.begin(), names.end());
        }
        return found;
    }

    // What two status reports must agree on: everything but uptimes and probe answers.
    static nlohmann::json comparable(const nlohmann::json& status) {
        nlohmann::json out = {
            {"cluster", status["cluster"]}, {"state", status["state"]}, {"roles", nlohmann::json::array()}};
        for (const auto& role : status["roles"]) {
            nlohmann::json units = nlohmann::json::array();
            for (const auto& unit : role["units"])
                units.push_back({{"node", unit["node"]},
                                 {"unit", unit["unit"]},
                                 {"rank", unit["rank"]},
                                 {"state", unit["state"]},
                                 {"config", unit["config"]},
                                 {"pid", unit["pid"]}});
            out["roles"].push_back({{"role", role["role"]}, {"healthy", role["healthy"]}, {"units", units}});
        }
        return out;
    }

    // The whole life of the deployment through whatever transports the profile's nodes get: start,
    // every unit running and healthy, /generate through the router, stop, nothing left on any host.
    void start_status_smoke_stop() {
        const auto start = pdctl(profile, {"start"});
        ASSERT_EQ(start.exit_code, 0) << start.dump();
        const auto status = pdctl(profile, {"--json", "status"});
        EXPECT_EQ(status.exit_code, 0) << status.dump();
        const auto doc = nlohmann::json::parse(status.out, nullptr, false);
        ASSERT_TRUE(doc.is_object()) << status.dump();
        EXPECT_EQ(doc["state"], "running") << status.out;
        std::size_t units = 0;
        for (const auto& role : doc["roles"])
            for (const auto& unit : role["units"]) {
                ++units;
                EXPECT_EQ(unit["state"], "running") << unit.dump();
            }
        EXPECT_EQ(units, 10u) << status.out;
        const auto smoke = pdctl(profile, {"smoke"});
        EXPECT_EQ(smoke.exit_code, 0) << smoke.dump();
        const auto stop = pdctl(profile, {"stop"});
        EXPECT_EQ(stop.exit_code, 0) << stop.dump();
        const auto after = pdctl(profile, {"--json", "status"});
        EXPECT_EQ(after.exit_code, 8) << after.dump();
        for (const auto& [host, names] : containers())
            EXPECT_TRUE(names.empty()) << host << " still has containers after stop: " << names.front();
        std::printf("[ timing ] %s: start %lld ms, status %lld ms, smoke %lld ms, stop %lld ms\n",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name(), start.ms, status.ms,
                    smoke.ms, stop.ms);
    }

    // `pdctl plan`'s transport section: the line that names `nodes` (e.g. "n5–n8").
    std::string transport_line(const std::string& nodes) {
        const auto plan = pdctl(profile, {"plan"});
        EXPECT_EQ(plan.exit_code, 0) << plan.dump();
        std::istringstream lines(plan.out);
        std::string line;
        while (std::getline(lines, line))
            if (line.rfind("  " + nodes + " ", 0) == 0) return line;
        return "no line for " + nodes + " in:\n" + plan.out;
    }

    std::string image;
    std::filesystem::path profile;
};

}  // namespace pdctl::testing
