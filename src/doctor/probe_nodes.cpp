// The one place the doctor touches nodes: the probe, then a clock sample, on every node in parallel
// (a thread per node, at most max_parallel at once; SshExecutor also bounds concurrent handshakes).
// The clock is sampled with its own tiny command on the warm connection, because the probe's own
// run time (nvidia-smi, `docker info`) would blur the round trip that bounds the skew's error.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <map>

#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/doctor/model_files.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/sha256.hpp"
#include "pdctl/util/wall_clock.hpp"
#include "text.hpp"

namespace pdctl::doctor {
namespace {

ClockSample sample_clock(const config::Node& node, exec::Executor& executor) {
    const double start = util::epoch_seconds_exact_now();
    const auto answer = executor.run(node, exec::Command{{"date", "+%s.%N"}, {}, std::chrono::seconds(10)});
    const double stop = util::epoch_seconds_exact_now();
    ClockSample sample;
    if (!answer.ok()) return sample;
    const auto text = std::string(detail::trim(answer.out));
    double remote = 0;
    // from_chars for double is in libstdc++ 11+; a fixed "S.N" is all `date` prints here.
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), remote);
    if (ec != std::errc() || end != text.data() + text.size()) return sample;
    sample.taken = true;
    sample.offset_seconds = remote - (start + stop) / 2;
    sample.uncertainty_seconds = (stop - start) / 2;
    return sample;
}

NodeProbe probe_node(const NodeNeeds& needs, exec::Executor& executor) {
    NodeProbe probe;
    const auto answer = executor.run(needs.node, probe_command(probe_request(needs)));
    probe.transport_error = answer.transport_error;
    probe.timed_out = answer.timed_out;
    probe.exit_code = answer.exit_code;
    probe.out = answer.out;
    probe.err = answer.err;
    if (answer.transport_error.empty()) probe.clock = sample_clock(needs.node, executor);
    if (answer.transport_error.empty() && !needs.files.empty()) {
        // push's own probe: the same mode/sha256 listing that decides what a push would send.
        std::vector<std::string> dests;
        for (const auto& file : needs.files) dests.push_back(file.dest);
        const auto files = executor.run(needs.node, push::probe_command(dests));
        probe.files_probed = files.ok();
        probe.files_out = files.out;
    }
    if (answer.transport_error.empty() && !needs.models.empty()) {
        std::vector<std::string> dirs;
        for (const auto& model : needs.models) dirs.push_back(model.dir);
        const auto models = executor.run(needs.node, model_files_command(dirs));
        probe.models_probed = models.ok();
        probe.models_out = models.out;
    }
    spdlog::debug("doctor: probe of {} exit {}{}", needs.node.name, answer.exit_code,
                  answer.transport_error.empty() ? "" : ": " + answer.transport_error);
    return probe;
}

}  // namespace

std::vector<NodeProbe> probe_nodes(const std::vector<NodeNeeds>& needs, exec::Executor& executor,
                                   const LiveOptions& options) {
    std::vector<NodeProbe> probes(needs.size());
    util::for_each_parallel(needs.size(), options.max_parallel,
                            [&](std::size_t i) { probes[i] = probe_node(needs[i], executor); });
    return probes;
}

LiveResult run_live_checks(const config::Cluster& cluster, const plan::Plan& plan, exec::Executor& executor,
                           const LiveOptions& options) {
    auto needs = node_needs(cluster, plan);
    // Each source hashed once, here, before any node is asked (an unreadable one: presence only).
    std::map<std::string, std::string> hashes;
    for (auto& node : needs) {
        for (auto& file : node.files) {
            if (!hashes.count(file.source))
                hashes[file.source] = util::sha256_file_hex(file.source).value_or("");
            file.sha256 = hashes[file.source];
        }
    }
    return evaluate_live(needs, probe_nodes(needs, executor, options), options);
}

}  // namespace pdctl::doctor
