// pull/puller against a scripted executor standing for nodes with image stores: pulled vs already
// present, a failing pull with its stderr, an unreachable node, a node whose registry serves another
// image under the same tag, and the "still pulling" ticks of a long pull.
#include "pdctl/pull/puller.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

namespace pdctl::pull {
namespace {

using Status = ImageOutcome::Status;
const std::string kGood = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
const std::string kOther = "sha256:2222222222222222222222222222222222222222222222222222222222222222";

// Each node has an image store (image → ID); a pull copies the registry's ID unless the node is
// scripted to fail or to see another registry.
class FakeNodes : public exec::Executor {
  public:
    std::map<std::string, std::map<std::string, std::string>> stores;  // node → image → id
    std::map<std::string, std::string> registry = {{"reg:5000/sglang:v1", kGood}};
    std::map<std::string, std::string> pull_errors;  // node → stderr
    std::set<std::string> unreachable;
    std::set<std::string> other_registry;  // these nodes get kOther for every image
    std::vector<std::string> commands;
    // When set, a pull on this node waits (bounded) until `release` becomes true.
    std::string slow_node;
    std::mutex mutex;
    std::condition_variable changed;
    bool release = false;

    exec::CommandResult run(const config::Node& node, const exec::Command& command) override {
        exec::CommandResult result;
        std::unique_lock lock(mutex);
        commands.push_back(node.name + ": " + command.argv[1]);
        if (unreachable.count(node.name)) {
            result.transport_error = node.name + " (10.0.0.9): connection refused";
            return result;
        }
        const auto& image = command.argv.back();
        if (command.argv[1] == "pull") {
            if (node.name == slow_node)
                changed.wait_for(lock, std::chrono::seconds(10), [&] { return release; });
            if (pull_errors.count(node.name)) {
                result.exit_code = 125;
                result.err = "Trying to pull " + image + "...\n" + pull_errors[node.name] + "\n";
                return result;
            }
            auto found = registry.find(image);
            if (found == registry.end()) {
                result.exit_code = 125;
                result.err = "Error: " + image + ": manifest unknown\n";
                return result;
            }
            stores[node.name][image] = other_registry.count(node.name) ? kOther : found->second;
            result.exit_code = 0;
            return result;
        }
        auto& store = stores[node.name];
        if (!store.count(image)) {
            result.exit_code = 125;
            result.err = "Error: " + image + ": image not known\n";
            return result;
        }
        result.exit_code = 0;
        result.out = store[image] + "\n";
        return result;
    }
};

struct Recorder : PullObserver {
    std::vector<std::string> images;
    std::vector<std::string> nodes;
    std::vector<std::string> ticks;
    std::function<void()> on_tick;
    void image_done(const std::string& node, const ImageOutcome& image, std::size_t done,
                    std::size_t total) override {
        images.push_back(node + " " + to_string(image.status) + " " + std::to_string(done) + "/" +
                         std::to_string(total));
    }
    void node_done(const NodeOutcome& outcome) override { nodes.push_back(outcome.node); }
    void still_pulling(const std::string& node, const ImageRef& image, Duration) override {
        ticks.push_back(node + " " + image.image);
        if (on_tick) on_tick();
    }
};

std::vector<NodeImages> plan_of(int nodes, const std::vector<std::string>& images = {"reg:5000/sglang:v1"}) {
    std::vector<NodeImages> plan;
    for (int i = 1; i <= nodes; ++i) {
        NodeImages entry;
        entry.node.name = "n" + std::to_string(i);
        for (const auto& image : images) entry.images.push_back({image, "podman"});
        plan.push_back(entry);
    }
    return plan;
}

TEST(Puller, AFirstPullPullsEverywhereAndASecondFindsItPresent) {
    FakeNodes nodes;
    Recorder recorder;
    const auto first = run_pull(nodes, plan_of(4), recorder);
    EXPECT_TRUE(first.all_pulled());
    ASSERT_EQ(first.nodes.size(), 4u);
    for (const auto& node : first.nodes) {
        ASSERT_EQ(node.images.size(), 1u);
        EXPECT_EQ(node.images[0].status, Status::Pulled) << node.node;
        EXPECT_EQ(node.images[0].id, kGood);
    }
    EXPECT_EQ(recorder.nodes.size(), 4u);
    const auto second = run_pull(nodes, plan_of(4), recorder);
    EXPECT_TRUE(second.all_pulled());
    for (const auto& node : second.nodes) EXPECT_EQ(node.images[0].status, Status::Present) << node.node;
    // Per image: inspect, pull, inspect.
    EXPECT_EQ(std::count(nodes.commands.begin(), nodes.commands.end(), "n1: pull"), 2);
    EXPECT_EQ(std::count(nodes.commands.begin(), nodes.commands.end(), "n1: image"), 4);
}

TEST(Puller, AFailedPullCarriesTheNodesStderrAndTheOthersStillPull) {
    FakeNodes nodes;
    nodes.pull_errors["n3"] =
        "Error: pinging container registry 10.77.0.254:5000: Get \"https://10.77.0.254:5000/v2/\": http: "
        "server gave HTTP response to HTTPS client";
    Recorder recorder;
    const auto result = run_pull(nodes, plan_of(4), recorder);
    EXPECT_FALSE(result.all_pulled());
    EXPECT_TRUE(result.any_failed());
    EXPECT_FALSE(result.any_unreachable());
    EXPECT_EQ(result.nodes[2].images[0].status, Status::Failed);
    EXPECT_THAT(result.nodes[2].images[0].error, ::testing::HasSubstr("HTTP response to HTTPS client"));
    EXPECT_EQ(result.nodes[3].images[0].status, Status::Pulled);
    EXPECT_TRUE(result.mismatches.empty());
}

TEST(Puller, AnUnreachableNodeIsMarkedAndItsImagesAreNotAttempted) {
    FakeNodes nodes;
    nodes.unreachable = {"n2"};
    Recorder recorder;
    const auto result = run_pull(nodes, plan_of(3, {"reg:5000/sglang:v1", "reg:5000/sglang:v1b"}), recorder);
    EXPECT_TRUE(result.any_unreachable());
    EXPECT_TRUE(result.nodes[1].unreachable);
    EXPECT_THAT(result.nodes[1].images[0].error, ::testing::HasSubstr("connection refused"));
    EXPECT_EQ(result.nodes[1].images[1].error, "not attempted: the node is unreachable");
    // The unknown tag fails on the reachable nodes with the registry's words.
    EXPECT_THAT(result.nodes[0].images[1].error, ::testing::HasSubstr("manifest unknown"));
    EXPECT_TRUE(result.any_failed());
}

TEST(Puller, ANodeWithAnotherImageUnderTheSameNameIsAMismatch) {
    FakeNodes nodes;
    nodes.other_registry = {"n4"};
    Recorder recorder;
    const auto result = run_pull(nodes, plan_of(5), recorder);
    EXPECT_FALSE(result.all_pulled());
    EXPECT_TRUE(result.any_failed());
    ASSERT_EQ(result.mismatches.size(), 1u);
    EXPECT_EQ(result.mismatches[0].node, "n4");
    EXPECT_EQ(result.mismatches[0].id, kOther);
    EXPECT_EQ(result.mismatches[0].majority, kGood);
}

TEST(Puller, ALongPullTicksUntilItEnds) {
    FakeNodes nodes;
    nodes.slow_node = "n2";
    Recorder recorder;
    // The slow pull ends once the observer has seen two ticks for it.
    recorder.on_tick = [&] {
        if (recorder.ticks.size() < 2) return;
        std::lock_guard lock(nodes.mutex);
        nodes.release = true;
        nodes.changed.notify_all();
    };
    PullOptions options;
    options.progress_every = std::chrono::milliseconds(20);
    const auto result = run_pull(nodes, plan_of(2), recorder, options);
    EXPECT_TRUE(result.all_pulled());
    ASSERT_GE(recorder.ticks.size(), 2u);
    EXPECT_EQ(recorder.ticks[0], "n2 reg:5000/sglang:v1");
}

TEST(Puller, AnInterruptSkipsThePullsNotYetBegun) {
    FakeNodes nodes;
    Recorder recorder;
    PullOptions options;
    options.interrupted = [] { return true; };
    const auto result = run_pull(nodes, plan_of(2), recorder, options);
    EXPECT_EQ(result.nodes[0].images[0].status, Status::Skipped);
    EXPECT_FALSE(result.all_pulled());
    EXPECT_EQ(std::count(nodes.commands.begin(), nodes.commands.end(), "n1: pull"), 0);
}

}  // namespace
}  // namespace pdctl::pull
