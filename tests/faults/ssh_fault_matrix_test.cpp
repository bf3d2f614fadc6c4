// The network rows of the fault matrix, on the SSH test cluster (tests/cluster/up.sh: real sshd in
// network namespaces): a node unreachable before start, a link going down while a stage waits, and
// sshd refusing in the middle of a run. The units are pdsim processes on the hosts (process runtime),
// so the invariant can see them in /proc: the hosts share this machine's PID namespace.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "fault_matrix.hpp"
#include "integration/ssh_cluster.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing::faults {
namespace {

class SshFault : public SshClusterTest {
  protected:
    void SetUp() override {
        SshClusterTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        // pdctl runs with the cluster's known_hosts, no agent, and a HOME without ssh config.
        ::setenv("PDCTL_KNOWN_HOSTS", cluster.known_hosts.c_str(), 1);
        ::setenv("HOME", temp.c_str(), 1);
        ::unsetenv("SSH_AUTH_SOCK");
    }

    // "10.77.0." for the default cluster: the hosts' addresses without the last number (what the
    // copied profile's 127.0.B. becomes, and how the invariant knows this case's processes).
    std::string subnet() const {
        const auto& address = host(1).address;
        return address.substr(0, address.rfind('.') + 1);
    }

    // profiles/local moved onto hosts 1-8: same roles and ports, SSH instead of local, pdsim by path.
    std::function<void(SimCluster&)> on_ssh_hosts(int block) const {
        return [this, block](SimCluster& sim) {
            const auto dir = sim.config().parent_path();
            for (const auto& entry : std::filesystem::directory_iterator(dir)) {
                if (!entry.is_regular_file()) continue;
                auto text = read_text(entry.path());
                replace_all(text, "127.0." + std::to_string(block) + ".", subnet());
                if (entry.path().filename() == "pdctl.yaml") {
                    replace_all(text, "executor: local", "executor: ssh");
                    replace_all(text, "defaults:\n",
                                "defaults:\n  ssh: {user: root, identity: " + cluster.key + "}\n");
                    replace_all(text, "[pdsim, ", std::string("[") + pdctl::testing::pdsim_binary() + ", ");
                }
                write_text(entry.path(), text);
            }
        };
    }

    // Waits (bounded) until host i's sshd accepts a TCP connection again. A link that was down long
    // enough leaves this side's ARP entry for the host FAILED or still resolving, and the first
    // connection after `ip link set up` can then fail at once with "No route to host": measured on this
    // cluster after 48 s down. A status taken in that moment rightly calls the node unreachable, so the
    // invariant is judged only once the host answers.
    bool wait_until_reachable(int i) {
        return eventually(
            [&] {
                const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                if (fd < 0) return false;
                sockaddr_in addr{};
                addr.sin_family = AF_INET;
                addr.sin_port = htons(22);
                ::inet_pton(AF_INET, host(i).address.c_str(), &addr.sin_addr);
                bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
                if (!connected && errno == EINPROGRESS) {
                    pollfd pending{fd, POLLOUT, 0};
                    int error = 0;
                    socklen_t length = sizeof error;
                    connected = ::poll(&pending, 1, 1000) == 1 &&
                                ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
                }
                ::close(fd);
                return connected;
            },
            std::chrono::seconds(20));
    }

