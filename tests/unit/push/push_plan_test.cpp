// push/push_plan: which node gets which file, and the fixed node scripts run for real by `sh` on
// paths with spaces and quotes (tests/unit/support/script_sandbox.hpp).
#include "pdctl/push/push_plan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "pdctl/util/sha256.hpp"
#include "unit/support/script_sandbox.hpp"

namespace pdctl::push {
namespace {

using ::testing::ElementsAre;

config::Cluster three_node_cluster() {
    config::Cluster cluster;
    for (const char* name : {"n1", "n2", "n3"}) cluster.nodes.push_back({name, "10.0.0.1", {}, {}, {}});
    config::Role prefill;
    prefill.name = "prefill";
    prefill.nodes = {"n1", "n2"};
    cluster.roles.push_back(prefill);
    return cluster;
}

config::FileSpec file(std::string dest, std::vector<std::string> roles = {},
                      std::vector<std::string> nodes = {}) {
    config::FileSpec spec;
    spec.source = "/src" + dest;
    spec.dest = std::move(dest);
    spec.roles = std::move(roles);
    spec.nodes = std::move(nodes);
    return spec;
}

std::vector<std::string> dests(const NodeFiles& entry) {
    std::vector<std::string> out;
    for (const auto& f : entry.files) out.push_back(f.dest);
    return out;
}

TEST(PushPlan, FilesGoToEveryNodeOrToTheirRolesAndNodes) {
    auto cluster = three_node_cluster();
    cluster.files = {file("/all"), file("/prefill-only", {"prefill"}), file("/n3-only", {}, {"n3"}),
                     file("/both", {"prefill"}, {"n3"})};
    const auto plan = plan_push(cluster);
    ASSERT_EQ(plan.size(), 3u);
    EXPECT_EQ(plan[0].node.name, "n1");
    EXPECT_THAT(dests(plan[0]), ElementsAre("/all", "/prefill-only", "/both"));
    EXPECT_THAT(dests(plan[1]), ElementsAre("/all", "/prefill-only", "/both"));
    EXPECT_THAT(dests(plan[2]), ElementsAre("/all", "/n3-only", "/both"));
}

TEST(PushPlan, NodesWithoutFilesAreLeftOut) {
    auto cluster = three_node_cluster();
    cluster.files = {file("/p", {"prefill"})};
    const auto plan = plan_push(cluster);
    ASSERT_EQ(plan.size(), 2u);
    EXPECT_EQ(plan[1].node.name, "n2");
}

TEST(PushPlan, ProbeReportsMissingRegularAndOtherFilesThroughTheShell) {
    testing::ScriptSandbox box("push probe");
    const auto present = box.dir() / "a 'quoted' $(name).bin";
    box.write(present, "hello\n");
    ::chmod(present.c_str(), 0750);
    const auto missing = box.dir() / "missing";
    const auto directory = box.dir() / "dir";
    std::filesystem::create_directories(directory);
    const auto result = box.run(probe_command({present.string(), missing.string(), directory.string()}));
    ASSERT_TRUE(result.ok()) << result.err;
    const auto parsed = parse_probe(result.out, 3);
    ASSERT_TRUE(parsed) << result.out;
    EXPECT_EQ((*parsed)[0].kind, RemoteFile::Kind::Regular);
    EXPECT_EQ((*parsed)[0].mode, 0750);
    EXPECT_EQ((*parsed)[0].sha256, util::sha256_hex("hello\n"));
    EXPECT_EQ((*parsed)[1].kind, RemoteFile::Kind::Missing);
    EXPECT_EQ((*parsed)[2].kind, RemoteFile::Kind::Other);
}

// The scripts hash with `openssl dgst` when the node has it (SHA extensions, ~4x faster) and with
// coreutils' sha256sum when not: run both scripts with a PATH that holds no openssl.
TEST(PushPlan, WithoutOpensslTheScriptsFallBackToSha256sum) {
    testing::ScriptSandbox box("push no openssl");
    const auto bin = box.dir() / "bin";
    std::filesystem::create_directories(bin);
    for (const char* tool : {"sh", "stat", "sha256sum", "mv", "rm"}) {
        const auto found = testing::which(tool);
        ASSERT_FALSE(found.empty()) << tool;
        std::filesystem::create_symlink(found, bin / tool);
    }
    const auto without_openssl = [&](exec::Command command) {
        command.argv.insert(command.argv.begin(), {"env", "PATH=" + bin.string()});
        return box.run(command);
    };
    const auto file = box.dir() / "weights.bin";
    box.write(file, "weights\n");

    const auto probe = without_openssl(probe_command({file.string()}));
    ASSERT_TRUE(probe.ok()) << probe.err;
    const auto parsed = parse_probe(probe.out, 1);
    ASSERT_TRUE(parsed) << probe.out;
    EXPECT_EQ((*parsed)[0].sha256, util::sha256_hex("weights\n"));

    const auto temp = temporary_name(file.string(), "t");
    box.write(temp, "new weights\n");
    const auto verify =
        without_openssl(verify_and_rename_command(temp, util::sha256_hex("new weights\n"), file.string()));
    EXPECT_TRUE(verify.ok()) << verify.err;
    EXPECT_EQ(box.read(file), "new weights\n");
}

TEST(PushPlan, ProbeOutputWithTheWrongShapeIsRejected) {
    EXPECT_FALSE(parse_probe("missing\n", 2));
    EXPECT_FALSE(parse_probe("file 9x9 abc\n", 1));
    EXPECT_FALSE(parse_probe("hello\n", 1));
    const auto unreadable = parse_probe("file 600 -\n", 1);
    ASSERT_TRUE(unreadable);
    EXPECT_EQ((*unreadable)[0].sha256, "");
}

TEST(PushPlan, MakeDirectoriesCreatesEachParentOnce) {
    EXPECT_THAT(make_directories_command({"/data/w/a.whl", "/data/w/b.whl", "/tmp/p.py", "/top"}).argv,
                ElementsAre("mkdir", "-p", "--", "/data/w", "/tmp"));
    EXPECT_THAT(make_directories_command({"/top"}).argv, ElementsAre("true"));
}

TEST(PushPlan, VerifyRenamesOnlyAFileWithTheExpectedChecksum) {
    testing::ScriptSandbox box("push verify");
    const auto dest = box.dir() / "final name.whl";
    const auto temp = temporary_name(dest.string(), "abc");
    box.write(temp, "payload");
    box.write(dest, "old");

    const auto wrong = box.run(verify_and_rename_command(temp, util::sha256_hex("other"), dest.string()));
    EXPECT_EQ(wrong.exit_code, kChecksumMismatch);
    EXPECT_EQ(wrong.err, util::sha256_hex("payload") + "\n");
    EXPECT_FALSE(std::filesystem::exists(temp)) << "a corrupted upload must not stay behind";
    EXPECT_EQ(box.read(dest), "old");

    box.write(temp, "payload");
    const auto right = box.run(verify_and_rename_command(temp, util::sha256_hex("payload"), dest.string()));
    EXPECT_TRUE(right.ok()) << right.err;
    EXPECT_EQ(box.read(dest), "payload");
    EXPECT_FALSE(std::filesystem::exists(temp));
}

TEST(PushPlan, ChmodTakesAnOctalMode) {
    EXPECT_THAT(chmod_command("/x", 0755).argv, ElementsAre("chmod", "755", "--", "/x"));
}

}  // namespace
}  // namespace pdctl::push
