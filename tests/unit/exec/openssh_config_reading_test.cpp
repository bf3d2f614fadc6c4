#include "pdctl/exec/openssh_config_reading.hpp"

#include <gtest/gtest.h>

#include <map>

#include "pdctl/exec/transport_choice.hpp"

namespace pdctl::exec {
namespace {

// Debian 12's /etc/ssh/ssh_config, comments left out: what every node meets on a stock machine.
const std::string kDebianSystemConfig =
    "Include /etc/ssh/ssh_config.d/*.conf\n"
    "Host *\n"
    "    SendEnv LANG LC_*\n"
    "    HashKnownHosts yes\n"
    "    GSSAPIAuthentication yes\n";

struct Files {
    std::map<std::string, std::string> by_path;  // what an Include pattern names, by exact pattern
};

OpenSshConfigReading reading_of(const std::string& user_config, const Files& files = {},
                                const std::string& system_config = kDebianSystemConfig) {
    const IncludeReader read = [&files](const std::string& pattern) {
        std::vector<std::pair<std::string, std::string>> out;
        if (auto found = files.by_path.find(pattern); found != files.by_path.end())
            out.emplace_back(found->first, found->second);
        return out;
    };
    return OpenSshConfigReading::parse({{"/home/op/.ssh/config", user_config, "/home/op/.ssh"},
                                        {"/etc/ssh/ssh_config", system_config, "/etc/ssh"}},
                                       "/home/op", read);
}

OpenSshDestination to(const std::string& alias) {
    return OpenSshDestination{alias, "", std::nullopt, {}};
}

bool exists(const std::string&) {
    return true;
}

std::optional<OpenSshView> view(const OpenSshConfigReading& reading, const OpenSshDestination& destination,
                                std::string* why = nullptr) {
    return reading.view_for(destination, "op", exists, why);
}

TEST(OpenSshConfigReading, AnEmptyUserConfigGivesWhatSshGPrints) {
    // As `ssh -G 10.78.0.1` prints on Debian 12 with no ~/.ssh/config, for the fields the choice reads.
    const auto got = view(reading_of(""), to("10.78.0.1"));
    ASSERT_TRUE(got);
    EXPECT_EQ(got->hostname, "10.78.0.1");
    EXPECT_EQ(got->user, "op");
    EXPECT_EQ(got->port, 22);
    EXPECT_TRUE(got->gssapi);
    EXPECT_EQ(got->identity_files,
              (std::vector<std::string>{"~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ecdsa_sk",
                                        "~/.ssh/id_ed25519", "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",
                                        "~/.ssh/id_dsa"}));
    EXPECT_TRUE(got->proxy_jump.empty());
    EXPECT_TRUE(got->proxy_command.empty());
}

TEST(OpenSshConfigReading, TheCommandLineWinsAndItsKeysComeFirst) {
    // As `ssh -F f -G -l bob -p 2200 -i KEY -- foo.example` prints for this file (OpenSSH 9.2).
    const auto reading = reading_of(
        "Host foo*\n  IdentityFile ~/.ssh/a\n  User alice\n  Port 99\n  HostName %h.x\n  CertificateFile "
        "~/c\n",
        {}, "");
    const auto plain = view(reading, to("foo.example"));
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->hostname, "foo.example.x");
    EXPECT_EQ(plain->user, "alice");
    EXPECT_EQ(plain->port, 99);
    EXPECT_EQ(plain->identity_files, std::vector<std::string>{"~/.ssh/a"});
    EXPECT_EQ(plain->certificate_files, std::vector<std::string>{"~/c"});
    EXPECT_FALSE(plain->gssapi);

