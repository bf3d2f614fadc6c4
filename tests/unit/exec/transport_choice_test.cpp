#include "pdctl/exec/transport_choice.hpp"

#include <gtest/gtest.h>

namespace pdctl::exec {
namespace {

// A node libssh2 can do: `ssh -G` and pdctl's own reading agree, an ed25519 key, a plain host key.
TransportFacts plain_node() {
    TransportFacts facts;
    facts.ssh_client = "/usr/bin/ssh";
    facts.openssh.hostname = "10.77.0.5";
    facts.openssh.user = "root";
    facts.openssh.port = 22;
    facts.libssh2.host = "10.77.0.5";
    facts.libssh2.user = "root";
    facts.libssh2.port = 22;
    facts.identities = {{"/root/.ssh/id_ed25519", KeyKind::Ed25519}};
    return facts;
}

TEST(TransportChoice, AutoKeepsLibssh2WhenNothingNeedsOpenSsh) {
    const auto choice = choose_transport(plain_node());
    EXPECT_EQ(choice.transport, Transport::Libssh2);
    EXPECT_TRUE(choice.automatic);
    EXPECT_EQ(choice.reason, "nothing in ssh -G needs OpenSSH");
}

TEST(TransportChoice, EachThingOnlyOpenSshCanDoSendsTheNodeThereAndSaysWhich) {
    struct Case {
        const char* name;
        void (*change)(TransportFacts&);
        const char* reason_has;
    };
    const Case cases[] = {
        {"jump host", [](TransportFacts& f) { f.openssh.proxy_jump = "root@[10.77.0.250]"; },
         "ProxyJump root@[10.77.0.250]"},
        {"proxy command", [](TransportFacts& f) { f.openssh.proxy_command = "nc -X 5 %h %p"; },
         "ProxyCommand nc"},
        {"user certificate", [](TransportFacts& f) { f.certificates = {"/k/id-cert.pub"}; },
         "certificate /k/id-cert.pub"},
        {"host CA", [](TransportFacts& f) { f.host_ca_only = true; }, "@cert-authority"},
        {"RSA only",
         [](TransportFacts& f) {
             f.identities = {{"/k/id_rsa", KeyKind::Rsa}};
         },
         "RSA key /k/id_rsa only"},
        {"Match exec", [](TransportFacts& f) { f.match_exec = true; }, "Match exec"},
        {"Kerberos", [](TransportFacts& f) { f.openssh.gssapi = f.kerberos_ticket = true; }, "GSSAPI"},
        {"Match gives another user", [](TransportFacts& f) { f.openssh.user = "ops"; }, "User ops"},
        {"another port", [](TransportFacts& f) { f.openssh.port = 2022; }, "Port 2022"},
        {"another host", [](TransportFacts& f) { f.openssh.hostname = "10.77.1.5"; }, "HostName 10.77.1.5"},
    };
    for (const auto& c : cases) {
        auto facts = plain_node();
        c.change(facts);
        const auto choice = choose_transport(facts);
        EXPECT_EQ(choice.transport, Transport::OpenSsh) << c.name;
        EXPECT_TRUE(choice.automatic) << c.name;
        EXPECT_NE(choice.reason.find(c.reason_has), std::string::npos) << c.name << ": " << choice.reason;
    }
}

TEST(TransportChoice, WhatOpenSshWouldSkipAnywayDoesNotCount) {
    auto gssapi_without_ticket = plain_node();
    gssapi_without_ticket.openssh.gssapi = true;  // Debian's /etc/ssh/ssh_config sets it for every host
    EXPECT_EQ(choose_transport(gssapi_without_ticket).transport, Transport::Libssh2);

    auto rsa_beside_ed25519 = plain_node();
    rsa_beside_ed25519.identities.insert(rsa_beside_ed25519.identities.begin(), {"/k/id_rsa", KeyKind::Rsa});
    EXPECT_EQ(choose_transport(rsa_beside_ed25519).transport, Transport::Libssh2);
}

TEST(TransportChoice, AnExplicitSettingWinsAndSaysSo) {
    auto facts = plain_node();
    facts.openssh.proxy_jump = "bastion";
    facts.setting = config::SshTransport::Libssh2;
    EXPECT_EQ(choose_transport(facts).transport, Transport::Libssh2);
    EXPECT_EQ(choose_transport(facts).reason, "ssh.transport: libssh2");
    EXPECT_FALSE(choose_transport(facts).automatic);
    facts = plain_node();
    facts.setting = config::SshTransport::OpenSsh;
    EXPECT_EQ(choose_transport(facts).transport, Transport::OpenSsh);
    EXPECT_EQ(choose_transport(facts).reason, "ssh.transport: openssh");
}

TEST(TransportChoice, WithoutAnSshClientAutoStaysOnLibssh2) {
    auto facts = plain_node();
    facts.ssh_client.clear();
    facts.openssh.proxy_jump = "bastion";
    EXPECT_EQ(choose_transport(facts).transport, Transport::Libssh2);
    EXPECT_EQ(choose_transport(facts).reason, "no ssh client installed");
    facts = plain_node();
    facts.ssh_g_error = "/x/config line 3: Bad configuration option: proxyjumpp";
    EXPECT_EQ(choose_transport(facts).transport, Transport::Libssh2);
    EXPECT_NE(choose_transport(facts).reason.find("ssh -G failed: /x/config line 3"), std::string::npos);
}

}  // namespace
}  // namespace pdctl::exec
