#pragma once
// The fault-injection matrix (issue 5): every case injects one fault into a real run of pdctl and
// then checks the same invariant — `status` tells the truth about every unit, `stop` leaves nothing
// running, and a fresh `start` without the fault converges to healthy. Each case appends one row
// (case, fault, expected, result) to $PDCTL_FAULT_REPORT; the report test renders the rows as the
// matrix in docs/reliability.md (tests/faults/update-docs.sh).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "integration/pdctl_harness.hpp"
#include "integration/pdctl_process.hpp"

namespace pdctl::testing::faults {

using nlohmann::json;

// One row of the matrix.
struct Row {
    std::string group;     // "crash", "hang", "signal", ...
    std::string id;        // stable, e.g. crash-prefill-rank2-weights
    std::string fault;     // what was injected
    std::string expected;  // what pdctl must do
    std::string result;    // what it did ("pass" or the first failed expectation)
    long long ms = 0;      // the case's wall time, invariant included
};

inline std::filesystem::path report_path() {
    const char* path = std::getenv("PDCTL_FAULT_REPORT");
    return path && *path ? std::filesystem::path(path) : std::filesystem::path();
}

// Appends the row under an exclusive lock: CTest runs cases in parallel processes.
inline void record(const Row& row) {
    const auto path = report_path();
    if (path.empty()) return;
    std::filesystem::create_directories(path.parent_path());
    const json line = {{"group", row.group},       {"id", row.id},         {"fault", row.fault},
                       {"expected", row.expected}, {"result", row.result}, {"ms", row.ms}};
    const auto text = line.dump() + "\n";
    std::FILE* out = std::fopen(path.c_str(), "a");
    if (!out) return;
    ::flock(::fileno(out), LOCK_EX);
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
    ::flock(::fileno(out), LOCK_UN);
    std::fclose(out);
}

// The fields of /proc/PID/stat after "(comm) ": state, ppid, pgrp. False for a process that is gone.
struct ProcStat {
    std::string state;
    int ppid = 0;
    int pgrp = 0;
};
inline bool read_proc_stat(const std::filesystem::path& proc_dir, ProcStat& out) {
    const std::string stat = read_text(proc_dir / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream fields(stat.substr(close + 2));
    return static_cast<bool>(fields >> out.state >> out.ppid >> out.pgrp);
}

// Calls fn(pid, /proc/PID, stat) for every process that is alive (not a zombie: PID 1 here does not
// reap) and still there when its stat is read.
inline void for_each_live_process(
    const std::function<void(int, const std::filesystem::path&, const ProcStat&)>& fn) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        ProcStat stat;
        if (read_proc_stat(entry.path(), stat) && stat.state != "Z") fn(std::stoi(name), entry.path(), stat);
    }
}

