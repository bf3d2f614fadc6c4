// push/pusher on this machine: LocalExecutor runs the real node scripts; decorators inject a broken
// node and a corrupted upload.
#include "pdctl/push/pusher.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <future>
#include <map>
#include <set>

#include "pdctl/util/sha256.hpp"
#include "unit/support/script_sandbox.hpp"

namespace pdctl::push {
namespace {

using Status = FileOutcome::Status;

// Runs every command locally, except that `unreachable` nodes fail like a dead link and uploads to
// `corrupt` nodes arrive with different bytes.
class FaultyExecutor : public exec::Executor {
  public:
    std::set<std::string> unreachable;
    std::set<std::string> corrupt;

    exec::CommandResult run(const config::Node& node, const exec::Command& command) override {
        if (unreachable.count(node.name)) {
            exec::CommandResult result;
            result.transport_error = node.name + ": connection refused";
            return result;
        }
        return local_.run(node, command);
    }
    std::function<void()> on_upload;  // called as each upload starts

    exec::TransferResult upload(const config::Node& node, const std::string& local_path,
                                const std::string& remote_path, int mode,
                                std::chrono::milliseconds timeout) override {
        if (on_upload) on_upload();
        auto result = local_.upload(node, local_path, remote_path, mode, timeout);
        if (corrupt.count(node.name) && result.ok()) std::ofstream(remote_path, std::ios::app) << "!";
        return result;
    }

  private:
    exec::LocalExecutor local_;
};

struct Recorded {
    std::string node;
    std::string dest;
    Status status;
    std::size_t done;
    std::size_t total;
};

class RecordingObserver : public PushObserver {
  public:
    void file_done(const std::string& node, const FileOutcome& file, std::size_t done,
                   std::size_t total) override {
        files.push_back({node, file.dest, file.status, done, total});
    }
    void node_done(const NodeOutcome& outcome) override { nodes.push_back(outcome.node); }
    std::vector<Recorded> files;
    std::vector<std::string> nodes;
};

class PusherTest : public ::testing::Test {
  protected:
    PusherTest() : box_("pusher") {
        script_ = box_.dir() / "patch.py";
        wheel_ = box_.dir() / "mooncake.whl";
        box_.write(script_, "print('patched')\n");
        std::string wheel(700 * 1024 + 3, '\0');
        for (std::size_t i = 0; i < wheel.size(); ++i) wheel[i] = static_cast<char>(i * 7 + 1);
        box_.write(wheel_, wheel);
        for (const auto& path : {script_, wheel_})
            local_[path.string()] =
                LocalFile::hashed(*util::sha256_file_hex(path.string()), std::filesystem::file_size(path));
    }

    // Each node has its own directory under the sandbox, standing for its filesystem.
    std::filesystem::path node_root(const std::string& node) const { return box_.dir() / ("node " + node); }

    std::vector<NodeFiles> plan(const std::vector<std::string>& nodes) const {
        std::vector<NodeFiles> out;
        for (const auto& name : nodes) {
            NodeFiles entry{{name, "127.0.0.1", {}, {}, {}}, {}};
            config::FileSpec script;
            script.source = script_.string();
            script.dest = (node_root(name) / "tmp" / "patch.py").string();
            script.mode = 0755;
            config::FileSpec wheel;
            wheel.source = wheel_.string();
            wheel.dest = (node_root(name) / "data" / "wheels" / "mooncake.whl").string();
            entry.files = {script, wheel};
            out.push_back(entry);
        }
        return out;
    }

    PushResult push(const std::vector<NodeFiles>& plan, PushOptions options = {}) {
        observer_ = {};
        return run_push(executor_, plan, local_, observer_, options);
    }

