// PD020: mooncake_master's flags against the Mooncake release the master runs. gflags stops the master
// on a flag its release does not have ("ERROR: unknown command line flag"), so `--metrics_host` (on
// Mooncake's main only, after 0.3.12.post1) or `--rpc_port` before 0.3.4.post1 in `args:` or EXTRA_ARGS
// is a master that never serves. A deprecated spelling (`--port`, `--max_threads`) still works and is a
// warning. The release is the role's `version:`, or what the config shows of it (its BOOTSTRAP's
// install, a Mooncake image's tag); a `version:` that disagrees with its own BOOTSTRAP is reported too.
// With no release known nothing is judged: pdctl then passes only flags every 0.3.x takes.

#include "pdctl/config/mooncake_master_flags.hpp"

#include <set>

#include "pdctl/config/mooncake_master_version.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

using config::FlagPresence;
using config::MooncakeMasterFlag;

// The table's entry for one argv word as gflags reads it: -name, --name, either with =value, and
// --noname for a bool. nullptr for a value, a flag the table does not know, or `--`.
const MooncakeMasterFlag* gflag_of(const std::string& word) {
    if (word.size() < 2 || word[0] != '-') return nullptr;
    std::string name = word.substr(word[1] == '-' ? 2 : 1);
    if (const auto equals = name.find('='); equals != std::string::npos) name.resize(equals);
    if (const auto* flag = config::find_mooncake_master_flag(name)) return flag;
    if (name.rfind("no", 0) == 0) return config::find_mooncake_master_flag(name.substr(2));
    return nullptr;
}

std::string release_of(const config::Role& role) {
    return "Mooncake " + role.mooncake_version + " (" + role.mooncake_version_source + ")";
}

std::string first_release(const MooncakeMasterFlag& flag) {
    return flag.since ? "it first appears in " + config::to_string(*flag.since)
                      : "it is on Mooncake's main only, in no release up to " +
                            config::to_string(config::kNewestMooncakeRelease);
}

void check_version_source(const config::Role& role, FindingSink& sink) {
    if (role.mooncake_version_source != "version:") return;
    const auto shown = config::mooncake_version_shown(role);
    if (!shown || shown->version == role.mooncake_version) return;
    sink.add(
            Severity::Warn, role.name,
            role.name + " says `version: " + role.mooncake_version + "`, but its " + shown->source +
                ", which is what runs; pdctl chooses the master's flags by version:",
            "make version: say " + shown->version + ", or drop it and pdctl reads the release from BOOTSTRAP")
        .location = role.where;
}

}  // namespace

void check_mooncake_master_flags(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::MooncakeMaster) continue;
        check_version_source(role, sink);
        const auto version = config::parse_mooncake_version(role.mooncake_version);
        if (!version) continue;
        std::set<std::string_view> reported;
        for (std::size_t i = 0; i < role.args.size(); ++i) {
            const auto* flag = gflag_of(role.args[i]);
            if (!flag || !reported.insert(flag->name).second) continue;
            const std::string spelled = "--" + std::string(flag->name);
            const auto location = i >= role.extra_args_at ? detail::profile_location(role) : role.where;
            switch (config::presence(*flag, *version)) {
                case FlagPresence::NotYet:
                    sink.add(Severity::Error, role.name,
                             role.name + " passes " + spelled + " to mooncake_master, which " +
                                 release_of(role) + " does not have (" + first_release(*flag) +
                                 "): gflags stops the master on a flag it does not know",
                             "drop " + spelled +
                                 " from args/EXTRA_ARGS, or run a Mooncake that has it and say " +
                                 "which in version:")
                        .location = location;
                    break;
                case FlagPresence::Removed:
                    sink.add(Severity::Error, role.name,
                             role.name + " passes " + spelled +
                                 " to mooncake_master, which Mooncake removed in " +
                                 config::to_string(*flag->removed_in) + "; " + release_of(role) +
                                 " stops on it",
                             "drop " + spelled + " from args/EXTRA_ARGS (mooncake-store/src/master.cpp of " +
                                 role.mooncake_version + " lists the flags it takes)")
                        .location = location;
                    break;
                case FlagPresence::Has:
                    if (flag->deprecated_for.empty() || !flag->deprecated_since ||
                        *version < *flag->deprecated_since)
                        break;
                    sink.add(Severity::Warn, role.name,
                             role.name + " passes " + spelled + " to mooncake_master, deprecated since " +
                                 config::to_string(*flag->deprecated_since) + " in favour of --" +
                                 std::string(flag->deprecated_for) + " (" + release_of(role) + ")",
                             "use --" + std::string(flag->deprecated_for) + " instead")
                        .location = location;
                    break;
            }
        }
    }
}

}  // namespace pdctl::lint