    const auto flagged = view(reading, OpenSshDestination{"foo.example", "bob", 2200, {"/keys/id"}});
    ASSERT_TRUE(flagged);
    EXPECT_EQ(flagged->user, "bob");
    EXPECT_EQ(flagged->port, 2200);
    EXPECT_EQ(flagged->identity_files, (std::vector<std::string>{"/keys/id", "~/.ssh/a"}));
}

TEST(OpenSshConfigReading, TheFirstValueWinsAndOnlyMatchingHostsCount) {
    const auto reading = reading_of(
        "Host gpu* !gpu9\n  User first\n  Port 2022\nHost *\n  User second\n  Port 22\n"
        "Host other\n  ProxyJump bastion\n");
    const auto gpu1 = view(reading, to("gpu1"));
    ASSERT_TRUE(gpu1);
    EXPECT_EQ(gpu1->user, "first");
    EXPECT_EQ(gpu1->port, 2022);
    EXPECT_TRUE(gpu1->proxy_jump.empty());
    const auto gpu9 = view(reading, to("gpu9"));
    ASSERT_TRUE(gpu9);
    EXPECT_EQ(gpu9->user, "second");
    EXPECT_EQ(gpu9->port, 22);
    EXPECT_EQ(view(reading, to("other"))->proxy_jump, "bastion");
}

TEST(OpenSshConfigReading, ProxiesAndCertificatesAreReportedForTheChoiceToSendToOpenSsh) {
    const auto reading = reading_of(
        "Host behind\n  ProxyCommand ssh -W %h:%p gate\nHost jumped\n  ProxyJump root@10.0.0.1\n"
        "Host none\n  ProxyJump none\nHost *\n  ProxyJump late\n");
    EXPECT_EQ(view(reading, to("behind"))->proxy_command, "ssh -W %h:%p gate");
    EXPECT_EQ(view(reading, to("jumped"))->proxy_jump, "root@10.0.0.1");
    // `none` set first is a value: the later ProxyJump does not apply, as in OpenSSH.
    EXPECT_TRUE(view(reading, to("none"))->proxy_jump.empty());

    TransportFacts facts;
    facts.ssh_client = "/usr/bin/ssh";
    facts.openssh = *view(reading, to("jumped"));
    facts.read_in_process = true;
    facts.libssh2.host = "jumped";
    facts.libssh2.user = "op";
    EXPECT_EQ(choose_transport(facts).transport, Transport::OpenSsh);
}

TEST(OpenSshConfigReading, APlainConfigLeadsToLibssh2WithoutSshG) {
    const auto reading = reading_of(
        "Host *\n  IdentityFile ~/.ssh/id_ed25519\n  ServerAliveInterval 30\n  StrictHostKeyChecking yes\n");
    TransportFacts facts;
    facts.ssh_client = "/usr/bin/ssh";
    facts.openssh = *view(reading, OpenSshDestination{"10.0.0.5", "root", std::nullopt, {}});
    facts.read_in_process = true;
    facts.libssh2.host = "10.0.0.5";
    facts.libssh2.user = "root";
    facts.identities = {{"/home/op/.ssh/id_ed25519", KeyKind::Ed25519}};
    const auto choice = choose_transport(facts);
    EXPECT_EQ(choice.transport, Transport::Libssh2);
    EXPECT_EQ(choice.reason, "nothing in the ssh config needs OpenSSH");
}

TEST(OpenSshConfigReading, WhatOnlyOpenSshCanEvaluateGivesNoViewForTheHostsItAppliesTo) {
    struct Case {
        std::string config;
        std::string why;  // a part of the reason
    };
    const std::vector<Case> cases = {
        {"Match exec \"test -e /x\"\n  User x\n", "a Match block"},
        {"Match host gpu*\n  User x\n", "a Match block"},
        {"Host gpu1\n  ControlMaster auto\n  ControlPath ~/.ssh/%C\n", "controlmaster"},
        {"Host *\n  CanonicalizeHostname yes\n", "canonicalizehostname"},
        {"Host gpu1\n  HostName %h.%d\n", "hostname"},
        {"Host gpu1\n  IdentityFile ~/.ssh/id_%r\n", "identityfile"},
        {"Host gpu1\n  IdentityFile ${KEYS}/id\n", "identityfile"},
        {"Host gpu1\n  User %u\n", "user"},
        {"Host gpu1\n  Port ssh\n", "port"},
        {"Host gpu1\n  SomeFutureKeyword yes\n", "somefuturekeyword"},
        {"Host GPU1\n  User x\n", "upper case"},
        {"Host gpu1\n  User\n", "without a value"},
        {"Host gpu1\n  Include ~other/config\n", "another user"},
    };
    for (const auto& c : cases) {
        std::string why;
        EXPECT_FALSE(view(reading_of(c.config), to("gpu1"), &why)) << c.config;
        EXPECT_NE(why.find(c.why), std::string::npos) << c.config << " → " << why;
    }
    // Only the hosts a block applies to: the others are still read in-process.
    EXPECT_TRUE(view(reading_of("Host gpu1\n  ControlMaster auto\n"), to("gpu2")));
    // An upper-case alias: OpenSSH matches it as written but prints it lower-cased.
    EXPECT_FALSE(view(reading_of(""), to("Gpu1")));
    // A -i key that does not exist: OpenSSH drops it and may list its defaults instead.
    EXPECT_FALSE(reading_of("").view_for(OpenSshDestination{"gpu1", "", std::nullopt, {"/no/key"}}, "op",
                                         [](const std::string&) { return false; }));
}

TEST(OpenSshConfigReading, IncludesApplyWhereTheyStandAndRelativeOnesResolveLikeOpenSsh) {
    Files files;
    files.by_path["/home/op/.ssh/conf.d/*"] = "User included\nHost gpu*\n  Port 2200\n";
    files.by_path["/etc/ssh/ssh_config.d/*.conf"] = "Host *\n  ProxyJump sysjump\n";
    // Inside `Host db`, the included lines apply to db alone, Host blocks in them included.
    const auto reading = reading_of("Host db\n  Include conf.d/*\n  Port 5\n", files);
    const auto db = view(reading, to("db"));
    ASSERT_TRUE(db);
    EXPECT_EQ(db->user, "included");
    EXPECT_EQ(db->port, 5);
    const auto gpu = view(reading, to("gpu1"));
    ASSERT_TRUE(gpu);
    EXPECT_EQ(gpu->user, "op");
    EXPECT_EQ(gpu->port, 22);
    // The system file's Include names a drop-in directory; its ProxyJump reaches every host.
    EXPECT_EQ(gpu->proxy_jump, "sysjump");
}

TEST(OpenSshConfigReading, DestinationArgumentsAreReadBackFromTheCommandLinePdctlBuilds) {
    const auto parsed = parse_destination_args({"-l", "bob", "-p", "2200", "-i", "/k", "--", "gpu1"});
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->alias, "gpu1");
    EXPECT_EQ(parsed->user, "bob");
    EXPECT_EQ(parsed->port, 2200);
    EXPECT_EQ(parsed->identities, std::vector<std::string>{"/k"});
    EXPECT_TRUE(parse_destination_args({"--", "gpu1"}));
    EXPECT_FALSE(parse_destination_args({"-o", "X=y", "--", "gpu1"}));
    EXPECT_FALSE(parse_destination_args({"gpu1"}));
}

}  // namespace
}  // namespace pdctl::exec
