#include "pdctl/exec/ssh_config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace pdctl::exec {
namespace {

TEST(SshPattern, WildcardsAndCase) {
    EXPECT_TRUE(ssh_pattern_match("*", "anything"));
    EXPECT_TRUE(ssh_pattern_match("gpu-*", "gpu-12"));
    EXPECT_TRUE(ssh_pattern_match("gpu-?", "gpu-1"));
    EXPECT_FALSE(ssh_pattern_match("gpu-?", "gpu-12"));
    EXPECT_TRUE(ssh_pattern_match("*.example.com", "a.b.EXAMPLE.com"));
    EXPECT_TRUE(ssh_pattern_match("10.0.*.1", "10.0.33.1"));
    EXPECT_FALSE(ssh_pattern_match("10.0.*.1", "10.0.33.12"));
    EXPECT_TRUE(ssh_pattern_match("a*b*c", "a-b-b-c"));
    EXPECT_FALSE(ssh_pattern_match("a*b*c", "a-b-b-d"));
    EXPECT_FALSE(ssh_pattern_match("", "x"));
}

TEST(SshPattern, NegationExcludes) {
    EXPECT_TRUE(ssh_host_patterns_match({"gpu-*", "!gpu-3"}, "gpu-2"));
    EXPECT_FALSE(ssh_host_patterns_match({"gpu-*", "!gpu-3"}, "gpu-3"));
    EXPECT_FALSE(ssh_host_patterns_match({"!gpu-3"}, "gpu-2"));  // a negation alone matches nothing
}

TEST(SshConfig, FirstValueWinsAndIdentityFilesAccumulate) {
    const auto config = SshConfig::parse(
        "# comment\n"
        "Host gpu-1 gpu-2\n"
        "  HostName 10.0.0.1\n"
        "  User alice\n"
        "  IdentityFile ~/.ssh/gpu_key\n"
        "Host gpu-*\n"
        "  HostName ignored.example\n"
        "  User bob\n"
        "  Port 2200\n"
        "  IdentityFile ~/.ssh/second\n"
        "Host *\n"
        "  Port 22\n",
        "config", "/home/x/.ssh");
    const auto gpu1 = config.lookup("gpu-1");
    EXPECT_EQ(gpu1.hostname, "10.0.0.1");
    EXPECT_EQ(gpu1.user, "alice");
    EXPECT_EQ(gpu1.port, 2200);
    EXPECT_EQ(gpu1.identity_files, (std::vector<std::string>{"~/.ssh/gpu_key", "~/.ssh/second"}));
    const auto gpu7 = config.lookup("gpu-7");
    EXPECT_EQ(gpu7.hostname, "ignored.example");
    EXPECT_EQ(gpu7.user, "bob");
    const auto other = config.lookup("db");
    EXPECT_FALSE(other.hostname);
    EXPECT_EQ(other.port, 22);
    EXPECT_TRUE(config.warnings().empty());
}

TEST(SshConfig, SyntaxVariants) {
    const auto config = SshConfig::parse(
        "User=global\n"  // before any Host: applies to every host
        "HOST quoted\r\n"
        "  hostname = \"10.1.1.1\"\n"
        "\tIdentityFile \"/keys/with space\"\n"
        "  PORT=2022\n"
        "  StrictHostKeyChecking no\n",  // not ours: ignored silently
        "config", ".");
    const auto quoted = config.lookup("quoted");
    EXPECT_EQ(quoted.hostname, "10.1.1.1");
    EXPECT_EQ(quoted.user, "global");
    EXPECT_EQ(quoted.port, 2022);
    EXPECT_EQ(quoted.identity_files, std::vector<std::string>{"/keys/with space"});
    EXPECT_TRUE(config.warnings().empty());
}

TEST(SshConfig, ProblemsAreWarningsWithFileAndLine) {
    const auto config = SshConfig::parse(
        "Host a\n"
        "  Port http\n"
        "Match host a exec \"true\"\n"
        "  User from-match\n"
        "Host b\n"
        "  User\n",
        "my_config", ".");
    ASSERT_EQ(config.warnings().size(), 3u);
    EXPECT_EQ(config.warnings()[0], "my_config:2: Port 'http' is not a port number; ignored");
    EXPECT_NE(
        config.warnings()[1].find("my_config:3: Match blocks are not supported by pdctl's libssh2 transport"),
        std::string::npos);
    EXPECT_NE(config.warnings()[2].find("my_config:6:"), std::string::npos);
    EXPECT_FALSE(config.lookup("a").user);  // the Match block's settings are not applied
    EXPECT_FALSE(config.lookup("a").port);
    EXPECT_TRUE(config.has_match_exec());
}

TEST(SshConfig, OnlyAMatchExecIsRecordedAsSuch) {
    EXPECT_FALSE(SshConfig::parse("Match host a user b\n  Port 2\n", "c", ".").has_match_exec());
    EXPECT_FALSE(SshConfig::parse("Host a\n  Port 2\n", "c", ".").has_match_exec());
    EXPECT_TRUE(SshConfig::parse("Match Exec \"test -f /x\"\n  Port 2\n", "c", ".").has_match_exec());
}

TEST(SshConfig, ProxySettingsAreRecorded) {
    const auto config = SshConfig::parse(
        "Host inner\n  ProxyJump bastion\nHost piped\n  ProxyCommand ssh -W %h:%p bastion\n", "c", ".");
    EXPECT_EQ(config.lookup("inner").proxy_jump, "bastion");
    EXPECT_EQ(config.lookup("piped").proxy_command, "ssh -W %h:%p bastion");
}

TEST(SshConfig, IncludeIsReadInPlaceAndKeepsTheEnclosingBlock) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("pdctl-ssh-config-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "conf.d");
    std::ofstream(dir / "conf.d" / "10-gpu.conf") << "Host gpu-*\n  User gpuadmin\n";
    std::ofstream(dir / "conf.d" / "20-port.conf") << "Port 2022\n";
    std::ofstream(dir / "config") << "Host gpu-1\n  HostName 10.9.9.1\n"
                                     "Include conf.d/*.conf\n"
                                     "  IdentityFile /k\n"  // still inside `Host gpu-1`
                                     "Host *\n  User nobody\n";
    const auto config = SshConfig::load((dir / "config").string());
    std::filesystem::remove_all(dir);
    const auto gpu1 = config.lookup("gpu-1");
    EXPECT_EQ(gpu1.hostname, "10.9.9.1");
    EXPECT_EQ(gpu1.user, "gpuadmin");
    EXPECT_EQ(gpu1.port, 2022);  // 20-port.conf follows `Host gpu-*` in its own file's block
    EXPECT_EQ(gpu1.identity_files, std::vector<std::string>{"/k"});
    EXPECT_TRUE(config.lookup("gpu-2").identity_files.empty());
    EXPECT_EQ(config.lookup("db").user, "nobody");
}

TEST(SshConfig, MissingFileIsEmpty) {
    const auto config = SshConfig::load("/nonexistent/pdctl/ssh_config");
    EXPECT_FALSE(config.lookup("x").hostname);
    EXPECT_TRUE(config.warnings().empty());
}

// Both readers of the files split a line the same way, as OpenSSH does.
TEST(SshConfigLine, KeywordEqualsAndQuotedWords) {
    const auto split = split_ssh_config_line("  IdentityFile = \"/keys/a b\" /keys/c\t");
    EXPECT_EQ(split.key, "identityfile");
    EXPECT_EQ(split.rest, "\"/keys/a b\" /keys/c\t");
    EXPECT_EQ(split.args, (std::vector<std::string>{"/keys/a b", "/keys/c"}));
    EXPECT_EQ(split_ssh_config_line("Port=2222").args, std::vector<std::string>{"2222"});
    EXPECT_TRUE(split_ssh_config_line("   # a comment").key.empty());
    EXPECT_TRUE(split_ssh_config_line(" \t ").key.empty());
    EXPECT_TRUE(split_ssh_config_line("ProxyJump").args.empty());
}

}  // namespace
}  // namespace pdctl::exec