    testing::ScriptSandbox box_;
    std::filesystem::path script_;
    std::filesystem::path wheel_;
    std::map<std::string, LocalFile> local_;
    FaultyExecutor executor_;
    RecordingObserver observer_;
};

TEST_F(PusherTest, SendsEveryFileThenFindsThemIdentical) {
    const auto nodes = plan({"n1", "n2", "n3"});
    const auto first = push(nodes);
    EXPECT_TRUE(first.all_in_place());
    EXPECT_EQ(first.bytes_sent(), 3 * (local_.at(script_.string()).size + local_.at(wheel_.string()).size));
    for (const auto& node : first.nodes)
        for (const auto& file : node.files) EXPECT_EQ(file.status, Status::Sent) << node.node << file.dest;
    const auto placed = node_root("n2") / "data" / "wheels" / "mooncake.whl";
    EXPECT_EQ(box_.read(placed), box_.read(wheel_));
    struct stat info {};
    ASSERT_EQ(::stat((node_root("n2") / "tmp" / "patch.py").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0755u);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(box_.dir()))
        EXPECT_EQ(entry.path().string().find(".pdctl-tmp-"), std::string::npos) << entry.path();

    const auto second = push(nodes);
    EXPECT_TRUE(second.all_in_place());
    EXPECT_EQ(second.bytes_sent(), 0u);
    for (const auto& node : second.nodes)
        for (const auto& file : node.files) EXPECT_EQ(file.status, Status::Identical);
}

TEST_F(PusherTest, ReportsEachNodesProgressAsDoneOfTotal) {
    push(plan({"n1", "n2"}));
    std::map<std::string, std::vector<std::size_t>> done;
    for (const auto& file : observer_.files) {
        EXPECT_EQ(file.total, 2u);
        done[file.node].push_back(file.done);
    }
    EXPECT_THAT(done["n1"], ::testing::ElementsAre(1u, 2u));
    EXPECT_THAT(done["n2"], ::testing::ElementsAre(1u, 2u));
    EXPECT_THAT(observer_.nodes, ::testing::UnorderedElementsAre("n1", "n2"));
}

TEST_F(PusherTest, ASameContentFileWithAnotherModeOnlyGetsItsModeFixed) {
    const auto nodes = plan({"n1"});
    push(nodes);
    ::chmod(nodes[0].files[0].dest.c_str(), 0600);
    const auto again = push(nodes);
    EXPECT_EQ(again.nodes[0].files[0].status, Status::ModeFixed);
    EXPECT_EQ(again.nodes[0].files[1].status, Status::Identical);
    EXPECT_EQ(again.bytes_sent(), 0u);
    struct stat info {};
    ::stat(nodes[0].files[0].dest.c_str(), &info);
    EXPECT_EQ(info.st_mode & 07777, 0755u);
}

TEST_F(PusherTest, AChangedFileIsSentAgainAndOnlyThatOne) {
    const auto nodes = plan({"n1", "n2"});
    push(nodes);
    box_.append(nodes[1].files[1].dest, "tampered");
    const auto again = push(nodes);
    EXPECT_EQ(again.nodes[1].files[1].status, Status::Sent);
    EXPECT_EQ(again.bytes_sent(), local_.at(wheel_.string()).size);
    EXPECT_EQ(box_.read(nodes[1].files[1].dest), box_.read(wheel_));
}

TEST_F(PusherTest, ACorruptedUploadFailsAndLeavesTheOldFileInPlace) {
    const auto nodes = plan({"n1", "n2"});
    std::filesystem::create_directories(std::filesystem::path(nodes[1].files[1].dest).parent_path());
    box_.write(nodes[1].files[1].dest, "old wheel");
    executor_.corrupt = {"n2"};
    const auto result = push(nodes);
    EXPECT_FALSE(result.all_in_place());
    EXPECT_FALSE(result.any_unreachable());
    EXPECT_EQ(result.nodes[0].in_place(), 2u);
    const auto& failed = result.nodes[1].files[1];
    EXPECT_EQ(failed.status, Status::Failed);
    EXPECT_THAT(failed.error, ::testing::HasSubstr("sha256 on the node is "));
    EXPECT_THAT(failed.error, ::testing::HasSubstr("expected " + local_.at(wheel_.string()).sha256.get()));
    EXPECT_EQ(box_.read(nodes[1].files[1].dest), "old wheel");
    for (const auto& entry : std::filesystem::recursive_directory_iterator(node_root("n2")))
        EXPECT_EQ(entry.path().string().find(".pdctl-tmp-"), std::string::npos) << entry.path();
}

TEST_F(PusherTest, AnUnreachableNodeFailsAloneAndIsMarked) {
    executor_.unreachable = {"n2"};
    const auto result = push(plan({"n1", "n2", "n3"}));
    EXPECT_TRUE(result.any_unreachable());
    EXPECT_TRUE(result.nodes[1].unreachable);
    EXPECT_EQ(result.nodes[1].in_place(), 0u);
    EXPECT_THAT(result.nodes[1].files[0].error, ::testing::HasSubstr("connection refused"));
    EXPECT_EQ(result.nodes[0].in_place(), 2u);
    EXPECT_EQ(result.nodes[2].in_place(), 2u);
}

TEST_F(PusherTest, ADirectoryInTheWayIsAFailureNamingThePath) {
    const auto nodes = plan({"n1"});
    std::filesystem::create_directories(nodes[0].files[0].dest);
    const auto result = push(nodes);
    EXPECT_EQ(result.nodes[0].files[0].status, Status::Failed);
    EXPECT_THAT(result.nodes[0].files[0].error, ::testing::HasSubstr("is not a regular file"));
    EXPECT_EQ(result.nodes[0].files[1].status, Status::Sent);
}

TEST_F(PusherTest, AfterAnInterruptNoFurtherFileIsStarted) {
    PushOptions options;
    options.interrupted = [] { return true; };
    const auto result = push(plan({"n1"}), options);
    for (const auto& file : result.nodes[0].files) {
        EXPECT_EQ(file.status, Status::Skipped);
        EXPECT_EQ(file.error, "interrupted");
    }
    EXPECT_FALSE(std::filesystem::exists(plan({"n1"})[0].files[0].dest));
}

TEST_F(PusherTest, BoundedParallelismStillReachesEveryNode) {
    PushOptions options;
    options.max_parallel_nodes = 2;
    const auto result = push(plan({"n1", "n2", "n3", "n4", "n5"}), options);
    EXPECT_TRUE(result.all_in_place());
    EXPECT_EQ(result.nodes.size(), 5u);
    EXPECT_EQ(result.nodes[4].node, "n5");
}

}  // namespace
}  // namespace pdctl::push

