// `pdctl stack`'s folding of py-spy dumps: ranks grouped by where they are, the odd ones out named,
// failed dumps with what to do.
#include "pdctl/report/stack_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

std::string dump(int pid, const std::vector<std::string>& frames, const std::string& thread = "MainThread") {
    std::string text = "Process " + std::to_string(pid) +
                       ": python3 -m sglang.launch_server\n"
                       "Python v3.10.12 (/usr/bin/python3.10)\n\n"
                       "Thread " +
                       std::to_string(pid) + " (idle): \"" + thread + "\"\n";
    for (const auto& frame : frames) text += "    " + frame + "\n";
    return text;
}

RankDump rank(int index, const std::string& out, int exit_code = 0, const std::string& err = "") {
    exec::CommandResult result;
    result.exit_code = exit_code;
    result.out = out;
    result.err = err;
    return {"prefill", index, "n" + std::to_string(index + 1), result};
}

const std::vector<std::string> kWaiting = {"broadcast_pyobj (sglang/srt/utils/common.py:1118)",
                                           "event_loop_normal (sglang/srt/managers/scheduler.py:903)"};

TEST(PySpyDump, ParsesProcessesThreadsAndFramesButNotLocals) {
    const auto processes =
        runtime::parse_py_spy_dump(dump(1, {"select (selectors.py:416)"}) +
                                   "Thread 7 (active): \"Thread-2\"\n    run (threading.py:953)\n        "
                                   "Arguments:\n            self: <x>\n" +
                                   dump(2, kWaiting));
    ASSERT_EQ(processes.size(), 2u);
    ASSERT_EQ(processes[0].threads.size(), 2u);
    EXPECT_EQ(processes[0].threads[1].name, "Thread-2");
    EXPECT_EQ(processes[0].threads[1].frames, (std::vector<std::string>{"run (threading.py:953)"}));
    EXPECT_EQ(
        runtime::top_places(processes),
        (std::vector<std::string>{"select (selectors.py)", "broadcast_pyobj (sglang/srt/utils/common.py)"}));
    EXPECT_EQ(runtime::frame_place("f (a.py:12)"), "f (a.py)");
    EXPECT_EQ(runtime::frame_place("<module> (x.py)"), "<module> (x.py)");
}

TEST(StackView, TheOddRankIsNamedWithWhatTellsItApart) {
    const std::vector<RankDump> dumps = {
        rank(0, dump(10, kWaiting)), rank(1, dump(11, kWaiting)),
        rank(2, dump(12, {"_create_buffers (sglang/srt/mem_cache/memory_pool.py:622)"})),
        rank(3, dump(13, kWaiting))};
    std::vector<const RankDump*> all;
    for (const auto& d : dumps) all.push_back(&d);
    const auto folds = fold_stacks(all);
    ASSERT_EQ(folds.size(), 2u);
    EXPECT_EQ(folds[0].ranks.size(), 3u);
    EXPECT_EQ(odd_ones_out(folds),
              (std::vector<std::string>{
                  "rank 2 on n3 is in `_create_buffers (sglang/srt/mem_cache/memory_pool.py)` "
                  "while ranks 0,1,3 are in `broadcast_pyobj (sglang/srt/utils/common.py)`"}));
    const auto text = render_stack_text(dumps);
    EXPECT_EQ(text.rfind("prefill: 4 of 4 ranks dumped\n  rank 2 on n3 is in", 0), 0u) << text;
    EXPECT_NE(text.find("── ranks 0,1,3 (n1, n2, n4) ──\nProcess 10:"), std::string::npos) << text;
    EXPECT_NE(text.find("── rank 2 (n3) ──\nProcess 12:"), std::string::npos) << text;
    EXPECT_EQ(ops::stack_exit_code(dumps), ExitCode::kOk);
    const auto doc = stack_to_json(dumps);
    EXPECT_EQ(doc["stages"][0]["groups"][1]["ranks"], nlohmann::json::array({2}));
}

TEST(StackView, AllInOnePlaceOrAnEvenSplitNamesNoOddOneOut) {
    const std::vector<RankDump> same = {rank(0, dump(10, kWaiting)), rank(1, dump(11, kWaiting))};
    EXPECT_NE(render_stack_text(same).find("prefill: 2 of 2 ranks dumped, all in `broadcast_pyobj"),
              std::string::npos);
    const std::vector<RankDump> split = {rank(0, dump(10, kWaiting)), rank(1, dump(11, {"f (a.py:1)"}))};
    std::vector<const RankDump*> all = {&split[0], &split[1]};
    EXPECT_TRUE(odd_ones_out(fold_stacks(all)).empty());
}

TEST(StackView, AFailedDumpSaysWhyAndWhatToAdd) {
    const std::vector<RankDump> dumps = {
        rank(0, dump(10, kWaiting)),
        rank(1, "", 1,
             "Permission Denied: Try running again with elevated permissions by going 'sudo env'\n"),
        rank(2, "", 127, "pdctl: py-spy is not installed in the container's image\n")};
    const auto text = render_stack_text(dumps);
    EXPECT_NE(text.find("prefill: 1 of 3 ranks dumped"), std::string::npos) << text;
    EXPECT_NE(text.find("rank 1 on n2: no stack: exit 1: Permission Denied"), std::string::npos) << text;
    EXPECT_NE(text.find("--cap-add SYS_PTRACE"), std::string::npos) << text;
    EXPECT_NE(text.find("pip install py-spy"), std::string::npos) << text;
    EXPECT_EQ(ops::stack_exit_code(dumps), ExitCode::kCommandFailed);
}

}  // namespace
}  // namespace pdctl::report