inline std::vector<std::string> split_cmdline(const std::string& raw) {
    std::vector<std::string> argv;
    std::string word;
    for (const char c : raw) {
        if (c == '\0') {
            argv.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) argv.push_back(word);
    return argv;
}

inline bool holds(const std::vector<std::string>& argv, const std::string& marker) {
    return std::any_of(argv.begin(), argv.end(),
                       [&](const std::string& word) { return word.find(marker) != std::string::npos; });
}
inline std::string basename_of(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

// The live (non-zombie) processes of this case's units, by process group (= the pid pdctl records for
// a unit: the process runtime starts each unit as a session leader). A unit's processes are its
// program (pdsim, found on PATH locally or by absolute path over SSH) and the supervising sh that leads
// its group and records the exit code: `sh -c SCRIPT DIR/UNIT pdsim ARGS...`. The SSH test hosts share
// this machine's PID namespace, so this sees their units too.
inline std::map<int, int> live_pdsim_groups(const std::string& marker) {
    std::map<int, int> groups;
    for_each_live_process([&](int pid, const std::filesystem::path& dir, const ProcStat& stat) {
        const auto argv = split_cmdline(read_text(dir / "cmdline"));
        if (argv.empty() || !holds(argv, marker)) return;
        const bool program = basename_of(argv[0]) == "pdsim";
        const bool supervisor =
            argv[0] == "sh" && argv.size() > 4 && basename_of(argv[4]) == "pdsim" && pid == stat.pgrp;
        if (program || supervisor) ++groups[stat.pgrp];
    });
    return groups;
}

// Start scripts (`sh -c SCRIPT pdctl-start ...`) for this case's units that are still running. pdctl
// killed with SIGKILL cannot take back the start commands it had already sent: they finish on their
// nodes, each returning only once its unit recorded itself. Until then the node is still changing.
inline int start_scripts_running(const std::string& marker) {
    int count = 0;
    for_each_live_process([&](int, const std::filesystem::path& dir, const ProcStat&) {
        const auto argv = split_cmdline(read_text(dir / "cmdline"));
        if (argv.size() > 3 && argv[0] == "sh" && argv[3] == "pdctl-start" && holds(argv, marker)) ++count;
    });
    return count;
}

// Whether pdctl's JSON output in `output` holds an event `matches` accepts.
inline bool event_in(const std::filesystem::path& output, const std::function<bool(const json&)>& matches) {
    std::istringstream in(read_text(output));
    std::string line;
    while (std::getline(in, line)) {
        const auto event = json::parse(line, nullptr, false);
        if (event.is_object() && matches(event)) return true;
    }
    return false;
}

// Waits until `output` holds such an event. Two minutes: a bound, not a synchronisation. On a loaded
// machine (the ASan pass beside the gcc tests) the SSH cases' start took over 30 s to reach decode's
// stage (a handshake 4.8 s, the preflight 12 s).
inline bool event_seen(const std::filesystem::path& output, const std::function<bool(const json&)>& matches) {
    return eventually([&] { return event_in(output, matches); }, std::chrono::minutes(2));
}

inline bool stage_began(const std::filesystem::path& output, const std::string& verb,
                        const std::string& role) {
    return event_seen(output, [&](const json& event) {
        return event.value("event", "") == "stage_begin" && event.value("verb", "") == verb &&
               event.value("role", "") == role;
    });
}

// The start command of `role`'s unit on `node` succeeded: the unit runs there.
inline bool unit_started(const std::filesystem::path& output, const std::string& role,
                         const std::string& node) {
    return event_seen(output, [&](const json& event) {
        return event.value("event", "") == "unit_done" && event.value("verb", "") == "start" &&
               event.value("role", "") == role && event.value("node", "") == node &&
               event.value("detail", "").rfind("started ", 0) == 0;
    });
}

// A case: a copy of profiles/local on its own loopback block, fast start-up phases, and the files as
// they were before the fault was injected (restore() puts them back for the convergence start).
class FaultCase {
  public:
    // `adapt` rewrites the copied profile before anything else (the SSH cases move it onto the test
    // hosts); `marker` is the address prefix that finds the case's processes.
    FaultCase(std::string group, std::string id, int block,
              const std::function<void(SimCluster&)>& adapt = {}, std::string marker = {})
        : cluster_(short_name(id), block),
          block_(block),
          marker_(marker.empty() ? "127.0." + std::to_string(block) + "." : std::move(marker)),
          began_(std::chrono::steady_clock::now()) {
        row_.group = std::move(group);
        row_.id = std::move(id);
        if (adapt) adapt(cluster_);
        // Every phase 150 ms: a whole start takes ~2 s, so a case with its invariant takes seconds.
        for (const char* file : {"prefill.env", "decode.env"})
            cluster_.append(file, "\nPDSIM_PHASE_MS=150\n");
        for (const char* file : {"pdctl.yaml", "prefill.env", "decode.env", "config.env"})
            original_[file] = read_text(cluster_.config().parent_path() / file);
    }
    ~FaultCase() {
        row_.ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began_)
                .count();
        if (row_.result.empty()) {
            const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
            row_.result = info && info->result()->Failed() ? "FAILED: " + first_failure_ : "pass";
        }
        record(row_);
    }

    void describe(std::string fault, std::string expected) {
        row_.fault = std::move(fault);
        row_.expected = std::move(expected);
    }
    SimCluster& cluster() { return cluster_; }
    int block() const { return block_; }
    std::map<int, int> live() const { return live_pdsim_groups(marker_); }
    // After pdctl was killed: waits until the start commands it had sent have finished (bounded).
    bool start_commands_settled() const {
        return eventually([&] { return start_scripts_running(marker_) == 0; }, std::chrono::seconds(30));
    }
    void note_failure(const std::string& what) {
        if (first_failure_.empty()) first_failure_ = what;
    }

    void append(const std::string& file, const std::string& text) { cluster_.append(file, text); }
    void replace(const std::string& file, const std::string& from, const std::string& to) {
        auto text = read_text(cluster_.config().parent_path() / file);
        replace_all(text, from, to);
        write_text(cluster_.config().parent_path() / file, text);
    }
    // Gives `role`'s stage alone another gate deadline: a short one, so a fault in that role is reported
    // in seconds while the stages before it keep theirs (a loaded machine, the ASan pass beside the gcc
    // tests, can take longer than a short deadline to start a healthy prefill, which would fail the
    // wrong stage), or a long one, so a fault is reported by what it breaks before any deadline.
    void set_deadline(const std::string& role, const std::string& deadline) {
        const auto path = cluster_.config().parent_path() / "pdctl.yaml";
        auto text = read_text(path);
        const auto block = text.find("\n  " + role + ":\n");
        const auto key = block == std::string::npos ? block : text.find("deadline: ", block);
        const auto end = key == std::string::npos ? key : text.find(',', key);
        if (end == std::string::npos) throw std::runtime_error("no health deadline for role " + role);
        const auto value = key + std::string("deadline: ").size();
        text.replace(value, end - value, deadline);
        write_text(path, text);
    }
    void restore() {
        for (const auto& [file, text] : original_) write_text(cluster_.config().parent_path() / file, text);
    }

    // The stage_failed event of a JSON Lines run, or null.
    static json failure(const PdctlRun& run) {
        for (const auto& event : run.events())
            if (event.value("event", "") == "stage_failed") return event;
        return nullptr;
    }

    // status must tell the truth: a unit it calls running has live pdsim processes in its group, every
    // other unit has none, and no live pdsim of this cluster is outside the units it lists.
    //
    // status is a snapshot, and the processes may still be changing (a rank dies a moment after its
    // peer, as NCCL makes it): a status taken while they change cannot be judged against a later look
    // at /proc. So the processes are read before and after status, and status is judged against the
    // first look in which they did not change meanwhile (bounded: a cluster that never settles fails).
    void expect_status_truthful(const std::string& when) {
        PdctlRun status;
        std::map<int, int> live;
        const bool settled = eventually(
            [&] {
                const auto before = this->live();
                // -vv: each node's commands and their times on stderr, which a failure below prints.
                status = cluster_.run({"-vv", "--json", "status"});
                live = this->live();
                return before == live;
            },
            std::chrono::seconds(30));
        if (!settled) {
            fail(when + ": the unit processes kept changing for 30 s; status could not be judged");
            return;
        }
        const auto doc = json::parse(status.out, nullptr, false);
        if (!doc.is_object()) {
            fail(when + ": status --json is not a document: " + status.out + status.err);
            return;
        }
        std::set<int> listed;
        int running = 0;
        int leftovers = 0;  // units neither running nor gone: exited, unknown
        for (const auto& role : doc["roles"]) {
            for (const auto& unit : role["units"]) {
                const int pid = unit.value("pid", 0);
                const bool said_running = unit.value("state", "") == "running";
                const bool is_live = pid > 0 && live.count(pid) > 0;
                if (pid > 0) listed.insert(pid);
                running += said_running ? 1 : 0;
                const auto state = unit.value("state", "");
                leftovers += (state != "running" && state != "stopped" && state != "absent") ? 1 : 0;
                if (said_running != is_live)
                    fail(when + ": status says " + unit["unit"].get<std::string>() + " is " +
                         unit.value("state", "?") + " but its processes are " + (is_live ? "alive" : "gone") +
                         " (pid " + std::to_string(pid) + ": " +
                         read_text("/proc/" + std::to_string(pid) + "/cmdline").substr(0, 120) + ")");
            }
        }
        for (const auto& [group, count] : live)
            if (!listed.count(group))
                fail(when + ": a live pdsim group " + std::to_string(group) + " is not in status (" +
                     read_text("/proc/" + std::to_string(group) + "/cmdline").substr(0, 160) + "; " +
                     std::to_string(start_scripts_running(marker_)) +
                     " start scripts running); status: " + status.out + status.err);
        // Nothing at all (every unit stopped or absent) is "stopped" (8); a node that cannot be asked, or a
        // unit that exited without being stopped (its state files remain for the operator), is "degraded"
        // (7).
        const bool blind = doc.contains("unreachable") && !doc["unreachable"].empty();
        const int expected_code =
            running == 0 && !blind && leftovers == 0 ? 8 : (doc.value("state", "") == "running" ? 0 : 7);
        if (status.exit_code != expected_code)
            fail(when + ": status exit " + std::to_string(status.exit_code) + " with " +
                 std::to_string(running) + " units running (state " + doc.value("state", "?") + ")");
    }

    // The invariant every case ends with.
    void expect_invariant() {
        expect_status_truthful("after the fault");
        const auto stop = cluster_.run({"stop"});
        if (stop.exit_code != 0) fail("stop exit " + std::to_string(stop.exit_code) + ": " + stop.err);
        if (!eventually([&] { return live().empty(); }, std::chrono::seconds(10)))
            fail("processes still running after stop");
        expect_status_truthful("after stop");
        restore();
        const auto start = cluster_.run({"start"});
        if (start.exit_code != 0)
            fail("fresh start exit " + std::to_string(start.exit_code) + ": " + start.err);
        const auto status = cluster_.run({"-vv", "status"});
        if (status.exit_code != 0)
            fail("status after the fresh start: exit " + std::to_string(status.exit_code) + ": " +
                 status.out + status.err);
        const auto last = cluster_.run({"stop"});
        if (last.exit_code != 0 || !live().empty()) fail("final stop left processes");
    }

    void fail(const std::string& what) {
        note_failure(what);
        ADD_FAILURE() << row_.id << ": " << what;
    }
    void expect(bool condition, const std::string& what) {
        if (!condition) fail(what);
    }

  private:
    static std::string short_name(const std::string& id) {
        std::string name = "f";
        for (const char c : id)
            if (std::isalnum(static_cast<unsigned char>(c)))
                name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return name.substr(0, 24);
    }

    SimCluster cluster_;
    int block_;
    std::string marker_;
    std::chrono::steady_clock::time_point began_;
    Row row_;
    std::string first_failure_;
    std::map<std::string, std::string> original_;
};

}  // namespace pdctl::testing::faults