    void block_ssh(int host) {
        in_host_netns(host, {"nft", "add table inet pdctl_fault"});
        in_host_netns(host,
                      {"nft", "add chain inet pdctl_fault input { type filter hook input priority 0 ; }"});
        in_host_netns(host, {"nft", "add rule inet pdctl_fault input tcp dport 22 reject with tcp reset"});
    }
    void unblock_ssh(int host) { in_host_netns(host, {"nft", "delete table inet pdctl_fault"}); }
};

TEST_F(SshFault, ANodeUnreachableBeforeStartIsNamedAndNothingStarts) {
    FaultCase c("network", "unreachable-before-start", 150, on_ssh_hosts(150), subnet());
    c.describe("host n3 refuses SSH before `start`",
               "exit 3 naming n3 before any unit starts; status exit 7 (degraded) listing n3 unreachable");
    block_ssh(3);
    bool blocked = true;
    Restore unblock([&] {
        if (blocked) unblock_ssh(3);
    });
    const auto start = c.cluster().run({"start"});
    c.expect(start.exit_code == 3,
             "start exit " + std::to_string(start.exit_code) + ", expected 3: " + start.err);
    c.expect((start.out + start.err).find("n3") != std::string::npos,
             "the error does not name n3: " + start.out + start.err);
    c.expect(c.live().empty(), "units started although n3 was unreachable");
    const auto status = c.cluster().run({"--json", "status"});
    const auto doc = json::parse(status.out, nullptr, false);
    c.expect(status.exit_code == 7,
             "status exit " + std::to_string(status.exit_code) + ", expected 7 (degraded: n3 unknown)");
    c.expect(doc.is_object() && doc["unreachable"].dump().find("n3") != std::string::npos,
             "status does not list n3 as unreachable: " + status.out);
    unblock_ssh(3);
    blocked = false;
    c.expect_invariant();
}

// A host's link or sshd fails while a stage waits on its gate, its unit there already running: pdctl
// must not hang, must name the node, and must stop what it can reach; once the host is back, status and
// stop deal with the unit it could not stop. The stage's units load their weights for a minute (deadline
// 5 minutes), so the fault lands while pdctl still needs the node: with 800 ms phases alone, a loaded
// machine let the stage pass its gate before the fault was in place (CI: start exit 0).
void fail_mid_stage(FaultCase& c, const std::string& stage, const std::string& node,
                    const std::function<void()>& inject) {
    // The unit on the failed host outlives its stopped peers (no peer-death exit during the checks), so
    // status must report it and stop must remove it once the host is back.
    for (const char* file : {"prefill.env", "decode.env"})
        c.append(file, "PDSIM_PHASE_MS=800\nPDSIM_PEER_DEATH_MS=600000\n");
    c.append(stage + ".env", "PDSIM_WEIGHTS_MS=60000\n");
    c.set_deadline(stage, "5m");
    const auto output = c.cluster().config().parent_path() / "pdctl.out";
    // -vv: each SSH command's timing goes to the same file, so a stage that does not begin in time
    // shows which step before it took the time (the events are the JSON lines among them).
    auto run = run_pdctl_to_file(c.cluster(), output, {"--json", "-vv", "start"});
    const bool began = unit_started(output, stage, node);
    c.expect(began, "the " + stage + " unit on " + node + " never started: " + read_text(output));
    inject();
    const auto result = run.get();
    // 3: the node became unreachable. Never 0: a gate that passes while the node cannot list its unit
    // does not make the stage ready.
    c.expect(result.exit_code == 3,
             "start exit " + std::to_string(result.exit_code) + ", expected 3:\n" + read_text(output));
    c.expect(event_in(output,
                      [&](const json& event) {
                          return event.value("event", "") == "stage_failed" &&
                                 event.value("node", "") == node && event.value("role", "") == stage;
                      }),
             "the failure does not name " + node + ":\n" + read_text(output));
}

TEST_F(SshFault, ALinkGoingDownWhilePrefillLoadsFailsTheStartNamingTheNode) {
    FaultCase c("network", "link-down-mid-stage", 151, on_ssh_hosts(151), subnet());
    c.describe(
        "host n3's link goes down while prefill loads (its unit keeps running, unreachable)",
        "start fails (exit 3) naming n3 within the SSH timeouts; reachable units stopped; after the link "
        "returns status shows n3's unit, stop removes it");
    bool down = false;
    Restore link_up([&] {
        if (down) local({"ip", "link", "set", host(3).veth, "up"});
    });
    fail_mid_stage(c, "prefill", "n3", [&] {
        local({"ip", "link", "set", host(3).veth, "down"});
        down = true;
    });
    local({"ip", "link", "set", host(3).veth, "up"});
    down = false;
    c.expect(wait_until_reachable(3), "n3 does not accept connections 20 s after its link came back");
    c.expect_invariant();
}

TEST_F(SshFault, SshdRefusingMidRunFailsTheStartNamingTheNode) {
    FaultCase c("network", "sshd-refusing-mid-run", 152, on_ssh_hosts(152), subnet());
    c.describe("host n6 starts refusing SSH (TCP reset) while decode loads",
               "start fails (exit 3) naming n6; reachable units stopped; once sshd answers again, status is "
               "truthful and stop cleans up");
    bool blocked = false;
    Restore unblock([&] {
        if (blocked) unblock_ssh(6);
    });
    fail_mid_stage(c, "decode", "n6", [&] {
        block_ssh(6);
        blocked = true;
    });
    unblock_ssh(6);
    blocked = false;
    c.expect_invariant();
}

// The coordinator (n1: the lock, the journal, the master and prefill rank 0) loses its link with the
// cluster running. An emergency stop must not depend on it: every unit pdctl reaches is stopped, the
// run says it had no lock and exits 14 naming n1; once n1 is back, history shows that stop (kept on
// this machine meanwhile) and the invariant's stop removes n1's units.
TEST_F(SshFault, TheCoordinatorsLinkDownStopStillStopsEveryReachableUnit) {
    FaultCase c("network", "coordinator-down-stop", 153, on_ssh_hosts(153), subnet());
    c.describe("host n1, the coordinator, loses its link with the cluster running; then `stop`",
               "stop exits 14 naming n1 and stops every unit on n2-n8; after the link returns, history shows "
               "that stop, and stop removes n1's two units");
    // n1's ranks outlive their stopped peers, so what is left is exactly what pdctl could not reach.
    c.append("prefill.env", "PDSIM_PEER_DEATH_MS=600000\n");
    const auto start = c.cluster().run({"start"});
    c.expect(start.exit_code == 0, "start exit " + std::to_string(start.exit_code) + ": " + start.err);
    bool down = false;
    Restore link_up([&] {
        if (down) local({"ip", "link", "set", host(1).veth, "up"});
    });
    local({"ip", "link", "set", host(1).veth, "down"});
    down = true;

    const auto stop = c.cluster().run({"stop"});
    c.expect(stop.exit_code == 14,
             "stop exit " + std::to_string(stop.exit_code) + ", expected 14: " + stop.err);
    c.expect(
        stop.err.find("n1 (" + host(1).address + "), the coordinator, is unreachable") != std::string::npos &&
            stop.err.find("WITHOUT the deploy lock") != std::string::npos,
        "stop does not say loudly that it ran without the lock, naming n1: " + stop.err);
    c.expect(eventually([&] { return c.live().size() == 2; }, std::chrono::seconds(10)),
             "not exactly n1's two units left running: " + std::to_string(c.live().size()) + " groups");

    local({"ip", "link", "set", host(1).veth, "up"});
    down = false;
    c.expect(wait_until_reachable(1), "n1 does not accept connections 20 s after its link came back");
    const auto history = c.cluster().run({"--json", "history", "--limit", "1"});
    const auto doc = json::parse(history.out, nullptr, false);
    c.expect(history.exit_code == 0 && doc.is_object() && doc["runs"].size() == 1 &&
                 doc["runs"][0].value("verb", "") == "stop" && doc["runs"][0].value("exit_code", -1) == 14,
             "history does not show the unlocked stop: " + history.out + history.err);
    c.expect_invariant();
}

}  // namespace
}  // namespace pdctl::testing::faults
