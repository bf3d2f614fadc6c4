// doctor's live checks across the running workers on the simulated cluster: a decode started with a
// different --page-size is named with both values (PAIR002); the shipped local profile is silent.
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

int pairing_findings(const std::string& doctor_json, const std::string& id, std::string& message) {
    int found = 0;
    const json report = json::parse(doctor_json);
    for (const auto& finding : report["findings"]) {
        if (finding["id"].get<std::string>().rfind("PAIR", 0) != 0) continue;
        ++found;
        if (finding["id"] == id) message = finding["message"];
    }
    return found;
}

TEST(DoctorPairing, APageSizeMismatchBetweenPrefillAndDecodeIsNamedAndTheLocalProfileIsSilent) {
    SimCluster cluster("pairing", 111);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto clean = cluster.run({"--json", "doctor"});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
    std::string message;
    EXPECT_EQ(pairing_findings(clean.out, "PAIR002", message), 0) << clean.out;

    cluster.append(
        "decode.env",
        "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 --enable-metrics --page-size 64\"\n");
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);  // converges: decode restarts with its new flags
    const auto mismatch = cluster.run({"--json", "doctor"});
    EXPECT_EQ(mismatch.exit_code, 10) << mismatch.out << mismatch.err;
    EXPECT_EQ(pairing_findings(mismatch.out, "PAIR002", message), 1) << mismatch.out;
    EXPECT_EQ(message, "prefill serves page size (--page-size) 1, decode serves 64: the router pairs them");

    const auto text = cluster.run({"doctor"});
    EXPECT_NE(text.out.find("PAIR002"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace pdctl::testing
