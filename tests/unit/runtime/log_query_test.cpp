// logs --since / --follow: the process runtime's scripts run for real on files, docker's argv and parsing.
#include "pdctl/runtime/log_query.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ctime>

#include "unit/support/script_sandbox.hpp"

namespace pdctl::runtime {
namespace {

using ::testing::HasSubstr;

RuntimeSpec process_runtime() {
    return {config::RuntimeKind::Process, "", "", {}, "/tmp", 10, "", ""};
}
RuntimeSpec docker_runtime() {
    return {config::RuntimeKind::Docker, "docker", "img:1", {}, "/tmp", 10, "", ""};
}

// SGLang's stamp for a moment `seconds_ago` before now, in local time like the servers write it.
std::string sglang_stamp(long long seconds_ago) {
    const std::time_t at = std::time(nullptr) - seconds_ago;
    std::tm local{};
    ::localtime_r(&at, &local);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
    return std::string("[") + text;
}

class ProcessLogs : public ::testing::Test {
  protected:
    std::string read(const LogRequest& request) {
        const auto answer =
            sandbox.run(read_log_command(process_runtime(), sandbox.dir().string(), "u", request));
        EXPECT_EQ(answer.exit_code, 0) << answer.err;
        return answer.out;
    }
    LogRequest since(const std::string& text, int tail = -1) {
        LogRequest request;
        request.since = parse_since(text);
        request.tail_lines = tail;
        EXPECT_TRUE(request.since) << text;
        return request;
    }
    std::filesystem::path log() const { return sandbox.dir() / "u.log"; }

