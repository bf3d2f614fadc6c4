// Secrets never leave pdctl: a unique secret value planted in every place one can live — a `secrets:`-listed
// key in the shared config.env (reaching the server through a profile), a *_TOKEN and a *_PASSWORD key in
// the profiles, an `--api-key` value in a role's args, the unit's own log (BOOTSTRAP echoes the token), and
// PDCTL_SSH_PASSPHRASE — then every output mode is searched for them: plan, doctor, start (text, --json,
// -vv, under a pseudo-terminal), status, logs, smoke, history, lock, a failing start, config errors, stop,
// both journals and the --log-file every run also appends to. Zero hits. Simulated cluster on 127.0.76.x.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pdctl/util/shell_quote.hpp"
#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

const std::map<std::string, std::string> kSecrets = {
    {"shared (secrets: list, config.env)", "s3cr3t-shared-Qx81"},
    {"HF_TOKEN (prefill.env)", "s3cr3t-token-Wm42"},
    {"DB_PASSWORD (decode.env)", "s3cr3t-password-Lp07"},
    {"--api-key in args", "s3cr3t-apikey-Zr95"},
    {"PDCTL_SSH_PASSPHRASE", "s3cr3t-passphrase-Jd63"},
};

class SecretsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        xdg_ = std::filesystem::temp_directory_path() / ("pdctl-secrets-xdg-" + std::to_string(::getpid()));
        std::filesystem::create_directories(xdg_);
        // Inherited by every pdctl the harness runs (LocalExecutor copies the environment per run).
        ::setenv("XDG_STATE_HOME", xdg_.c_str(), 1);
        ::setenv("PDCTL_SSH_PASSPHRASE", kSecrets.at("PDCTL_SSH_PASSPHRASE").c_str(), 1);
        // Every run below also appends its record to one --log-file (PDCTL_LOG_FILE is the same option).
        ::setenv("PDCTL_LOG_FILE", log_file().c_str(), 1);
    }
    std::filesystem::path log_file() const { return xdg_ / "pdctl.log"; }
    void TearDown() override {
        ::unsetenv("PDCTL_SSH_PASSPHRASE");
        ::unsetenv("PDCTL_LOG_FILE");
        ::unsetenv("XDG_STATE_HOME");
        std::filesystem::remove_all(xdg_);
    }

    void record(const std::string& what, const PdctlRun& run) {
        outputs_[what + " (stdout)"] = run.out;
        outputs_[what + " (stderr)"] = run.err;
    }
    // Every journal line pdctl wrote: on the coordinator node (state dir) and the local copy.
    void record_journals(const SimCluster& cluster) {
        for (const auto& root : {cluster.state_dir(), xdg_}) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
                const auto path = entry.path();
                if (path.filename() == "journal.jsonl")
                    outputs_["journal " + path.string()] = read_text(path);
            }
        }
    }

    void expect_no_secret_anywhere() {
        for (const auto& [what, text] : outputs_)
            for (const auto& [where, secret] : kSecrets)
                EXPECT_EQ(text.find(secret), std::string::npos)
                    << "the secret from " << where << " leaked into " << what << ":\n"
                    << text;
    }

    std::filesystem::path xdg_;
    std::map<std::string, std::string> outputs_;
};