namespace pdctl::push {
namespace {

// A missing file's digest is not needed to start its upload: the upload here is what makes the digest
// known. Were the pusher to wait for the digest first, the push would never end; the bounded wait on
// the push's own future fails the test instead.
TEST_F(PusherTest, AFileMissingOnTheNodeIsUploadedBeforeItsLocalDigestIsKnown) {
    std::promise<std::string> digest;
    auto& wheel = local_[wheel_.string()];
    const std::string sha = wheel.sha256.get();
    wheel.sha256 = digest.get_future().share();
    std::once_flag once;
    executor_.on_upload = [&] { std::call_once(once, [&] { digest.set_value(sha); }); };
    auto pushed = std::async(std::launch::async, [&] { return push(plan({"n1"})); });
    const bool finished = pushed.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    std::call_once(once, [&] { digest.set_value(sha); });  // lets a stuck push end before the verdict
    ASSERT_TRUE(finished) << "the upload waited for the local digest";
    const auto result = pushed.get();
    EXPECT_TRUE(result.all_in_place());
    EXPECT_EQ(box_.read(node_root("n1") / "data" / "wheels" / "mooncake.whl"), box_.read(wheel_));
}

TEST_F(PusherTest, ASourceThatCannotBeHashedFailsAloneAndLeavesNoTemporaryFile) {
    std::promise<std::string> digest;
    digest.set_exception(std::make_exception_ptr(std::runtime_error("cannot read mooncake.whl: I/O error")));
    local_[wheel_.string()].sha256 = digest.get_future().share();
    const auto result = push(plan({"n1"}));
    ASSERT_EQ(result.nodes.size(), 1u);
    const auto& files = result.nodes[0].files;
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0].status, Status::Sent);
    EXPECT_EQ(files[1].status, Status::Failed);
    EXPECT_EQ(files[1].error, "cannot read mooncake.whl: I/O error");
    EXPECT_FALSE(result.nodes[0].unreachable);
    EXPECT_FALSE(std::filesystem::exists(node_root("n1") / "data" / "wheels" / "mooncake.whl"));
    for (const auto& entry : std::filesystem::recursive_directory_iterator(box_.dir()))
        EXPECT_EQ(entry.path().string().find(".pdctl-tmp-"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace pdctl::push
