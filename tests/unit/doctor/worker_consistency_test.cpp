// doctor's checks across running workers: what a prefill and a decode the router pairs say of themselves
// (/server_info) must agree; groups that did not answer are left out, not reported twice.
#include "pdctl/doctor/worker_consistency.hpp"

#include <gtest/gtest.h>

namespace pdctl::doctor {
namespace {

using nlohmann::json;

WorkerInfo worker(const std::string& role, const std::string& mode, const std::string& host,
                  json changes = {}) {
    json info = {{"model_path", "/data/models/Kimi-K3"},
                 {"page_size", 1},
                 {"kv_cache_dtype", "auto"},
                 {"tp_size", 32},
                 {"disaggregation_mode", mode},
                 {"disaggregation_transfer_backend", "mooncake"},
                 {"disaggregation_bootstrap_port", 8998}};
    for (const auto& [key, value] : changes.items()) info[key] = value;
    return {role, mode, role == "decode" ? "n5" : "n1", host, info, "", false, ""};
}

std::vector<std::string> ids(const std::vector<lint::Finding>& findings) {
    std::vector<std::string> out;
    for (const auto& finding : findings) out.push_back(finding.id);
    return out;
}

TEST(WorkerConsistency, AgreeingWorkersAreSilent) {
    EXPECT_TRUE(check_worker_consistency(
                    {worker("prefill", "prefill", "10.0.0.1"), worker("decode", "decode", "10.0.0.5")})
                    .empty());
}

TEST(WorkerConsistency, APageSizeMismatchIsNamedWithBothValues) {
    const auto findings =
        check_worker_consistency({worker("prefill", "prefill", "10.0.0.1"),
                                  worker("decode", "decode", "10.0.0.5", {{"page_size", 64}})});
    ASSERT_EQ(ids(findings), std::vector<std::string>{"PAIR002"});
    EXPECT_EQ(findings[0].severity, lint::Severity::Error);
    EXPECT_EQ(findings[0].role, "decode");
    EXPECT_EQ(findings[0].node, "n5");
    EXPECT_EQ(findings[0].message,
              "prefill serves page size (--page-size) 1, decode serves 64: the router pairs them");
    EXPECT_NE(findings[0].reference.find("docs/doctor.md#pair002"), std::string::npos);
}

TEST(WorkerConsistency, EachFieldHasItsRule) {
    const auto findings = check_worker_consistency(
        {worker("prefill", "prefill", "10.0.0.1"), worker("decode", "decode", "10.0.0.5",
                                                          {{"model_path", "/data/other"},
                                                           {"kv_cache_dtype", "fp8_e4m3"},
                                                           {"disaggregation_transfer_backend", "nixl"},
                                                           {"tp_size", 16}})});
    EXPECT_EQ(ids(findings), (std::vector<std::string>{"PAIR001", "PAIR003", "PAIR004", "PAIR005"}));
}

TEST(WorkerConsistency, DifferentTpSizesAreFineWithTheStagingBufferOnBothSides) {
    auto prefill = worker("prefill", "prefill", "10.0.0.1");
    auto decode = worker("decode", "decode", "10.0.0.5", {{"tp_size", 16}});
    prefill.staging_buffer = true;
    EXPECT_EQ(ids(check_worker_consistency({prefill, decode})), std::vector<std::string>{"PAIR005"});
    decode.staging_buffer = true;
    EXPECT_TRUE(check_worker_consistency({prefill, decode}).empty());
}

TEST(WorkerConsistency, TwoPrefillsOnOneHostNeedTwoBootstrapPorts) {
    const auto same = check_worker_consistency({worker("prefill", "prefill", "10.0.0.1"),
                                                worker("prefill-2", "prefill", "10.0.0.1"),
                                                worker("decode", "decode", "10.0.0.5")});
    ASSERT_EQ(ids(same), std::vector<std::string>{"PAIR006"});
    EXPECT_NE(same[0].message.find("prefill and prefill-2 both announce bootstrap port 8998 on 10.0.0.1"),
              std::string::npos)
        << same[0].message;
    EXPECT_TRUE(check_worker_consistency(
                    {worker("prefill", "prefill", "10.0.0.1"),
                     worker("prefill-2", "prefill", "10.0.0.1", {{"disaggregation_bootstrap_port", 8999}})})
                    .empty());
    EXPECT_TRUE(check_worker_consistency(
                    {worker("prefill", "prefill", "10.0.0.1"), worker("prefill-2", "prefill", "10.0.0.2")})
                    .empty());
}

TEST(WorkerConsistency, AMooncakeHostnameOnLoopbackIsAnErrorWhereTheHostIsNot) {
    auto prefill = worker("prefill", "prefill", "10.0.0.1");
    prefill.mooncake_local_hostname = "127.0.0.1";
    auto decode = worker("decode", "decode", "10.0.0.5");
    decode.mooncake_local_hostname = "localhost";
    const auto findings = check_worker_consistency({prefill, decode});
    ASSERT_EQ(ids(findings), (std::vector<std::string>{"PAIR007", "PAIR007"}));
    EXPECT_EQ(
        findings[0].message,
        "prefill runs with MOONCAKE_LOCAL_HOSTNAME=127.0.0.1 on 10.0.0.1: Mooncake announces that address, "
        "and every peer that connects to it reaches itself");
    EXPECT_EQ(findings[1].node, "n5");
    prefill.mooncake_local_hostname = "10.0.0.1";
    decode.mooncake_local_hostname.clear();
    EXPECT_TRUE(check_worker_consistency({prefill, decode}).empty());
    // The simulated cluster: every host is a loopback address, so loopback is its own.
    auto local = worker("prefill", "prefill", "127.0.0.1");
    local.mooncake_local_hostname = "127.0.0.1";
    EXPECT_TRUE(check_worker_consistency({local, worker("decode", "decode", "127.0.0.5")}).empty());
}

TEST(WorkerConsistency, AGroupThatDidNotAnswerIsLeftOut) {
    auto decode = worker("decode", "decode", "10.0.0.5", {{"page_size", 64}});
    decode.server_info = nullptr;
    decode.unavailable = "no answer: connection refused";
    EXPECT_TRUE(check_worker_consistency({worker("prefill", "prefill", "10.0.0.1"), decode}).empty());
}

}  // namespace
}  // namespace pdctl::doctor
