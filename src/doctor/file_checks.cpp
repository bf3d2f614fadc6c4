// FILE001: the files BOOTSTRAP installs (the runbook's patch script and wheels) are on the node, and
// they are the ones this machine would push. A missing or different wheel otherwise shows up only as a
// pip error in a container log, minutes into a start.

#include <fmt/format.h>

#include "checks.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::doctor::detail {

bool check_files(const NodeNeeds& needs, const NodeProbe& probe, lint::FindingSink& sink) {
    if (needs.files.empty()) return false;
    const auto listing =
        probe.files_probed ? push::parse_probe(probe.files_out, needs.files.size()) : std::nullopt;
    if (!listing) {
        sink.add(lint::Severity::Warn, "", "cannot list the files of `files:` on the node",
                 "run `pdctl -vv doctor`; the node needs sh, stat and sha256sum or openssl");
        return true;
    }
    std::vector<std::string> missing;
    std::vector<std::string> different;
    for (std::size_t i = 0; i < needs.files.size(); ++i) {
        const auto& need = needs.files[i];
        const auto& have = (*listing)[i];
        if (have.kind != push::RemoteFile::Kind::Regular) {
            missing.push_back(need.dest);
        } else if (!need.sha256.empty() && have.sha256 != need.sha256) {
            different.push_back(need.dest);
        }
    }
    if (!missing.empty())
        sink.add(lint::Severity::Error, "",
                 fmt::format("{} of {} files missing: {}", missing.size(), needs.files.size(),
                             util::join(missing)),
                 "`pdctl push` copies them (BOOTSTRAP installs them before the server starts)");
    if (!different.empty())
        sink.add(lint::Severity::Error, "",
                 fmt::format("{} file{} differ{} from the local source (sha256): {}", different.size(),
                             different.size() == 1 ? "" : "s", different.size() == 1 ? "s" : "",
                             util::join(different)),
                 "`pdctl push` replaces them with the local copies");
    return true;
}

}  // namespace pdctl::doctor::detail
