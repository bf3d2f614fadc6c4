// The SLURM runtime's inspect and stop scripts (src/runtime/scripts/slurm_*.sh), run for real by sh in
// a script sandbox, with squeue and scancel replaced by small scripts that answer from files: which
// job of a name is current, which states hold nodes, what a failing squeue does to the answer, and how
// a stop escalates from SIGTERM to scancel to "SLURM still holds it". The real SLURM cluster
// (tests/slurm) runs the same scripts end to end; these tests reach the cases it cannot stage on cue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "pdctl/runtime/slurm_job.hpp"
#include "pdctl/runtime/slurm_runtime.hpp"
#include "unit/support/script_sandbox.hpp"

namespace pdctl::runtime {
namespace {

namespace fs = std::filesystem;

// squeue answers from FAKE_SLURM/squeue.jobs ("name|id|state|reason" lines) in the two formats the scripts
// ask for, or from FAKE_SLURM/squeue.steps ("id|name") with --steps; it fails while FAKE_SLURM/squeue.fail
// exists. scancel records its arguments, and ends the named job (or step) when FAKE_SLURM/ends-on-term
// or ends-on-cancel says it does for that kind of call. Every call is appended to FAKE_SLURM/calls.
constexpr const char* kFakeSqueue = R"sh(#!/bin/sh
echo "squeue $*" >> "$FAKE_SLURM/calls"
if [ -f "$FAKE_SLURM/squeue.fail" ]; then
  echo "squeue: error: Unable to contact slurm controller (connect failure)" >&2; exit 1
fi
format= names= steps=
for a in "$@"; do
  case $a in --format=*) format=${a#--format=} ;; --name=*) names=${a#--name=} ;; --steps) steps=1 ;; esac
done
if [ -n "$steps" ]; then cat "$FAKE_SLURM/squeue.steps" 2>/dev/null; exit 0; fi
[ -f "$FAKE_SLURM/squeue.jobs" ] || exit 0
while IFS='|' read -r name id state reason; do
  case ",$names," in *",$name,"*) ;; *) continue ;; esac
  if [ "$format" = '%i %T' ]; then echo "$id $state"; else echo "$name|$id|$state|$reason"; fi
done < "$FAKE_SLURM/squeue.jobs"
)sh";

constexpr const char* kFakeScancel = R"sh(#!/bin/sh
echo "scancel $*" >> "$FAKE_SLURM/calls"
case $1 in --signal=TERM) kind=term ;; *) kind=cancel ;; esac
[ -f "$FAKE_SLURM/ends-on-$kind" ] || exit 0
sed -i 's/|RUNNING|/|CANCELLED|/; s/|PENDING|/|CANCELLED|/' "$FAKE_SLURM/squeue.jobs" 2>/dev/null
: > "$FAKE_SLURM/squeue.steps"
)sh";

class SlurmScripts : public ::testing::Test {
  protected:
    SlurmScripts() : sandbox_("slurm-scripts") {
        fs::create_directories(bin());
        for (const auto& [name, text] :
             {std::pair{"squeue", kFakeSqueue}, std::pair{"scancel", kFakeScancel}}) {
            sandbox_.write(bin() / name, text);
            fs::permissions(bin() / name, fs::perms::owner_all);
        }
    }

    fs::path bin() const { return sandbox_.dir() / "bin"; }
    fs::path root() const { return sandbox_.dir() / "jobs"; }

    // A unit of group `group` on `node`, with the files a prepared job leaves (runtime/slurm_job.cpp).
    void add_unit(const std::string& group, const std::string& node, int rank = 0) {
        UnitSpec unit;
        unit.cluster = "c";
        unit.role = group;
        unit.node = node;
        unit.rank = rank;
        unit.name = "pd-c-" + group + "-" + std::to_string(rank);
        const auto dir = root() / group;
        fs::create_directories(dir);
        for (const char* suffix : {".env", ".sh", ".log"}) sandbox_.write(dir / (unit.name + suffix), "x\n");
        sandbox_.write(dir / (unit.name + ".labels"), slurm_labels_text(unit, "pd-c-" + group));
    }

    SlurmRuntime runtime(const std::string& node, const std::string& allocation = "") const {
        RuntimeSpec spec;
        spec.slurm_dir = root().string();
        spec.slurm_allocation = allocation;
        spec.stop_grace_seconds = 0;
        return SlurmRuntime(spec, node);
    }

    // The command as pdctl builds it, with the fake SLURM first on PATH.
    exec::CommandResult run(exec::Command command) {
        const char* path = std::getenv("PATH");
        command.argv.insert(command.argv.begin(), {"env", "PATH=" + bin().string() + ":" + (path ? path : ""),
                                                   "FAKE_SLURM=" + sandbox_.dir().string()});
        return sandbox_.run(command);
    }
    exec::CommandResult stop(const SlurmRuntime& slurm, const std::string& unit) {
        auto command = slurm.stop(unit);
        command.argv[7] = "0";  // kill_wait: "still held" at once instead of after a minute
        return run(command);
    }