    testing::ScriptSandbox sandbox{"logs"};
};

TEST(LogSince, ReadsDurationsAndNodeTimes) {
    EXPECT_EQ(parse_since("10m")->seconds_ago, 600);
    EXPECT_EQ(parse_since("90s")->seconds_ago, 90);
    EXPECT_EQ(parse_since("2h")->seconds_ago, 7200);
    EXPECT_EQ(parse_since("2026-11-29 08:12")->local_time, "2026-11-29 08:12:00");
    EXPECT_EQ(parse_since("2026-11-29T08:12:03")->local_time, "2026-11-29 08:12:03");
    EXPECT_EQ(parse_since("2026-11-29T08:12:03")->seconds_ago, -1);
    EXPECT_FALSE(parse_since("yesterday"));
    EXPECT_FALSE(parse_since("2026-11-29"));
    EXPECT_FALSE(parse_since("-5m"));
}

TEST_F(ProcessLogs, KeepsLinesFromTheMomentOnWithTheirContinuationLines) {
    sandbox.write(log(),
                  "preamble without a stamp\n"
                  "[2026-01-01 10:00:00] old line\n"
                  "  old traceback line\n"
                  "[2026-01-01 12:00:00 TP8] new line\n"
                  "  new traceback line\n"
                  "[2026-01-01 12:30:00] newest line\n");
    EXPECT_EQ(read(since("2026-01-01 11:00")),
              "[2026-01-01 12:00:00 TP8] new line\n"
              "  new traceback line\n"
              "[2026-01-01 12:30:00] newest line\n");
    EXPECT_EQ(read(since("2026-01-01 11:00", 1)), "[2026-01-01 12:30:00] newest line\n")
        << "--tail applies to what --since kept";
    EXPECT_EQ(read(since("2027-01-01 00:00")), "");
}

TEST_F(ProcessLogs, LinesBeforeTheFirstStampGoWithIt) {
    sandbox.write(log(), "preamble\n[2026-01-01 12:00:00] first stamped line\n");
    EXPECT_EQ(read(since("2026-01-01 11:00")), "preamble\n[2026-01-01 12:00:00] first stamped line\n");
}

TEST_F(ProcessLogs, AFileWithoutStampsGoesByItsModificationTime) {
    sandbox.write(log(), "INFO: no stamp here\nnor here\n");
    EXPECT_EQ(read(since("1h")), "INFO: no stamp here\nnor here\n") << "written just now";
    EXPECT_EQ(read(since("2099-01-01 00:00")), "");
}

TEST_F(ProcessLogs, RelativeSinceUsesTheNodeClock) {
    // Each stamp is taken once: the clock may pass a second boundary between two calls (seen under load).
    const auto minute_ago = sglang_stamp(60) + "] a minute ago\n";
    sandbox.write(log(), sglang_stamp(7200) + "] two hours ago\n" + minute_ago);
    EXPECT_EQ(read(since("30m")), minute_ago);
    EXPECT_THAT(read(since("3h")), HasSubstr("two hours ago"));
}

TEST_F(ProcessLogs, GlogStampsTakeThisYearUnlessThatIsInTheFuture) {
    // Mooncake's glog lines: "I1129 08:12:03.123456 4242 file.cpp:12] msg", without a year.
    const auto glog = [](long long seconds_ago) {
        const std::time_t at = std::time(nullptr) - seconds_ago;
        std::tm local{};
        ::localtime_r(&at, &local);
        char text[32];
        std::strftime(text, sizeof text, "I%m%d %H:%M:%S.000000 42 master.cpp:1]", &local);
        return std::string(text);
    };
    const auto minute_ago = glog(60) + " a minute ago\n";  // the clock read once (see above)
    sandbox.write(log(), glog(7200) + " two hours ago\n" + minute_ago);
    EXPECT_EQ(read(since("30m")), minute_ago);
    EXPECT_EQ(read(since("2099-01-01 00:00")), "") << "today's glog lines are not in 2099";
}

TEST_F(ProcessLogs, FollowContinuesAtTheByteWhereTheLastReadStopped) {
    sandbox.write(log(), "one\ntwo\nthree\n");
    LogRequest first;
    first.tail_lines = 2;
    first.with_cursor = true;
    auto chunk = parse_log_chunk(process_runtime(), read(first), {});
    EXPECT_EQ(chunk.text, "two\nthree\n");
    EXPECT_EQ(chunk.next.offset, 14);

    const auto follow = [&](const LogCursor& cursor, long long max_bytes = 1 << 20) {
        const auto answer = sandbox.run(
            follow_log_command(process_runtime(), sandbox.dir().string(), "u", cursor, max_bytes));
        EXPECT_EQ(answer.exit_code, 0) << answer.err;
        return parse_log_chunk(process_runtime(), answer.out, cursor);
    };
    EXPECT_EQ(follow(chunk.next).text, "") << "nothing new";
    sandbox.append(log(), "four\nfi");
    chunk = follow(chunk.next);
    EXPECT_EQ(chunk.text, "four\nfi") << "a line still being written comes as it is";
    EXPECT_FALSE(chunk.restarted);
    sandbox.append(log(), "ve\nsix\n");
    const auto limited = follow(chunk.next, 3);
    EXPECT_EQ(limited.text, "ve\n");
    EXPECT_EQ(follow(limited.next).text, "six\n");

    sandbox.write(log(), "new run\n");  // the unit started again: its log was rewritten
    const auto restarted = follow(limited.next);
    EXPECT_TRUE(restarted.restarted);
    EXPECT_EQ(restarted.text, "new run\n");
    EXPECT_EQ(restarted.next.offset, 8);
}

TEST_F(ProcessLogs, AMissingLogIsAnErrorToReadAndEmptyToFollow) {
    LogRequest request;
    request.since = parse_since("1h");
    const auto answer =
        sandbox.run(read_log_command(process_runtime(), sandbox.dir().string(), "nope", request));
    EXPECT_NE(answer.exit_code, 0);
    EXPECT_THAT(answer.err, HasSubstr("no log file"));
    const auto follow =
        sandbox.run(follow_log_command(process_runtime(), sandbox.dir().string(), "nope", {}));
    EXPECT_EQ(follow.exit_code, 0);
    EXPECT_EQ(parse_log_chunk(process_runtime(), follow.out, {}).text, "");
}

TEST(DockerLogs, SinceAndTailBecomeDockerFlags) {
    LogRequest request;
    request.since = parse_since("10m");
    request.tail_lines = -1;
    auto command = read_log_command(docker_runtime(), "/d", "pd-x-prefill-0", request);
    EXPECT_EQ(std::vector<std::string>(command.argv.begin() + 3, command.argv.end()),
              (std::vector<std::string>{"pdctl-logs", "docker", "pd-x-prefill-0", "0", "--since", "600s",
                                        "--tail", "all"}));
    request.since = parse_since("2026-11-29 08:12");
    request.tail_lines = 20;
    request.with_cursor = true;
    command = read_log_command(docker_runtime(), "/d", "pd-x-prefill-0", request);
    EXPECT_EQ(
        std::vector<std::string>(command.argv.begin() + 6, command.argv.end()),
        (std::vector<std::string>{"1", "--timestamps", "--since", "2026-11-29T08:12:00", "--tail", "20"}));
    const auto follow =
        follow_log_command(docker_runtime(), "/d", "pd-x-prefill-0", {0, "2026-11-29T08:12:03.5Z"});
    EXPECT_EQ(std::vector<std::string>(follow.argv.begin() + 6, follow.argv.end()),
              (std::vector<std::string>{"0", "--timestamps", "--since", "2026-11-29T08:12:03.5Z"}));
}

TEST(DockerLogs, TimestampsAreStrippedAndLinesAlreadyShownSkipped) {
    const auto first = parse_log_chunk(docker_runtime(),
                                       "pdctl-log-cursor=2026-11-29T08:12:00.000000001Z\n"
                                       "2026-11-29T08:11:59.5Z [2026-11-29 08:11:59] hello\n"
                                       "2026-11-29T08:11:59.75Z world\n",
                                       {});
    EXPECT_EQ(first.text, "[2026-11-29 08:11:59] hello\nworld\n");
    EXPECT_EQ(first.next.timestamp, "2026-11-29T08:12:00.000000001Z")
        << "the node's clock when nothing is newer";

    const auto next = parse_log_chunk(docker_runtime(),
                                      "2026-11-29T08:12:00.000000001Z again\n"
                                      "2026-11-29T08:12:01Z fresh\n"
                                      "Error response from daemon: No such container\n",
                                      first.next);
    EXPECT_EQ(next.text, "fresh\nError response from daemon: No such container\n");
    EXPECT_EQ(next.next.timestamp, "2026-11-29T08:12:01.000000000Z");
}

TEST(DockerLogs, TimestampsCompareAsTextOncePadded) {
    EXPECT_EQ(normalize_rfc3339("2026-11-29T08:12:03.5Z"), "2026-11-29T08:12:03.500000000Z");
    EXPECT_EQ(normalize_rfc3339("2026-11-29T08:12:03Z"), "2026-11-29T08:12:03.000000000Z");
    EXPECT_GT(normalize_rfc3339("2026-11-29T08:12:03.5Z"), normalize_rfc3339("2026-11-29T08:12:03.45678Z"));
}

}  // namespace
}  // namespace pdctl::runtime
