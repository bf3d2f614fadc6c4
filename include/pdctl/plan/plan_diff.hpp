#pragma once
// What differs between the plan a group runs from and the plan a config makes: per group, the image,
// the program's flags, its environment, its nodes, its role. Pure: two plans in, a list of differences
// out; which plan each group runs from is the caller's to find (ops/diff.cpp reads it from the nodes).

#include <string>
#include <vector>

#include "pdctl/plan/plan.hpp"

namespace pdctl::plan {

// One flag of a program's command line: `--page-size 64`. `*_present` says whether the flag is there at
// all (a flag without a value is present with "").
struct FlagChange {
    std::string flag;
    bool before_present = false;
    std::string before;
    bool after_present = false;
    std::string after;
    bool secret = false;  // its values are never shown (config::secret_flag_values)
};

struct EnvChange {
    std::string key;
    bool before_present = false;
    std::string before;
    bool after_present = false;
    std::string after;
    bool secret = false;
};

enum class GroupChange {
    kSame,         // runs what the config says
    kChanged,      // runs, from a plan that differs (the fields below say how)
    kAdded,        // the config has it; nothing of it runs
    kRemoved,      // it runs; the config does not have it
    kRoleChanged,  // its nodes now belong to a group of the other mode (decode -> prefill)
};
const char* to_string(GroupChange change);

struct GroupDiff {
    std::string stage;          // the config's name for it (the running one for kRemoved)
    std::string running_stage;  // kRoleChanged: the group that runs on those nodes now
    GroupChange change = GroupChange::kSame;
    std::string mode_before, mode_after;  // prefill/decode; "" for the other kinds
    std::vector<std::string> nodes_before, nodes_after;
    std::string image_before, image_after;
    std::vector<std::string> program_before, program_after;  // the words before the first flag
    std::vector<FlagChange> flags;
    std::vector<EnvChange> env;
    bool bootstrap_changed = false;

    // Whether anything of what a unit runs differs (kChanged with an empty list is possible: a change
    // only its fingerprint shows, such as a rank's own flag).
    bool spec_differs() const;
};

// The differences between `running` and `wanted`, one stage of each (same name): rank 0's program and
// environment (every rank of a group runs the same flags but its rank's own), the group's nodes, image
// and bootstrap. The result's change is kSame when nothing differs, else kChanged.
GroupDiff diff_stage(const Stage& running, const Stage& wanted);

// Reads a command line's flags: `--name value`, `--name=value` and a bare `--name` (followed by
// another flag or nothing). The words before the first flag are the program.
struct ParsedCommandLine {
    std::vector<std::string> program;
    // In order; a bare flag has the value "", a repeated flag's values are joined with a space.
    std::vector<std::pair<std::string, std::string>> flags;
};
ParsedCommandLine parse_command_line(const std::vector<std::string>& argv);

}  // namespace pdctl::plan