    void file(const std::string& name, const std::string& text) const {
        sandbox_.write(sandbox_.dir() / name, text);
    }
    std::string calls() const { return sandbox_.read(sandbox_.dir() / "calls"); }
    bool exists(const std::string& group, const std::string& file_name) const {
        return fs::exists(root() / group / file_name);
    }

    testing::ScriptSandbox sandbox_;
};

const UnitState* find(const std::vector<UnitState>& units, const std::string& name) {
    for (const auto& unit : units)
        if (unit.unit == name) return &unit;
    return nullptr;
}

TEST_F(SlurmScripts, InspectTakesTheNewestJobOfANameAndCountsEveryUnfinishedStateAsRunning) {
    add_unit("prefill", "n1");
    add_unit("decode", "n1");
    add_unit("router", "n1");
    add_unit("mooncake-master", "n1");
    add_unit("other", "n2");
    file("squeue.jobs",
         "pd-c-prefill|12|RUNNING|None\npd-c-prefill|11|COMPLETED|None\n"  // an older job of the name ended
         "pd-c-decode|13|PENDING|Resources\n"
         "pd-c-router|14|FAILED|NonZeroExitCode\n"
         "pd-c-other|15|RUNNING|None\n");
    const auto slurm = runtime("n1");
    const auto result = run(slurm.inspect("c"));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto units = slurm.parse_inspect(result.out);
    ASSERT_EQ(units.size(), 4u) << result.out;
    EXPECT_EQ(find(units, "pd-c-other-0"), nullptr) << "a unit of another node";

    const auto* prefill = find(units, "pd-c-prefill-0");
    ASSERT_NE(prefill, nullptr);
    EXPECT_TRUE(prefill->running);
    EXPECT_EQ(prefill->scheduler, "job 12 RUNNING (None)");
    EXPECT_EQ(prefill->labels.at("pdctl.role"), "prefill");

    const auto* decode = find(units, "pd-c-decode-0");
    ASSERT_NE(decode, nullptr);
    EXPECT_TRUE(decode->running) << "a pending job will hold the group's nodes";
    EXPECT_EQ(decode->scheduler, "job 13 PENDING (Resources)");

    const auto* router = find(units, "pd-c-router-0");
    ASSERT_NE(router, nullptr);
    EXPECT_FALSE(router->running);
    EXPECT_EQ(router->scheduler, "job 14 FAILED (NonZeroExitCode)");

    const auto* master = find(units, "pd-c-mooncake-master-0");
    ASSERT_NE(master, nullptr);
    EXPECT_FALSE(master->running);
    EXPECT_EQ(master->scheduler, "no job pd-c-mooncake-master in squeue");

    const auto made = calls();
    EXPECT_EQ(std::count(made.begin(), made.end(), '\n'), 1) << "one squeue for every job: " << made;
}

TEST_F(SlurmScripts, ARankThatRecordedItsExitHasExitedWhileItsJobStillRuns) {
    add_unit("prefill", "n1");
    sandbox_.write(root() / "prefill" / "pd-c-prefill-0.exit", "3\n");
    file("squeue.jobs", "pd-c-prefill|12|RUNNING|None\n");
    const auto slurm = runtime("n1");
    const auto units = slurm.parse_inspect(run(slurm.inspect("c")).out);
    ASSERT_EQ(units.size(), 1u);
    EXPECT_FALSE(units[0].running);
    EXPECT_EQ(units[0].exit_code, "3");
}

TEST_F(SlurmScripts, AFailingSqueueFailsTheInspectInsteadOfShowingUnitsStopped) {
    add_unit("prefill", "n1");
    file("squeue.fail", "");
    const auto result = run(runtime("n1").inspect("c"));
    EXPECT_NE(result.exit_code, 0);
    EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST_F(SlurmScripts, ANodeWithoutUnitsAsksSlurmNothing) {
    add_unit("prefill", "n2");
    const auto result = run(runtime("n1").inspect("c"));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(result.out.empty());
    EXPECT_TRUE(calls().empty()) << calls();
}

TEST_F(SlurmScripts, StoppingAGroupSlurmNoLongerHoldsRemovesItsFilesButTheLog) {
    add_unit("prefill", "n1");
    file("squeue.jobs", "pd-c-prefill|12|COMPLETED|None\n");
    const auto result = stop(runtime("n1"), "pd-c-prefill-0");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "pd-c-prefill was not running\n");
    EXPECT_EQ(calls().find("scancel"), std::string::npos) << calls();
    EXPECT_FALSE(exists("prefill", "pd-c-prefill-0.env")) << "env files hold secrets";
    EXPECT_FALSE(exists("prefill", "pd-c-prefill-0.labels"));
    EXPECT_TRUE(exists("prefill", "pd-c-prefill-0.log"));
}

