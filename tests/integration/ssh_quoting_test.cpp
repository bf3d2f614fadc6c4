// Quoting is injection-proof over the real SSH path: thousands of seeded hostile strings (quotes, $(),
// backticks, `;`, NUL-free bytes, unicode, leading dashes, canary commands) go through SshExecutor —
// argv → util::join_command → sshd → the login shell — as program arguments, as positional parameters of
// bash and sh scripts, as env values and arguments through the process runtime's real start script, and
// as file names through SFTP upload plus the push scripts. The remote side must receive exactly those
// bytes, and the canary file (/root/CANARY on every host) must never appear.
#include <gtest/gtest.h>

#include <set>

#include "pdctl/plan/plan.hpp"
#include "pdctl/push/pusher.hpp"
#include "pdctl/runtime/process_runtime.hpp"
#include "pdctl/util/sha256.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "ssh_cluster.hpp"
#include "unit/support/hostile_strings.hpp"
#include "unit/support/process_unit_ended.hpp"

namespace pdctl::testing {
namespace {

using exec::Command;
using exec::SshExecutor;

constexpr const char* kCanary = "/root/CANARY";
constexpr std::size_t kWordsPerCommand = 200;

class SshQuotingTest : public SshClusterTest {
  protected:
    void SetUp() override {
        SshClusterTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        seed = quoting_seed(20260519);
        std::printf("[ quoting ] seed %llu (override with PDCTL_QUOTING_SEED)\n",
                    static_cast<unsigned long long>(seed));
        executor = std::make_unique<SshExecutor>(cluster.options());
        remove_canaries();
    }
    void TearDown() override {
        if (executor) {
            for (int i = 1; i <= 8; ++i)
                EXPECT_FALSE(canary_exists(i))
                    << "an injected command ran on " << host(i).name << ", seed " << seed;
            remove_canaries();
        }
        SshClusterTest::TearDown();
    }

    // Checked on the host itself: /root is the host's own directory (bind-mounted by up.sh).
    bool canary_exists(int i) {
        const auto result =
            executor->run(cluster.node(i), Command{{"test", "-e", kCanary}, {}, std::chrono::seconds(10)});
        EXPECT_TRUE(result.transport_error.empty()) << result.transport_error;
        return result.exit_code == 0;
    }
    void remove_canaries() {
        for (int i = 1; i <= 8; ++i)
            executor->run(cluster.node(i), Command{{"rm", "-f", kCanary}, {}, std::chrono::seconds(10)});
    }

    exec::CommandResult run(int i, std::vector<std::string> argv, std::string stdin_data = {}) {
        const auto result = executor->run(
            cluster.node(i), Command{std::move(argv), std::move(stdin_data), std::chrono::seconds(30)});
        EXPECT_TRUE(result.ok()) << "exit " << result.exit_code << " " << result.transport_error
                                 << result.err;
        return result;
    }

    void expect_same(const std::vector<std::string>& sent, const std::vector<std::string>& seen,
                     const std::string& via) {
        ASSERT_EQ(seen.size(), sent.size()) << via << ", seed " << seed;
        for (std::size_t i = 0; i < sent.size(); ++i)
            ASSERT_EQ(seen[i], sent[i]) << via << ", seed " << seed << ", word " << i << ": sent "
                                        << hex(sent[i]) << ", got " << hex(seen[i]);
    }