TEST_F(SecretsTest, NoOutputModeEverShowsASecretValue) {
    SimCluster cluster("secrets", 76);
    std::string yaml = read_text(cluster.config());
    replace_all(yaml, "env_files: [config.env]", "env_files: [config.env]\nsecrets: [SHARED_KEY]");
    replace_all(
        yaml, "    profile: prefill.env\n",
        "    profile: prefill.env\n    args: [--api-key, " + kSecrets.at("--api-key in args") + "]\n");
    write_text(cluster.config(), yaml);
    cluster.append("config.env", "SHARED_KEY=" + kSecrets.at("shared (secrets: list, config.env)") + "\n");
    const std::string prefill_env =
        read_text(cluster.config().parent_path() / "prefill.env") + "export SERVED_KEY=${SHARED_KEY}\n" +
        "export HF_TOKEN=" + kSecrets.at("HF_TOKEN (prefill.env)") + "\n" +
        // The unit's log says the token: `logs` and failure reports must not.
        "BOOTSTRAP='echo \"bootstrap with token $HF_TOKEN\"'\nPDSIM_PHASE_MS=40\n";
    write_text(cluster.config().parent_path() / "prefill.env", prefill_env);
    cluster.append("decode.env",
                   "export DB_PASSWORD=" + kSecrets.at("DB_PASSWORD (decode.env)") + "\nPDSIM_PHASE_MS=40\n");

    const auto plan = cluster.run({"plan"});
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    // Not vacuous: the plan shows where the secrets are, as [REDACTED].
    EXPECT_NE(plan.out.find("[REDACTED]"), std::string::npos) << plan.out;
    record("plan", plan);
    record("plan --json", cluster.run({"--json", "plan"}));
    record("plan stop", cluster.run({"plan", "stop"}));
    record("doctor --static", cluster.run({"doctor", "--static"}));
    record("doctor --json", cluster.run({"--json", "doctor"}));
    record("-vv doctor", cluster.run({"-vv", "doctor"}));

    const auto start = cluster.run({"-vv", "start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    record("-vv start", start);
    record("start --json", cluster.run({"--json", "start"}));
    // The live view, as an operator's terminal gets it (util-linux `script` allocates the pty).
    if (std::filesystem::exists("/usr/bin/script")) {
        exec::LocalExecutor executor;
        exec::Command command;
        command.argv = {
            "env",
            "TERM=xterm-256color",
            "/usr/bin/script",
            "-qec",
            util::join_command({pdctl::testing::pdctl_binary(), "-c", cluster.config().string(), "restart"}),
            "/dev/null"};
        command.timeout = std::chrono::seconds(120);
        const auto result = executor.run({"local", "127.0.0.1", {}, {}, {}}, command);
        EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
        record("restart under a pty", {result.exit_code, result.out, result.err});
    }
    const auto status = cluster.run({"status"});
    EXPECT_EQ(status.exit_code, 0) << status.out << status.err;
    record("status", status);
    record("status --json", cluster.run({"--json", "status"}));
    const auto logs = cluster.run({"logs", "prefill", "--rank", "0", "--tail", "200"});
    EXPECT_NE(logs.out.find("bootstrap with token"), std::string::npos)
        << "the log line is shown: " << logs.out;
    record("logs prefill", logs);
    record("logs decode", cluster.run({"-vv", "logs", "decode"}));
    record("smoke", cluster.run({"smoke"}));
    record("smoke --json", cluster.run({"--json", "smoke"}));
    record("lock status", cluster.run({"lock", "status"}));
    record("stop", cluster.run({"-vv", "stop"}));
    record("stop --json", cluster.run({"--json", "stop"}));

    // A failing start: BOOTSTRAP prints the token and fails, so the failure report carries the log tail.
    write_text(cluster.config().parent_path() / "prefill.env",
               prefill_env + "BOOTSTRAP='echo \"failing with $HF_TOKEN\"; exit 3'\n");
    const auto failed = cluster.run({"-vv", "start"});
    EXPECT_NE(failed.exit_code, 0);
    EXPECT_NE((failed.out + failed.err).find("failing with"), std::string::npos)
        << "the failure shows the log tail: " << failed.out << failed.err;
    record("failing start", failed);
    record("failing start --json", cluster.run({"--json", "start"}));
    record("history", cluster.run({"history"}));
    record("history --json", cluster.run({"--json", "history"}));
    record("stop after failure", cluster.run({"stop"}));

    // The incident bundle, every file of it as it would be attached to a ticket: the failed start's kept
    // prefill log holds the line with the token, which must arrive redacted.
    const auto bundle_path = cluster.config().parent_path() / "incident.tar.gz";
    const auto bundle = cluster.run({"logs", "--bundle", bundle_path.string()});
    EXPECT_EQ(bundle.exit_code, 0) << bundle.out << bundle.err;
    record("logs --bundle", bundle);
    const auto unpacked = cluster.config().parent_path() / "incident";
    std::filesystem::create_directories(unpacked);
    exec::Command untar;
    untar.argv = {"tar", "-xzf", bundle_path.string(), "-C", unpacked.string()};
    untar.timeout = std::chrono::seconds(30);
    ASSERT_TRUE(exec::LocalExecutor().run({"local", "127.0.0.1", {}, {}, {}}, untar).ok());
    bool redacted_token_line = false;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(unpacked)) {
        if (!entry.is_regular_file()) continue;
        const auto text = read_text(entry.path());
        outputs_["bundle " + entry.path().lexically_relative(unpacked).string()] = text;
        redacted_token_line =
            redacted_token_line || text.find("failing with [REDACTED]") != std::string::npos;
    }
    EXPECT_TRUE(redacted_token_line) << "no kept log with the token line in the bundle";

    // Config errors on lines that hold secrets: a secret expanded into BOOTSTRAP, a broken secret line.
    write_text(cluster.config().parent_path() / "prefill.env",
               prefill_env + "BOOTSTRAP=\"echo ${HF_TOKEN}\"\nMY_TOKEN " +
                   kSecrets.at("HF_TOKEN (prefill.env)") + "\nexport OTHER_TOKEN=\"" +
                   kSecrets.at("HF_TOKEN (prefill.env)") + " ${UNDEFINED_X}\"\n");
    const auto config_error = cluster.run({"plan"});
    EXPECT_EQ(config_error.exit_code, 2) << config_error.out << config_error.err;
    record("config error", config_error);
    record("config error --json", cluster.run({"--json", "start"}));
    write_text(cluster.config().parent_path() / "prefill.env", prefill_env);

    record_journals(cluster);
    const std::string log = read_text(log_file());
    // Not vacuous: the log file has the failing start's report, its log tail redacted, and -vv detail.
    EXPECT_NE(log.find("failing with [REDACTED]"), std::string::npos) << log;
    EXPECT_NE(log.find("debug: "), std::string::npos) << log;
    outputs_["--log-file"] = log;
    EXPECT_GE(outputs_.size(), 40u);
    expect_no_secret_anywhere();
}

}  // namespace
}  // namespace pdctl::testing