TEST_F(SlurmScripts, AJobThatEndsOnSigtermIsNotCancelled) {
    add_unit("prefill", "n1");
    file("squeue.jobs", "pd-c-prefill|12|RUNNING|None\n");
    file("ends-on-term", "");
    const auto result = stop(runtime("n1"), "pd-c-prefill-0");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "stopped pd-c-prefill (job 12 RUNNING)\n");
    EXPECT_NE(calls().find("scancel --signal=TERM --name=pd-c-prefill\n"), std::string::npos) << calls();
    EXPECT_EQ(calls().find("scancel --name="), std::string::npos) << calls();
    EXPECT_FALSE(exists("prefill", "pd-c-prefill-0.labels"));
}

TEST_F(SlurmScripts, AJobThatIgnoresSigtermIsCancelledAfterTheGrace) {
    add_unit("prefill", "n1");
    file("squeue.jobs", "pd-c-prefill|12|PENDING|Priority\n");
    file("ends-on-cancel", "");
    const auto result = stop(runtime("n1"), "pd-c-prefill-0");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "stopped pd-c-prefill (job 12 PENDING)\n");
    EXPECT_NE(calls().find("scancel --name=pd-c-prefill\n"), std::string::npos) << calls();
}

TEST_F(SlurmScripts, AJobSlurmStillHoldsFailsTheStopAndKeepsTheUnitForStatus) {
    add_unit("prefill", "n1");
    file("squeue.jobs", "pd-c-prefill|12|RUNNING|None\n");  // neither the signal nor the cancel ends it
    const auto result = stop(runtime("n1"), "pd-c-prefill-0");
    EXPECT_EQ(result.exit_code, 70);
    EXPECT_NE(result.err.find("SLURM still holds job 12 RUNNING after SIGTERM, 0s, scancel and 0s more"),
              std::string::npos)
        << result.err;
    EXPECT_TRUE(exists("prefill", "pd-c-prefill-0.labels")) << "status must keep showing it";
}

TEST_F(SlurmScripts, AFailingSqueueFailsTheStopNamingIt) {
    add_unit("prefill", "n1");
    file("squeue.fail", "");
    const auto result = stop(runtime("n1"), "pd-c-prefill-0");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("pdctl: squeue failed: squeue: error: Unable to contact slurm controller"),
              std::string::npos)
        << result.err;
    EXPECT_TRUE(exists("prefill", "pd-c-prefill-0.labels"));
}

TEST_F(SlurmScripts, InStepModeAListedStepRunsAndAGroupWithNeitherStepNorSrunHasExited) {
    add_unit("prefill", "n1");
    add_unit("decode", "n1");
    file("squeue.steps", "77.0|pd-c-prefill\n78.0|pd-c-decode\n");  // 78: another allocation's step
    const auto slurm = runtime("n1", "77");
    const auto result = run(slurm.inspect("c"));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto units = slurm.parse_inspect(result.out);
    ASSERT_EQ(units.size(), 2u) << result.out;
    EXPECT_TRUE(find(units, "pd-c-prefill-0")->running);
    EXPECT_EQ(find(units, "pd-c-prefill-0")->scheduler, "step 77.0 RUNNING");
    EXPECT_FALSE(find(units, "pd-c-decode-0")->running);
    EXPECT_EQ(find(units, "pd-c-decode-0")->scheduler, "no step pd-c-decode in allocation 77");
}

TEST_F(SlurmScripts, InStepModeStopSignalsTheStepAndLeavesTheAllocation) {
    add_unit("prefill", "n1");
    file("squeue.steps", "77.0|pd-c-prefill\n");
    file("ends-on-term", "");
    const auto result = stop(runtime("n1", "77"), "pd-c-prefill-0");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "stopped pd-c-prefill (step 77.0)\n");
    EXPECT_NE(calls().find("scancel --signal=TERM 77.0\n"), std::string::npos) << calls();
    EXPECT_EQ(calls().find("scancel 77"), std::string::npos) << "the allocation is the operator's";
}

// The final states are written in both the inspect and the stop script: they must be the same list,
// or a unit could look stopped to status while stop still waits for it (or the reverse).
TEST_F(SlurmScripts, InspectAndStopAgreeOnWhichJobStatesAreFinal) {
    const auto slurm = runtime("n1");
    const std::regex states(R"(''\|COMPLETED\|[A-Z_|]+\))");
    std::smatch in_inspect, in_stop;
    const auto inspect_text = slurm.inspect("c").argv[2];
    const auto stop_text = slurm.stop("pd-c-prefill-0").argv[2];
    ASSERT_TRUE(std::regex_search(inspect_text, in_inspect, states));
    ASSERT_TRUE(std::regex_search(stop_text, in_stop, states));
    EXPECT_EQ(in_inspect.str(), in_stop.str());
    EXPECT_NE(in_inspect.str().find("|TIMEOUT|"), std::string::npos);
    EXPECT_EQ(in_inspect.str().find("PENDING"), std::string::npos) << "a pending job still holds its nodes";
}

}  // namespace
}  // namespace pdctl::runtime
