#include "pdctl/ops/prewarm.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/engine/backend.hpp"
#include "pdctl/lint/argv.hpp"
#include "pdctl/util/bytes.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {

std::map<std::string, std::vector<std::string>> model_dirs_by_node(const plan::Plan& target) {
    std::map<std::string, std::vector<std::string>> dirs;
    for (const auto& stage : target.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        for (const auto& unit : stage.units) {
            const auto model = lint::flag_value(unit.program.argv, {"--model-path", "--model"});
            if (!model || model->empty() || model->front() != '/') continue;  // a hub name: nothing on disk
            auto& list = dirs[unit.node];
            if (std::find(list.begin(), list.end(), *model) == list.end()) list.push_back(*model);
        }
    }
    return dirs;
}

std::vector<std::string> prewarm_notes(const std::vector<NodePrewarmResult>& results) {
    std::vector<std::string> notes;
    for (const auto& result : results) {
        if (!result.error.empty()) {
            notes.push_back(fmt::format("prewarm {}: {}", result.node, result.error));
            continue;
        }
        std::uint64_t total = 0;
        for (const auto& dir : result.read.dirs) {
            if (!dir.present) {
                notes.push_back(
                    fmt::format("prewarm {}: {} is not there: nothing read", result.node, dir.dir));
                continue;
            }
            total += dir.bytes;
            const std::string resident =
                dir.resident < 0 ? "resident unknown (no fincore)"
                                 : fmt::format("{} resident ({:.0f} %)",
                                               util::format_bytes(static_cast<std::uint64_t>(dir.resident)),
                                               dir.bytes ? 100.0 * static_cast<double>(dir.resident) /
                                                               static_cast<double>(dir.bytes)
                                                         : 100.0);
            notes.push_back(fmt::format("prewarm {}: {} {} in {} files read in {:.1f}s, {}", result.node,
                                        dir.dir, util::format_bytes(dir.bytes), dir.files, dir.seconds,
                                        resident));
        }
        if (result.read.mem_total > 0 && total > result.read.mem_available)
            notes.push_back(fmt::format(
                "prewarm {}: the models ({}) are larger than the memory available ({} of {}): the first "
                "files "
                "read are evicted while the last are, and the ranks read from disk anyway",
                result.node, util::format_bytes(total), util::format_bytes(result.read.mem_available),
                util::format_bytes(result.read.mem_total)));
    }
    return notes;
}

Prewarm::Prewarm(const Deployment& deployment, const plan::Plan& target) {
    for (const auto& [node, dirs] : model_dirs_by_node(target)) {
        const auto& where = engine::plan_node(deployment.plan, node);
        exec::Executor* executor = deployment.executor;
        pending_[node] = std::async(std::launch::async, [executor, &where, node = node, dirs = dirs] {
                             NodePrewarmResult result;
                             result.node = node;
                             const auto answer = executor->run(where, runtime::prewarm_command(dirs));
                             if (!answer.transport_error.empty())
                                 result.error = "unreachable: " + answer.transport_error;
                             else if (answer.timed_out)
                                 result.error = "still reading after 30m: the ranks started meanwhile";
                             else if (!answer.ok())
                                 result.error = fmt::format("reading failed (exit {}): {}", answer.exit_code,
                                                            util::first_line(answer.err));
                             result.read = runtime::parse_prewarm(answer.out);
                             return result;
                         }).share();
    }
}

Prewarm::~Prewarm() {
    for (auto& [node, future] : pending_) future.wait();
}

void Prewarm::wait_for(const std::string& node) {
    const auto found = pending_.find(node);
    if (found != pending_.end()) found->second.wait();
}

std::vector<NodePrewarmResult> Prewarm::results() {
    std::vector<NodePrewarmResult> all;
    for (auto& [node, future] : pending_) all.push_back(future.get());
    return all;
}

}  // namespace pdctl::ops
