// The whole deployment over SSH with a real container runtime: the real pdctl binary drives the 8 hosts
// of the SSH test cluster (tests/cluster/up.sh: real sshd in network namespaces, podman per host), every
// unit a podman container of the pdsim image (tests/cluster/podman-image.sh), with the profile
// tests/profiles/ssh-podman: master on n1, prefill on n1–n4, decode on n5–n8, router on n5.
// Only the cluster's own addresses (10.77.0.0/24) are contacted.
#include "ssh_scenario.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_gpu.hpp"
#include "generate_stream.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "pdctl_process.hpp"
#include "ssh_cluster.hpp"
#include "text_edit.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

std::string generate(const std::string& address, int port) {
    httplib::Client client(address, port);
    client.set_connection_timeout(5, 0);
    client.set_read_timeout(30, 0);
    auto response =
        client.Post("/generate", R"({"text":"Hello over SSH","sampling_params":{"max_new_tokens":8}})",
                    "application/json");
    if (!response) return "no answer: " + httplib::to_string(response.error());
    if (response->status != 200) return "HTTP " + std::to_string(response->status) + ": " + response->body;
    const auto body = json::parse(response->body, nullptr, false);
    return body.is_object() ? body.value("text", "") : "not JSON: " + response->body;
}

TEST_F(SshScenarioTest, StartStatusGenerateStopWithPodmanOnEightHosts) {
    profile = write_profile(temp / "profile", "sshpod");

    const auto start = pdctl(profile, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.dump();

    // status --json: every role healthy, every unit running from the current config.
    const auto status = pdctl(profile, {"--json", "status"});
    EXPECT_EQ(status.exit_code, 0) << status.dump();
    const auto doc = json::parse(status.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << status.dump();
    EXPECT_EQ(doc["state"], "running") << status.out;
    ASSERT_EQ(doc["roles"].size(), 4u) << status.out;
    std::size_t units = 0;
    for (const auto& role : doc["roles"]) {
        EXPECT_TRUE(role["healthy"].get<bool>()) << role.dump();
        for (const auto& unit : role["units"]) {
            ++units;
            EXPECT_EQ(unit["state"], "running") << unit.dump();
            EXPECT_EQ(unit["config"], "current") << unit.dump();
            EXPECT_GT(unit["pid"].get<int>(), 0) << unit.dump();
        }
    }
    EXPECT_EQ(units, 10u) << status.out;
    EXPECT_TRUE(doc["unreachable"].empty()) << status.out;
    EXPECT_TRUE(doc["strays"].empty()) << status.out;

    // The containers are where the real deployment puts the roles, each on its own host.
    const std::string p = "pd-sshpod-";
    const std::map<std::string, std::vector<std::string>> expected = {
        {host(1).name, {p + "mooncake-master-0", p + "prefill-0"}},
        {host(2).name, {p + "prefill-1"}},
        {host(3).name, {p + "prefill-2"}},
        {host(4).name, {p + "prefill-3"}},
        {host(5).name, {p + "decode-0", p + "router-0"}},
        {host(6).name, {p + "decode-1"}},
        {host(7).name, {p + "decode-2"}},
        {host(8).name, {p + "decode-3"}},
    };
    auto placed = containers();
    for (auto& [host, names] : placed) names.erase(std::remove(names.begin(), names.end(), ""), names.end());
    EXPECT_EQ(placed, expected);

    // /generate through the router on n5: pdctl smoke, and a request of our own.
    const auto smoke = pdctl(profile, {"smoke"});
    EXPECT_EQ(smoke.exit_code, 0) << smoke.dump();
    const auto text = generate(cluster.hosts.at(4).address, 31000);
    EXPECT_FALSE(text.empty()) << "empty text from /generate";
    EXPECT_EQ(text.find("HTTP "), std::string::npos) << text;
    EXPECT_EQ(text.find("no answer"), std::string::npos) << text;

    // pdctl bench: the validation scenario through the router on n5 (no capacities set: as fast as the
    // hosts go), every request streamed and passed, the run journaled on the coordinator n1.
    const auto bench =
        pdctl(profile, {"--json", "bench", "--scenario", "validation", "--requests", "2", "--warmup", "1"});
    EXPECT_EQ(bench.exit_code, 0) << bench.dump();
    const auto bench_doc = json::parse(bench.out, nullptr, false);
    ASSERT_TRUE(bench_doc.is_object()) << bench.dump();
    EXPECT_EQ(bench_doc["url"], "http://" + cluster.hosts.at(4).address + ":31000/generate");
    EXPECT_EQ(bench_doc["pd"], "1P:1D");
    ASSERT_EQ(bench_doc["rows"].size(), 3u) << bench.out;
    for (const auto& row : bench_doc["rows"]) {
        EXPECT_EQ(row["levels"][0]["ok"], 2) << row.dump();
        EXPECT_EQ(row["levels"][0]["output_tokens"], 2 * row["output_tokens"].get<int>()) << row.dump();
    }
    const auto history = pdctl(profile, {"--json", "history", "--limit", "1"});
    const auto history_doc = json::parse(history.out, nullptr, false);
    ASSERT_TRUE(history_doc.is_object()) << history.dump();
    EXPECT_EQ(history_doc["journal"], "n1:/root/pdctl-state/sshpod/journal.jsonl") << history.out;
    ASSERT_EQ(history_doc["runs"].size(), 1u) << history.out;
    EXPECT_EQ(history_doc["runs"][0]["verb"], "bench");
    EXPECT_EQ(history_doc["runs"][0]["run"], bench_doc["run"]);

    // Start is convergent: the labels read back from podman say every unit runs the current config.
    const auto again = pdctl(profile, {"start"});
    EXPECT_EQ(again.exit_code, 0) << again.dump();
    EXPECT_NE(again.out.find("nothing changed"), std::string::npos) << again.dump();

    // A second pdctl process, from another directory and HOME, knows nothing but the nodes: same state.
    const auto second_profile = write_profile(temp / "second", "sshpod");
    const auto second = pdctl(second_profile, {"--json", "status"}, "second-home");
    EXPECT_EQ(second.exit_code, 0) << second.dump();
    const auto second_doc = json::parse(second.out, nullptr, false);
    ASSERT_TRUE(second_doc.is_object()) << second.dump();
    EXPECT_EQ(comparable(second_doc), comparable(doc));

    const auto stop = pdctl(profile, {"stop"});
    EXPECT_EQ(stop.exit_code, 0) << stop.dump();
    const auto after = pdctl(profile, {"--json", "status"});
    EXPECT_EQ(after.exit_code, 8) << after.dump();
    const auto after_doc = json::parse(after.out, nullptr, false);
    ASSERT_TRUE(after_doc.is_object()) << after.dump();
    EXPECT_EQ(after_doc["state"], "stopped") << after.out;

    for (const auto& [host, names] : containers())
        EXPECT_TRUE(names.empty()) << host << " still has containers after stop: " << names.front();
    // The env files (they can hold secrets) go with their containers.
    const auto env_files = on_every_host("find /root/pdctl-state -name '*.env' 2>/dev/null");
    for (std::size_t i = 0; i < env_files.size(); ++i)
        EXPECT_EQ(env_files[i].out, "") << cluster.hosts[i].name << " keeps env files after stop";

    std::printf(
        "[ timing ] ssh+podman, 10 units on 8 hosts: start %lld ms, status %lld ms, smoke %lld ms, "
        "bench (validation, 9 requests) %lld ms, second-process status %lld ms, stop %lld ms\n",
        start.ms, status.ms, smoke.ms, bench.ms, second.ms, stop.ms);
    RecordProperty("start_ms", std::to_string(start.ms));
    RecordProperty("stop_ms", std::to_string(stop.ms));
}

// `pdctl bench --rate ramp --slo ...` over SSH finds the rate a deployment saturates at and journals
// it. The prefill computes 8 tokens a second per GPU × TP 32: a 64-token prompt takes 0.25 s, so the
// group serves 4 requests a second at most; above that its queue grows and TTFT with it.
TEST_F(SshScenarioTest, BenchRampFindsTheSaturationPointAndKeepsEveryRequest) {
    profile = write_profile(temp / "profile", "sshramp", "PDSIM_PREFILL_TOKENS_PER_S=8\n");
    const auto start = pdctl(profile, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.dump();

    const auto requests_file = temp / "requests.jsonl";
    const auto bench = pdctl(profile, {"--json", "bench", "--input", "64", "--output", "4", "--rate", "ramp",
                                       "--slo", "ttft=600ms", "--requests", "8", "--warmup", "1",
                                       "--save-requests", requests_file.string()});
    EXPECT_EQ(bench.exit_code, 0) << bench.dump();
    const auto doc = json::parse(bench.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << bench.dump();
    // At 8/s the eight requests arrive within about a second and leave 0.25 s apart: the last ones wait
    // over a second for their first token, so 8/s cannot hold; half a request a second always does.
    ASSERT_TRUE(doc["saturation_rps"].is_number()) << bench.out;
    const double saturation = doc["saturation_rps"];
    EXPECT_GE(saturation, 0.5) << bench.out;
    EXPECT_LT(saturation, 8.0) << bench.out;
    ASSERT_GE(doc["ramp"].size(), 3u) << bench.out;
    bool some_failed = false;
    for (const auto& step : doc["ramp"]) some_failed = some_failed || !step["held"].get<bool>();
    EXPECT_TRUE(some_failed) << "a saturation point is bracketed by a rate that did not hold: " << bench.out;

    // --save-requests: one line per measured request of every level the ramp ran.
    std::size_t measured = 0;
    for (const auto& level : doc["rows"][0]["levels"])
        measured += level["ok"].get<std::size_t>() + level["failed"].get<std::size_t>();
    std::ifstream lines(requests_file);
    std::size_t written = 0;
    for (std::string line; std::getline(lines, line); ++written) {
        const auto request = json::parse(line, nullptr, false);
        ASSERT_TRUE(request.is_object()) << line;
        EXPECT_EQ(request["ok"], true) << line;
        EXPECT_GT(request["ttft_s"].get<double>(), 0) << line;
        EXPECT_EQ(request["itl_s"].size(), 3u) << line;
    }
    EXPECT_EQ(written, measured);
    EXPECT_EQ(measured, 8 * doc["ramp"].size());

    // The journal on the coordinator keeps the run and what it found.
    const auto history = pdctl(profile, {"--json", "history", "--limit", "1"});
    const auto history_doc = json::parse(history.out, nullptr, false);
    ASSERT_TRUE(history_doc.is_object()) << history.dump();
    ASSERT_EQ(history_doc["runs"].size(), 1u) << history.out;
    EXPECT_EQ(history_doc["runs"][0]["run"], doc["run"]);
    EXPECT_NE(history.out.find("saturation"), std::string::npos) << history.out;
}

TEST_F(SshScenarioTest, TwoStartsAtOnceOneProceedsThenLogsAndHistoryReadTheNodes) {
    profile = write_profile(temp / "profile", "sshlock");
    // Two operators (two HOMEs) start the same cluster at the same moment: the deploy lock on n1 lets
    // exactly one through; the other is refused with exit 6, naming the holder, and touches nothing.
    auto first = std::async(std::launch::async, [&] { return pdctl(profile, {"start"}, "alice"); });
    auto second = std::async(std::launch::async, [&] { return pdctl(profile, {"start"}, "bob"); });
    const auto a = first.get();
    const auto b = second.get();
    const auto& won = a.exit_code == 0 ? a : b;
    const auto& lost = a.exit_code == 0 ? b : a;
    ASSERT_EQ(won.exit_code, 0) << "first:\n" << a.dump() << "\nsecond:\n" << b.dump();
    EXPECT_EQ(lost.exit_code, 6) << lost.dump();
    EXPECT_NE(lost.err.find("deploy lock held by root@"), std::string::npos) << lost.dump();
    EXPECT_NE(lost.err.find(", start, since "), std::string::npos) << lost.dump();
    EXPECT_NE(lost.err.find("n1:/root/pdctl-state/sshlock/lock"), std::string::npos) << lost.dump();
    EXPECT_EQ(lost.out.find("stage"), std::string::npos) << "the refused start must not begin a stage";

    // logs over SSH: one rank, and every unit of a role with node/rank prefixes.
    const auto rank = pdctl(profile, {"logs", "prefill", "--rank", "2", "--tail", "5"});
    EXPECT_EQ(rank.exit_code, 0) << rank.dump();
    EXPECT_FALSE(rank.out.empty()) << rank.dump();
    const auto all = pdctl(profile, {"logs", "decode", "--tail", "3"});
    EXPECT_EQ(all.exit_code, 0) << all.dump();
    for (const char* prefix : {"[n5 rank0]", "[n6 rank1]", "[n7 rank2]", "[n8 rank3]"})
        EXPECT_NE(all.out.find(prefix), std::string::npos) << prefix << "\n" << all.dump();

    const auto stop = pdctl(profile, {"stop"}, "alice");
    EXPECT_EQ(stop.exit_code, 0) << stop.dump();

    // history from the coordinator's journal, read by a third HOME that ran nothing itself.
    const auto history = pdctl(profile, {"--json", "history"}, "carol");
    ASSERT_EQ(history.exit_code, 0) << history.dump();
    const auto runs = json::parse(history.out, nullptr, false);
    ASSERT_TRUE(runs.is_object() || runs.is_array()) << history.dump();
    const auto& list = runs.is_array() ? runs : runs["runs"];
    ASSERT_GE(list.size(), 2u) << history.out;
    EXPECT_EQ(list[0]["verb"], "stop") << history.out;
    EXPECT_EQ(list[0]["result"], "success") << history.out;
    EXPECT_EQ(list[1]["verb"], "start") << history.out;
    EXPECT_EQ(list[1]["result"], "success") << history.out;
}

TEST_F(SshScenarioTest, CrashOfPrefillRank2FailsTheStartNamingN3AndLeavesNothingRunning) {
    // Loading weights takes 6 s on every rank and rank 2 crashes half-way through. The other ranks
    // notice the loss only after 5 s, as NCCL would after a timeout, so rank 2 is the only unit that
    // has exited for 5 s, and rank 0 cannot pass the gate for 3.6 s (the rest of its weights and the
    // later phases): pdctl's liveness watch (every 500 ms) must name n3 whatever the load here.
    profile = write_profile(temp / "profile", "sshcrash",
                            "PDSIM_WEIGHTS_MS=6000\nPDSIM_CRASH_AT=weights\nPDSIM_CRASH_RANK=2\n"
                            "PDSIM_PEER_DEATH_MS=5000\n");

    const auto start = pdctl(profile, {"--json", "start"});
    EXPECT_EQ(start.exit_code, 4) << start.dump();

    json failed;
    for (const auto& event : start.events())
        if (event.is_object() && event.value("event", "") == "stage_failed") failed = event;
    ASSERT_FALSE(failed.is_null()) << start.dump();
    EXPECT_EQ(failed["role"], "prefill");
    EXPECT_EQ(failed["node"], "n3") << start.dump();
    EXPECT_EQ(failed["rank"], 2) << failed.dump();
    EXPECT_EQ(failed["reason"], "exited (code 1)");
    const auto log = failed["log_tail"].dump();  // read with `podman logs` over SSH
    EXPECT_NE(log.find("Load weight begin"), std::string::npos) << log;
    EXPECT_NE(log.find("bootstrap: mooncake"), std::string::npos)
        << "BOOTSTRAP ran in the container: " << log;
    for (const auto& event : start.events()) {
        if (event.is_object() && event.value("verb", "") == "start") {
            EXPECT_NE(event.value("role", ""), "decode") << "decode must not start: " << event.dump();
        }
    }

    for (const auto& [host, names] : containers())
        EXPECT_TRUE(names.empty()) << host
                                   << " still has containers after the failed start: " << names.front();
    const auto status = pdctl(profile, {"--json", "status"});
    const auto doc = json::parse(status.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << status.dump();
    EXPECT_EQ(doc["state"], "stopped") << status.out;
    std::printf("[ timing ] ssh+podman, crash of prefill rank 2: start failed and cleaned up in %lld ms\n",
                start.ms);
}

// n5–n8 (decode and the router) are configured, as on a cluster behind a bastion, on a port that only
// the bastion may reach: `auto` takes OpenSSH with ProxyJump for them and keeps libssh2 for n1–n4.
TEST_F(SshScenarioTest, TheDecodeNodesOnlyThroughABastion) {
    const auto ssh_config = temp / "ssh_config";
    std::string behind = "Host";
    for (int i = 5; i <= 8; ++i) behind += " " + host(i).address;
    // The jump itself is a second ssh, given pdctl's policy by the -F file pdctl writes; the config says
    // the same, as an operator's ~/.ssh/config might.
    spit(ssh_config,
         behind + "\n  Port " + std::to_string(cluster.behind_port) + "\n  ProxyJump root@" +
             cluster.bastion_address + "\nHost *\n  UserKnownHostsFile " + cluster.behind_known_hosts +
             "\n  StrictHostKeyChecking yes\n  BatchMode yes\n  IdentityFile " + cluster.key + "\n");
    pdctl_env = {"PDCTL_SSH_CONFIG=" + ssh_config.string(),
                 "PDCTL_KNOWN_HOSTS=" + cluster.behind_known_hosts};
    profile = write_profile(temp / "profile", "sshjump");

    // Straight from here, the decode nodes' port refuses: the bastion is the only way in.
    const auto direct =
        local({"sh", "-c",
               "ssh -F /dev/null -o BatchMode=yes -o ConnectTimeout=5 -p " +
                   std::to_string(cluster.behind_port) + " " + host(5).address + " true 2>&1; true"});
    EXPECT_NE(direct.out.find("Connection refused"), std::string::npos) << direct.out;

    const auto jump = transport_line("n5–n8");
    EXPECT_NE(jump.find("openssh  ProxyJump root@"), std::string::npos) << jump;
    // Its file holds nothing OpenSSH alone evaluates: pdctl reads it itself, no `ssh -G` per node.
    EXPECT_NE(transport_line("n1–n4").find("libssh2  nothing in the ssh config needs OpenSSH"),
              std::string::npos)
        << transport_line("n1–n4");
    start_status_smoke_stop();
}

// An RSA key, the default of ssh-keygen on Debian 12: libssh2 1.10 cannot sign with it for OpenSSH
// 9.2's sshd, so `auto` takes OpenSSH for every node.
TEST_F(SshScenarioTest, AnRsaKeyOnEveryNode) {
    profile = write_profile(temp / "profile", "sshrsa", {}, cluster.rsa_key);
    EXPECT_NE(transport_line("n1–n8").find("openssh  RSA key " + cluster.rsa_key + " only"),
              std::string::npos)
        << transport_line("n1–n8");
    start_status_smoke_stop();
}

// A user certificate signed by the CA the hosts trust, and hosts known only through their host CA.
TEST_F(SshScenarioTest, CertificatesForTheUserAndTheHosts) {
    pdctl_env = {"PDCTL_KNOWN_HOSTS=" + cluster.ca_known_hosts};
    profile = write_profile(temp / "profile", "sshcert", {}, cluster.cert_key);
    EXPECT_NE(transport_line("n1–n8").find("openssh  certificate " + cluster.cert_key + "-cert.pub"),
              std::string::npos)
        << transport_line("n1–n8");
    start_status_smoke_stop();
}

// restart --rolling over SSH: two decode groups (n5–n6, n7–n8) behind SMG, restarted one at a time in
// their containers while a stream of /generate requests through the router fails not one.
TEST_F(SshScenarioTest, ARollingDecodeRestartThroughSmgFailsNoRequest) {
    profile = write_profile(temp / "profile", "sshroll");
    auto text = slurp(profile);
    two_groups_each(text, "smg", false);
    spit(profile, text);
    const auto start = pdctl(profile, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.dump();

    GenerateStream stream(host(5).address, 31000);
    const auto rolling = pdctl(profile, {"restart", "--role", "decode", "--rolling", "--drain-grace", "1s"});
    stream.stop();
    ASSERT_EQ(rolling.exit_code, 0) << rolling.dump();
    EXPECT_NE(rolling.out.find("decode-2 is back in router and ready"), std::string::npos) << rolling.out;
    EXPECT_GT(stream.sent(), 20) << "the stream ran during the roll";
    EXPECT_TRUE(stream.failures().empty()) << stream.failures().size() << " of " << stream.sent()
                                           << " requests failed:" << first_failures(stream.failures()) << "\n"
                                           << rolling.out;
    std::printf("[ timing ] ssh rolling restart of 2 decode groups: %lld ms, %d requests, 0 failed\n",
                rolling.ms, stream.sent());

    // A group stopped for maintenance stays stopped: heal names who stopped it and touches nothing.
    const auto stop = pdctl(profile, {"stop", "--group", "decode-2"});
    ASSERT_EQ(stop.exit_code, 0) << stop.dump();
    EXPECT_NE(stop.out.find("decode-2 (http://" + host(7).address + ":30000) taken out of router"),
              std::string::npos)
        << stop.out;
    const auto heal = pdctl(profile, {"heal"});
    EXPECT_EQ(heal.exit_code, 0) << heal.dump();
    EXPECT_NE(heal.out.find("leave decode-2 stopped: stopped on purpose by "), std::string::npos) << heal.out;
    EXPECT_NE(heal.out.find("`pdctl start --group decode-2` brings it back"), std::string::npos) << heal.out;
    EXPECT_EQ(heal.out.find("restart"), std::string::npos) << heal.out;
    const auto status = pdctl(profile, {"status"});
    EXPECT_EQ(status.exit_code, 0) << status.dump();
    EXPECT_NE(status.out.find("decode-2: stopped* on purpose"), std::string::npos) << status.out;
}

// pdctl drill partition on the SSH test cluster (issue 31): n7, where decode-2's rank 0 serves, loses
// its link for 10 s while requests flow through SMG. Status sees the group's gate fail; once the link
// is back the deployment serves again without a person. (A rank >= 1 node cut off for less than a
// command's timeout is invisible to pdsim, whose ranks talk only at start-up: real NCCL ranks would
// fail.) The numbers are docs/drills.md's.
TEST_F(SshScenarioTest, APartitionedNodeIsDetectedAndTheDeploymentRecoversWithoutAPerson) {
    profile = write_profile(temp / "profile", "sshdrill");
    auto text = slurp(profile);
    two_groups_each(text, "smg", false);
    spit(profile, "drills: allowed\n" + text);
    const auto start = pdctl(profile, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.dump();

    const auto drill = pdctl(profile,
                             {"--json", "drill", "partition", "--node", "n7", "--partition-time", "10s",
                              "--deadline", "60s", "--concurrency", "2"},
                             "home", std::chrono::seconds(100));
    EXPECT_EQ(drill.exit_code, 0) << drill.dump();
    json result;
    for (const auto& line : drill.events())
        if (line.contains("recover_ms")) result = line;
    ASSERT_TRUE(result.is_object()) << drill.dump();
    EXPECT_NE(result.value("target", "").find("n7 (" + host(7).address + ") cut off for 10.0s"),
              std::string::npos)
        << result.dump(2);
    EXPECT_GE(result.value("detect_ms", -1LL), 0) << result.dump(2);
    EXPECT_GT(result.value("recover_ms", -1LL), 10000) << "not before the link came back: " << result.dump(2);
    EXPECT_EQ(result.value("needed_person", true), false) << result.dump(2);
    std::printf(
        "[ drill ] partition: %s; %d of %d requests failed (%.1fs to %.1fs after the fault); detected after "
        "%lld "
        "ms; recovered after %lld ms by %s, %d heal pass(es)\n",
        result.value("target", "").c_str(), result.value("failed", 0), result.value("sent", 0),
        result.value("first_failure_s", -1.0), result.value("last_failure_s", -1.0),
        result.value("detect_ms", -1LL), result.value("recover_ms", -1LL),
        result.value("recovered_by", "").c_str(), result.value("heal_passes", 0));
    EXPECT_EQ(pdctl(profile, {"status"}).exit_code, 0);
}

// docs/migrating.md on the SSH test cluster: the deployment pdctl replaces runs as the old script runs
// it — one podman container per rank, `--network host`, named by hand, no pdctl label — and serves.
// `start --take-over --dry-run` names every one of its containers and touches nothing; `start
// --take-over` stops them (kept, not removed), starts pdctl's own, and /generate passes again. The
// downtime is measured from the client's side: the last answer of the old router to the first of the new.
TEST_F(SshScenarioTest, TakeOverOfTheOldScriptsContainersMeasuresTheDowntime) {
    profile = write_profile(temp / "profile", "sshtake");
    const auto plan = json::parse(pdctl(profile, {"--json", "plan"}).out, nullptr, false);
    ASSERT_TRUE(plan.is_object());
    std::vector<std::string> old_names;
    const auto started = on_every_host([&](int i) {
        std::string script = "set -e\n";
        for (const auto& stage : plan["stages"])
            for (const auto& unit : stage["units"]) {
                if (unit["node"] != "n" + std::to_string(i)) continue;
                const std::string name =
                    "old_" + stage["role"].get<std::string>() + "_" + std::to_string(unit["rank"].get<int>());
                std::vector<std::string> argv = {"podman", "run", "-d", "--name", name, "--network", "host"};
                for (const auto& var : unit["env"])
                    argv.insert(argv.end(), {"-e", var["key"].get<std::string>() + "=" +
                                                       var["value"].get<std::string>()});
                argv.push_back(image);
                for (const auto& word : unit["program"]) argv.push_back(word.get<std::string>());
                script += util::join_command(argv) + " >/dev/null\n";
            }
        return exec::Command{{"sh", "-c", script}, {}, std::chrono::seconds(60)};
    });
    for (std::size_t i = 0; i < started.size(); ++i)
        ASSERT_TRUE(started[i].ok()) << "host " << i + 1 << started[i].err;
    // What the client counts as served: text, not an error the harness put into words.
    const auto served_text = [](const std::string& text) {
        return !text.empty() && text.rfind("no answer", 0) != 0 && text.rfind("HTTP ", 0) != 0 &&
               text.rfind("not JSON", 0) != 0;
    };
    ASSERT_TRUE(
        eventually([&] { return served_text(generate(host(5).address, 31000)); }, std::chrono::seconds(60)))
        << "the old deployment never served";

    const auto dry = pdctl(profile, {"--json", "start", "--take-over", "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry.dump();
    const auto holders = json::parse(dry.out, nullptr, false);
    ASSERT_TRUE(holders.is_object()) << dry.dump();
    std::vector<std::string> named;
    for (const auto& holder : holders["holders"]) {
        EXPECT_EQ(holder["kind"], "container") << holder.dump();
        named.push_back(holder["node"].get<std::string>() + ":" + holder["name"].get<std::string>());
    }
    std::sort(named.begin(), named.end());
    EXPECT_EQ(named, (std::vector<std::string>{"n1:old_mooncake-master_0", "n1:old_prefill_0",
                                               "n2:old_prefill_1", "n3:old_prefill_2", "n4:old_prefill_3",
                                               "n5:old_decode_0", "n5:old_router_0", "n6:old_decode_1",
                                               "n7:old_decode_2", "n8:old_decode_3"}));
    EXPECT_TRUE(served_text(generate(host(5).address, 31000))) << "the dry run touched the old deployment";

    // A client asking all along: the outage is the time between the old router's last answer and the
    // new router's first.
    std::atomic<bool> running{true};
    std::atomic<bool> served_again{false};
    std::atomic<bool> old_served{false};
    Clock::time_point last_old{}, first_new{};  // written by the client thread only, read after it ends
    bool outage = false;
    std::vector<std::string> answers;  // what the client saw, for the failure message
    std::thread client([&] {
        while (running) {
            const auto text = generate(host(5).address, 31000);
            const bool answered = served_text(text);
            if (answers.size() < 20 || answered != (answers.back().rfind("ok", 0) == 0))
                answers.push_back((answered ? "ok: " : "failed: ") + text.substr(0, 120));
            if (answered && !outage) {
                last_old = Clock::now();
                old_served = true;
            }
            if (!answered) outage = true;
            if (answered && outage && !served_again) {
                first_new = Clock::now();
                served_again = true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    struct Join {
        std::atomic<bool>& running;
        std::thread& thread;
        ~Join() {
            running = false;
            if (thread.joinable()) thread.join();
        }
    } join_client{running, client};
    ASSERT_TRUE(eventually([&] { return old_served.load(); }, std::chrono::seconds(20)))
        << "the old deployment does not answer the client";
    const auto take = pdctl(profile, {"start", "--take-over"});
    const bool served = eventually([&] { return served_again.load(); }, std::chrono::seconds(30));
    running = false;
    client.join();  // before reading what it wrote
    std::string seen;
    for (const auto& answer : answers) seen += "\n  " + answer;
    ASSERT_TRUE(served) << "the new router never answered: " << take.dump() << seen;
    ASSERT_NE(last_old, Clock::time_point{}) << "the old router never answered the client:" << seen;
    ASSERT_EQ(take.exit_code, 0) << take.dump();
    EXPECT_NE(take.out.find("take-over: stopped container old_prefill_0 (" + image + ") on n1"),
              std::string::npos)
        << take.out;
    EXPECT_EQ(pdctl(profile, {"smoke"}).exit_code, 0);
    // The old containers are kept, stopped, for the way back; pdctl's run.
    const auto kept = on_every_host("podman ps --all --filter name=old_ --format '{{.Names}} {{.Status}}'");
    for (std::size_t i = 0; i < kept.size(); ++i)
        EXPECT_EQ(kept[i].out.find("running"), std::string::npos)
            << host(static_cast<int>(i) + 1).name << kept[i].out;
    EXPECT_NE(kept[0].out.find("old_prefill_0 Exited"), std::string::npos) << kept[0].out;
    const auto downtime_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(first_new - last_old).count();
    std::printf(
        "[ timing ] take-over of 10 old containers on 8 hosts: start --take-over %lld ms, downtime "
        "%lld ms (last answer of the old router to the first of the new)\n",
        take.ms, static_cast<long long>(downtime_ms));
    RecordProperty("downtime_ms", std::to_string(downtime_ms));
}

// pdctl exec over SSH: output folded by identical text with the nodes that printed it, the odd node's
// own exit code, hostile arguments arriving byte for byte, and --in-container in the podman containers.
TEST_F(SshScenarioTest, ExecFoldsOutputNamesTheFailingNodeKeepsArgumentsAndRunsInContainers) {
    profile = write_profile(temp / "profile", "sshexec");
    // Only n3 differs: SSH_CONNECTION names the address the client reached.
    const std::string odd = host(3).address;
    const auto folded = pdctl(
        profile, {"exec", "--", "sh", "-c",
                  "case \"$SSH_CONNECTION\" in *\" " + odd + " \"*) echo odd; exit 4;; *) echo same;; esac"});
    EXPECT_EQ(folded.exit_code, 13) << folded.dump();
    EXPECT_EQ(folded.out,
              "── n1–n2, n4–n8 (7) ──\nsame\n── n3 (1) ──\nodd\nexit 0: n1–n2, n4–n8 · exit 4: n3\n")
        << folded.dump();

    const std::vector<std::string> hostile = {"a b", "$HOME", "'q'", "`id`", ";rm -rf /tmp/x",
                                              "*",   "\"",    "\\n"};
    std::vector<std::string> args = {"--json", "exec", "--node", "n2", "--", "printf", "%s\\n"};
    args.insert(args.end(), hostile.begin(), hostile.end());
    const auto quoted = pdctl(profile, args);
    ASSERT_EQ(quoted.exit_code, 0) << quoted.dump();
    std::string expected;
    for (const auto& arg : hostile) expected += arg + "\n";
    const auto doc = json::parse(quoted.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << quoted.dump();
    EXPECT_EQ(doc["nodes"][0]["stdout"], expected);

    ASSERT_EQ(pdctl(profile, {"start"}).exit_code, 0);
    const auto inside = pdctl(profile, {"exec", "--role", "decode", "--in-container", "--", "sh", "-c",
                                        "test -x /usr/local/bin/pdsim && echo in the pdsim image"});
    EXPECT_EQ(inside.exit_code, 0) << inside.dump();
    EXPECT_EQ(inside.out, "── n5–n8 (4) ──\nin the pdsim image\nexit 0: n5–n8\n") << inside.dump();
    const auto host_side =
        pdctl(profile, {"exec", "--role", "decode", "--", "test", "-x", "/usr/local/bin/pdsim"});
    EXPECT_EQ(host_side.exit_code, 13) << "the host has no pdsim there: " << host_side.dump();
}

// exec --stream over both SSH transports: each node's first line is printed while its command still
// runs. The command waits (bounded) for a file that a reader of pdctl's output creates once it saw
// every node's first line, so without streaming nothing arrives in time and every node reports so.
TEST_F(SshScenarioTest, ExecStreamPrintsEachNodesLinesWhileItsCommandRuns) {
    for (const std::string transport : {"libssh2", "openssh"}) {
        SCOPED_TRACE(transport);
        profile = write_profile(temp / ("stream-" + transport), "sshstream");
        auto text = slurp(profile);
        replace_all(text, "port: 22,", "port: 22, transport: " + transport + ",");
        spit(profile, text);
        const auto go = temp / ("go-" + transport);
        exec::Command command;
        command.argv = {
            "sh",
            "-c",
            "go=$1; shift; \"$@\" 2>&1 | { n=0; while IFS= read -r line; do printf '%s\\n' \"$line\"; "
            "case $line in *': first') n=$((n + 1)); [ \"$n\" -eq 8 ] && : > \"$go\";; esac; done; }",
            "stream-reader",
            go.string(),
            "env",
            "-u",
            "SSH_AUTH_SOCK",
            "HOME=" + (temp / "home").string(),
            "PDCTL_KNOWN_HOSTS=" + cluster.known_hosts,
            pdctl::testing::pdctl_binary(),
            "-c",
            profile.string(),
            "exec",
            "--stream",
            "--",
            "sh",
            "-c",
            "echo first; i=0; while [ ! -e \"$1\" ] && [ \"$i\" -lt 300 ]; do sleep 0.05; i=$((i + 1)); "
            "done; "
            "if [ -e \"$1\" ]; then echo second; else echo 'not streamed'; exit 1; fi",
            "node-script",
            go.string()};
        command.timeout = std::chrono::seconds(60);
        std::filesystem::create_directories(temp / "home");
        const auto run = exec::LocalExecutor().run(config::Node{}, command);
        EXPECT_EQ(run.out.find("not streamed"), std::string::npos) << run.out << run.err;
        EXPECT_NE(run.out.find("exit 0: n1–n8\n"), std::string::npos) << run.out << run.err;
        // Every node's first line before any second line.
        EXPECT_LT(run.out.rfind(": first\n"), run.out.find(": second\n")) << run.out;
        for (int n = 1; n <= 8; ++n)
            EXPECT_NE(run.out.find("n" + std::to_string(n) + ": second\n"), std::string::npos) << run.out;
    }
}

// A rank that hangs in podman containers over SSH: start names it stalled, status reads every rank
// through `podman logs --timestamps`, and stack runs the stand-in py-spy inside the slim image (no awk,
// no cat: the target pid is found by the shell alone).
TEST_F(SshScenarioTest, AHungRankInPodmanIsStalledInStartAndStatusAndTheOddOneOutInStack) {
    profile = write_profile(temp / "profile", "sshhang", "PDSIM_HANG_AT=kv\nPDSIM_HANG_RANK=2\n");
    auto text = slurp(profile);
    replace_all(text, "    mode: prefill\n", "    mode: prefill\n    stall_after: 3s\n");
    replace_all(
        text, "    tp_size: 32\n    ep_size: 32\n    health: {deadline: 60s, interval: 200ms}\n\n  decode:",
        "    tp_size: 32\n    ep_size: 32\n    health: {deadline: 12s, interval: 200ms}\n\n  decode:");
    spit(profile, text);

    const auto start = pdctl(profile, {"start", "--keep-on-failure"});
    EXPECT_EQ(start.exit_code, 5) << start.dump();
    EXPECT_NE(start.out.find("prefill n3 rank2 stalled while allocating KV cache"), std::string::npos)
        << start.dump();
    EXPECT_NE(start.out.find("rank 2 on n3 stalled while allocating KV cache"), std::string::npos)
        << start.dump();

    const auto status = pdctl(profile, {"--json", "status", "--role", "prefill"});
    EXPECT_EQ(status.exit_code, 7) << status.dump();
    const auto doc = json::parse(status.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << status.dump();
    for (const auto& unit : doc["roles"][0]["units"]) {
        EXPECT_EQ(unit["progress"], unit["rank"] == 2 ? "stalled" : "waiting") << unit.dump();
        EXPECT_GE(unit["log_quiet_seconds"].get<long long>(), 3) << unit.dump();
    }

    const auto stack = pdctl(profile, {"stack", "--role", "prefill"});
    EXPECT_EQ(stack.exit_code, 0) << stack.dump();
    EXPECT_NE(
        stack.out.find("rank 2 on n3 is in `_create_buffers (sglang/srt/mem_cache/memory_pool.py)` while "
                       "ranks 0,1,3 are in `broadcast_pyobj (sglang/srt/utils/common.py)`"),
        std::string::npos)
        << stack.dump();
}

}  // namespace
}  // namespace pdctl::testing