    std::uint64_t seed = 0;
    std::unique_ptr<SshExecutor> executor;
};

TEST_F(SshQuotingTest, ArgvAndScriptParametersArriveByteForByte) {
    const int cases = quoting_cases(8000);
    HostileStrings strings(seed, kCanary);
    const auto started = Clock::now();
    int commands = 0;
    for (int done = 0, host_index = 0; done < cases;
         done += static_cast<int>(kWordsPerCommand), ++host_index) {
        const int i = 1 + host_index % 8;
        const auto words = strings.batch(std::min<std::size_t>(kWordsPerCommand, cases - done));
        auto with = [&](std::vector<std::string> prefix) {
            prefix.insert(prefix.end(), words.begin(), words.end());
            ++commands;
            return split_nul(run(i, prefix).out);
        };
        expect_same(words, with({"printf", "%s\\0"}), "argv of printf on " + host(i).name);
        expect_same(words, with({"bash", "-c", "printf '%s\\0' \"$@\"", "pdctl-quoting"}), "bash -c \"$@\"");
        expect_same(words, with({"sh", "-c", "for a; do printf '%s\\0' \"$a\"; done", "pdctl-quoting"}),
                    "sh -c for a");
        // A whole command line as one word, nested once more (how BOOTSTRAP travels).
        std::vector<std::string> inner = {"printf", "%s\\0"};
        inner.insert(inner.end(), words.begin(), words.begin() + std::min<std::size_t>(words.size(), 40));
        ++commands;
        expect_same({inner.begin() + 2, inner.end()},
                    split_nul(run(i, {"bash", "-c", util::join_command(inner)}).out), "nested bash -c");
        if (HasFatalFailure()) return;
    }
    std::printf("[ quoting ] %d strings x 3 shells + nested, %d SSH commands, %lld ms\n", cases, commands,
                elapsed_ms(started));
}

// The process runtime's start script (runtime::ProcessRuntime::start): the env file arrives on stdin and
// is exported line by line, the program's argv as "$@". The program dumps both; they must be exact.
TEST_F(SshQuotingTest, EnvValuesAndArgsThroughTheProcessRuntimeStartScript) {
    HostileStrings strings(seed + 1, kCanary);
    const std::string dir = "/tmp/pdctl-quoting-" + std::to_string(::getpid());
    Restore cleanup([&] { std::filesystem::remove_all(dir); });  // /tmp is shared with the hosts
    runtime::ProcessRuntime process({config::RuntimeKind::Process, "", "", {}, dir, 5, "", ""}, dir);
    const int units = 8;
    std::vector<std::vector<runtime::EnvEntry>> envs(units);
    std::vector<std::vector<std::string>> args(units);
    const auto started = Clock::now();
    for (int u = 0; u < units; ++u) {
        plan::Unit unit;
        unit.name = "pd-quoting-u" + std::to_string(u);
        unit.cluster = "quoting";
        unit.role = "u";
        unit.node = host(1 + u).name;
        for (int k = 0; k < 150; ++k) {
            std::string value = strings.next(10);
            // Config loading rejects newlines in env values (only BOOTSTRAP may span lines).
            std::erase(value, '\n');
            envs[u].push_back({"PDCTL_Q_" + std::to_string(k), value, false});
        }
        args[u] = strings.batch(150);
        unit.program.env = envs[u];
        unit.program.argv = {"sh", "-c", "printf '%s\\0' \"$@\" > \"$0.args\"; env -0 > \"$0.envdump\"",
                             dir + "/" + unit.name};
        unit.program.argv.insert(unit.program.argv.end(), args[u].begin(), args[u].end());
        const auto command = process.start(unit);
        const auto result = executor->run(cluster.node(1 + u), command);
        ASSERT_TRUE(result.ok()) << result.transport_error << result.err;
    }
    for (int u = 0; u < units; ++u) {
        const std::string base = dir + "/pd-quoting-u" + std::to_string(u);
        // The supervising sh writes .exit after the program, then ends: a bounded wait for its end (the
        // file is whole then), no fixed sleep.
        ASSERT_TRUE(pdctl::testing::process_unit_ends_within(dir, "pd-quoting-u" + std::to_string(u),
                                                             std::chrono::seconds(20)))
            << slurp(base + ".log");
        EXPECT_EQ(slurp(base + ".exit"), "0\n") << slurp(base + ".log");
        expect_same(args[u], split_nul(slurp(base + ".args")), "unit args through the start script");
        std::map<std::string, std::string> seen;
        for (const auto& entry : split_nul(slurp(base + ".envdump"))) {
            const auto eq = entry.find('=');
            if (entry.rfind("PDCTL_Q_", 0) == 0) seen[entry.substr(0, eq)] = entry.substr(eq + 1);
        }
        ASSERT_EQ(seen.size(), envs[u].size()) << "unit " << u << ", seed " << seed;
        for (const auto& entry : envs[u])
            ASSERT_EQ(seen[entry.key], entry.value) << entry.key << ", seed " << seed << ": sent "
                                                    << hex(entry.value) << ", got " << hex(seen[entry.key]);
        EXPECT_FALSE(slurp(base + ".env").empty());  // the 0600 env file the script wrote from stdin
    }
    std::printf("[ quoting ] %d units x (150 env values + 150 args) through the start script, %lld ms\n",
                units, elapsed_ms(started));
}

// File names: SFTP upload to a temporary name, then the push scripts (probe, mkdir, verify + rename).
TEST_F(SshQuotingTest, HostileFileNamesThroughUploadAndThePushScripts) {
    HostileStrings strings(seed + 2, kCanary);
    const std::string remote_dir = "/root/pdctl-quoting-names";
    run(1, {"rm", "-rf", "--", remote_dir});
    Restore cleanup([&] {
        executor->run(cluster.node(1),
                      Command{{"rm", "-rf", "--", remote_dir}, {}, std::chrono::seconds(30)});
    });

    const auto source = temp / "payload";
    spit(source, "payload bytes\n");
    push::NodeFiles node_files{cluster.node(1), {}};
    std::set<std::string> names;
    while (names.size() < 300) {
        std::string name = strings.next(6);
        std::erase(name, '/');  // a file name cannot hold `/`; everything else but NUL is allowed
        if (name.empty() || name == "." || name == ".." || name.size() > 200) continue;
        if (!names.insert(name).second) continue;
        config::FileSpec file;
        file.source = source.string();
        file.dest = remote_dir + "/sub/" + name;
        file.mode = 0640;
        node_files.files.push_back(file);
    }
    const std::map<std::string, push::LocalFile> local = {
        {source.string(), push::LocalFile::hashed(*util::sha256_file_hex(source.string()), 14)}};
    struct Quiet : push::PushObserver {
        void file_done(const std::string&, const push::FileOutcome&, std::size_t, std::size_t) override {}
        void node_done(const push::NodeOutcome&) override {}
    } observer;
    const auto started = Clock::now();
    const auto result = push::run_push(*executor, {node_files}, local, observer);
    ASSERT_EQ(result.nodes.size(), 1u);
    for (const auto& file : result.nodes[0].files)
        ASSERT_EQ(file.status, push::FileOutcome::Status::Sent) << hex(file.dest) << ": " << file.error;

    // What is really in the directory, listed by the host's shell: exactly the names, nothing else.
    const auto listed = run(
        1, {"sh", "-c", "cd \"$1\" && for f in * .*; do [ -f \"$f\" ] && printf '%s\\0' \"$f\"; done; true",
            "pdctl-list", remote_dir + "/sub"});
    const auto seen = split_nul(listed.out);
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), names) << "seed " << seed;
    EXPECT_EQ(seen.size(), names.size());
    // A second push finds every file identical by name: the probe script read each path exactly.
    const auto again = push::run_push(*executor, {node_files}, local, observer);
    for (const auto& file : again.nodes[0].files)
        EXPECT_EQ(file.status, push::FileOutcome::Status::Identical) << hex(file.dest);
    std::printf("[ quoting ] %zu hostile file names pushed and re-probed in %lld ms\n", names.size(),
                elapsed_ms(started));
}

}  // namespace
}  // namespace pdctl::testing
