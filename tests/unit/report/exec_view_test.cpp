// pdctl exec's output: identical text once under its nodes, then the outcomes; JSON per node.
#include "pdctl/report/exec_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

ExecAnswer answer(const std::string& node, int code, const std::string& out, const std::string& err = "") {
    exec::CommandResult result;
    result.exit_code = code;
    result.out = out;
    result.err = err;
    return {node, node, "", result};
}

ExecAnswer unreachable(const std::string& node) {
    exec::CommandResult result;
    result.transport_error = "connection refused";
    return {node, node, "", result};
}

TEST(ExecView, IdenticalOutputIsFoldedUnderItsNodesBiggestGroupFirst) {
    const std::vector<ExecAnswer> answers = {
        answer("n1", 0, "GPU 0: H200\n"), answer("n2", 1, "", "no GPU\n"), answer("n3", 0, "GPU 0: H200\n"),
        answer("n4", 0, "GPU 0: H200\n"), unreachable("n5")};
    EXPECT_EQ(render_exec_text(answers),
              "── n1, n3–n4 (3) ──\n"
              "GPU 0: H200\n"
              "── n2 (1) ──\n"
              "no GPU\n"
              "exit 0: n1, n3–n4 · exit 1: n2 · unreachable (connection refused): n5\n");
    EXPECT_EQ(ops::exec_exit_code(answers), ExitCode::kUnreachable);
}

TEST(ExecView, ExitCodesAndJson) {
    EXPECT_EQ(ops::exec_exit_code({answer("n1", 0, "")}), ExitCode::kOk);
    EXPECT_EQ(ops::exec_exit_code({answer("n1", 0, ""), answer("n2", 3, "")}), ExitCode::kCommandFailed);
    EXPECT_EQ(render_exec_text({answer("n1", 0, "")}), "── n1 (1) ──\n(no output)\nexit 0: n1\n");
    const auto doc = exec_to_json({answer("n1", 2, "out", "err"), unreachable("n2")});
    EXPECT_EQ(doc["ok"], false);
    ASSERT_EQ(doc["nodes"].size(), 2u);
    EXPECT_EQ(doc["nodes"][0]["exit_code"], 2);
    EXPECT_EQ(doc["nodes"][0]["stdout"], "out");
    EXPECT_EQ(doc["nodes"][0]["stderr"], "err");
    EXPECT_TRUE(doc["nodes"][1]["exit_code"].is_null());
    EXPECT_EQ(doc["nodes"][1]["unreachable"], "connection refused");
}

}  // namespace
}  // namespace pdctl::report
