// restart --gated on the SSH test cluster, every unit a podman container (ssh_scenario.hpp): the decode
// group's new ranks start beside the old ones under SGLang's launch gate (pdsim models it, docs/pdsim.md
// "Gated launch"), the old ones serve until every new rank joined, and a failure before the switch
// leaves the old ones serving under their own names. A client asks decode rank 0's /health all along,
// so the outage each way of restarting is measured from outside pdctl.
#include <httplib.h>

#include <atomic>
#include <thread>

#include "ssh_scenario.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// The longest time decode rank 0 did not answer /health 200 while `during` ran, asked every 50 ms.
struct Outage {
    long long longest_ms = 0;
    int failed_answers = 0;
};

template <typename F>
Outage watch_health(const std::string& address, F&& during) {
    std::atomic<bool> running{true};
    Outage outage;
    std::thread client([&] {
        httplib::Client health(address, 30000);
        health.set_connection_timeout(1, 0);
        health.set_read_timeout(2, 0);
        std::optional<Clock::time_point> down_since;
        while (running) {
            const auto answer = health.Get("/health");
            const auto now = Clock::now();
            if (answer && answer->status == 200) {
                down_since.reset();
            } else {
                ++outage.failed_answers;
                if (!down_since) down_since = now;
                outage.longest_ms = std::max(outage.longest_ms, elapsed_ms(*down_since));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    during();
    running = false;
    client.join();
    return outage;
}

class SshGatedRestartTest : public SshScenarioTest {
  protected:
    // The profile with the decode ranks' distributed init taking `init_ms` (imports and NCCL set-up on a
    // real node: what a gated launch does before its gate), and `decode_env` added to decode.env.
    void write_gated_profile(const std::string& name, const std::string& decode_env = {}) {
        profile = write_profile(temp / "profile", name);
        std::ofstream(temp / "profile" / "decode.env", std::ios::app) << "PDSIM_INIT_MS=3000\n" << decode_env;
    }

    // The names of the containers on hosts 5-8 (the decode nodes; the router runs on host 5 too).
    std::vector<std::string> decode_host_containers() const {
        std::vector<std::string> names;
        for (const auto& [host, found] : containers())
            for (const auto& name : found)
                if (name.find("-decode-") != std::string::npos) names.push_back(host + ":" + name);
        std::sort(names.begin(), names.end());
        return names;
    }

    // The value of `label` on the container `name` on host `i`.
    std::string label_of(int i, const std::string& name, const std::string& label) const {
        const auto answer =
            executor->run(cluster.node(i), exec::Command{{"podman", "container", "inspect", "--format",
                                                          "{{index .Config.Labels \"" + label + "\"}}", name},
                                                         {},
                                                         std::chrono::seconds(30)});
        EXPECT_TRUE(answer.ok()) << answer.err;
        return answer.out.substr(0, answer.out.find('\n'));
    }
};

TEST_F(SshGatedRestartTest, DecodeServesUntilItsNewRanksJoinedAndIsDownOnlyForWhatComesAfterTheGate) {
    write_gated_profile("sshgated");
    const auto start = pdctl(profile, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.dump();
    const auto before = decode_host_containers();
    ASSERT_EQ(before.size(), 4u);

    // A plain scoped restart first: stop, then start; the group is down from its stop to its gate.
    ClusterRun plain;
    const auto plain_outage = watch_health(host(5).address, [&] {
        plain = pdctl(profile, {"restart", "--role", "decode"});
    });
    ASSERT_EQ(plain.exit_code, 0) << plain.dump();

    ClusterRun gated;
    const auto gated_outage = watch_health(host(5).address, [&] {
        gated = pdctl(profile, {"--json", "restart", "--gated", "--role", "decode"});
    });
    ASSERT_EQ(gated.exit_code, 0) << gated.dump();
    std::cout << "[ measured ] decode rank 0 /health down: plain restart " << plain_outage.longest_ms
              << " ms (pdctl " << plain.ms << " ms), restart --gated " << gated_outage.longest_ms
              << " ms (pdctl " << gated.ms << " ms)\n";

    // The order: every new rank joined and waited at the gate before the first old rank was stopped.
    std::vector<std::string> order;
    for (const auto& event : gated.events()) {
        const auto name = event.value("event", "");
        if (name == "note" && event.value("message", "").find("waits at the gate") != std::string::npos)
            order.push_back("joined");
        if (name == "unit_done" && event.value("verb", "") == "stop") order.push_back("stopped");
        if (name == "stage_ready") order.push_back("ready");
    }
    ASSERT_GE(order.size(), 6u) << gated.dump();
    EXPECT_EQ(order.front(), "joined") << gated.dump();
    EXPECT_EQ(order.back(), "ready") << gated.dump();
    const auto end = gated.events("run_end");
    ASSERT_EQ(end.size(), 1u) << gated.dump();
    EXPECT_EQ(end[0]["exit_code"], 0) << end[0].dump();

    // What the outage leaves out: the container start and the distributed init (3 s here), which
    // the new ranks did while the old ones served.
    EXPECT_LT(gated_outage.longest_ms + 2000, plain_outage.longest_ms)
        << "gated " << gated_outage.longest_ms << " ms, plain " << plain_outage.longest_ms << " ms";

    // Afterwards: the plan's names only, on the gate's first slot, serving through the router.
    EXPECT_EQ(decode_host_containers(), before);
    EXPECT_EQ(label_of(5, "pd-sshgated-decode-0", "pdctl.gated-launch"), "30100:5001");
    const auto status = pdctl(profile, {"--json", "status"});
    EXPECT_EQ(status.exit_code, 0) << status.dump();
    const auto smoke = pdctl(profile, {"smoke"});
    EXPECT_EQ(smoke.exit_code, 0) << smoke.dump();

    // A second gated restart: the old ranks still hold gate 30100 and dist-init 5001, so the new ones
    // take the other slot.
    const auto again = pdctl(profile, {"restart", "--gated", "--role", "decode"});
    ASSERT_EQ(again.exit_code, 0) << again.dump();
    EXPECT_EQ(label_of(5, "pd-sshgated-decode-0", "pdctl.gated-launch"), "30101:5002");
    EXPECT_EQ(decode_host_containers(), before);
}

TEST_F(SshGatedRestartTest, ANewRankThatFailsBeforeTheGateLeavesTheOldOnesServingUnderTheirNames) {
    write_gated_profile("sshgatefail");
    const auto start = pdctl(profile, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.dump();
    const auto before = decode_host_containers();
    const auto old_config = label_of(6, "pd-sshgatefail-decode-1", "pdctl.config");

    // The new config makes rank 1 crash in its distributed init: before the gate.
    std::ofstream(temp / "profile" / "decode.env", std::ios::app)
        << "PDSIM_CRASH_AT=init\nPDSIM_CRASH_RANK=1\n";
    ClusterRun failed;
    const auto outage = watch_health(host(5).address, [&] {
        failed = pdctl(profile, {"--json", "restart", "--gated", "--role", "decode"});
    });
    EXPECT_EQ(failed.exit_code, 4) << failed.dump();
    const auto end = failed.events("run_end");
    ASSERT_EQ(end.size(), 1u) << failed.dump();
    EXPECT_NE(
        end[0].value("message", "").find("the old ones, which served throughout, have their names back"),
        std::string::npos)
        << end[0].dump();
    EXPECT_EQ(outage.failed_answers, 0) << "decode rank 0 did not answer for " << outage.longest_ms << " ms";

    // The old ranks, with the old config, under the plan's names; no new or outgoing one is left.
    EXPECT_EQ(decode_host_containers(), before);
    EXPECT_EQ(label_of(6, "pd-sshgatefail-decode-1", "pdctl.config"), old_config);
    const auto smoke = pdctl(profile, {"smoke"});
    EXPECT_EQ(smoke.exit_code, 0) << smoke.dump();

    // A gate port something answers on already (here decode's own API port) is refused before anything
    // is touched: what answers there later could not be told from the new rank 0.
    const auto taken = pdctl(profile, {"restart", "--gated", "--gate-port", "30000", "--role", "decode"});
    EXPECT_EQ(taken.exit_code, 4) << taken.dump();
    EXPECT_NE((taken.out + taken.err).find("answers already (HTTP 200) before the new ranks start"),
              std::string::npos)
        << taken.dump();
    EXPECT_EQ(decode_host_containers(), before);

    // Prefill is refused before anything is touched: its bootstrap port binds before the gate.
    const auto prefill = pdctl(profile, {"restart", "--gated", "--role", "prefill"});
    EXPECT_EQ(prefill.exit_code, 2) << prefill.dump();
    EXPECT_NE(prefill.err.find("bootstrap port"), std::string::npos) << prefill.dump();
}

}  // namespace
}  // namespace pdctl::testing
