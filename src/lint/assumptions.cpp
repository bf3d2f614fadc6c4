// PD014: values the config marks as assumed (`# assumption: WHY` above them in an env file). The seed
// documents give the addresses, ranks, TP/EP, ports, NICs, HCAs, the Mooncake version and the order,
// but not, for example, the model path, --mem-fraction-static, the GID index or the exact BOOTSTRAP:
// the shipped profile fills those in, and each such guess stays listed until a site confirms it, so
// the first real deployment does not inherit it silently.

#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

void report(FindingSink& sink, const std::string& role, const config::Assumption& assumption) {
    const std::string whose = role.empty() ? "the shared env" : role;
    sink.add(Severity::Warn, role,
             assumption.key + " in " + whose +
                 " is a site-specific assumption, not a fact of the deployment: " + assumption.why,
             "confirm the value for this site, then delete the `# assumption:` line above it")
        .location = assumption.where;
}

}  // namespace

void check_assumptions(const RuleInput& input, FindingSink& sink) {
    for (const auto& assumption : input.cluster.assumptions) report(sink, "", assumption);
    for (const auto& role : input.cluster.roles)
        for (const auto& assumption : role.assumptions) report(sink, role.name, assumption);
}

}  // namespace pdctl::lint
