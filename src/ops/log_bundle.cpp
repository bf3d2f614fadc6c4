#include "pdctl/ops/log_bundle.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "log_targets.hpp"
#include "pdctl/exec/local_executor.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/runtime/log_query.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

namespace fs = std::filesystem;

// The journal lines of its newest `runs` runs, in journal order.
std::string newest_runs(const std::string& journal, std::size_t runs) {
    const auto lines = util::lines(journal);
    std::vector<std::string> order;  // run ids, first appearance
    const auto run_of = [](std::string_view text) {
        const auto key = text.find("\"run\":\"");
        if (key == std::string_view::npos) return std::string();
        const auto from = key + 7;
        return std::string(text.substr(from, text.find('"', from) - from));
    };
    for (const auto& text : lines)
        if (const auto run = run_of(text);
            !run.empty() && std::find(order.begin(), order.end(), run) == order.end())
            order.push_back(run);
    const std::set<std::string> kept(
        order.size() > runs ? order.end() - static_cast<long>(runs) : order.begin(), order.end());
    std::string out;
    for (const auto& text : lines)
        if (kept.count(run_of(text))) {
            out += text;
            out += '\n';
        }
    return out;
}

struct UnitLogs {
    std::vector<BundleFile> files;
    std::vector<std::string> missing;
    bool running = true;
    bool unreachable = false;
};

// One unit's current log and its kept one, both read on its node.
UnitLogs read_unit_logs(const Deployment& deployment, const LogTarget& target) {
    UnitLogs logs;
    const auto& name = target.unit->name;
    const std::string where = "logs/" + target.unit->node + "/";
    runtime::LogRequest whole;
    whole.tail_lines = kBundleCurrentLogLines;
    const auto current = deployment.executor->run(
        *target.node, runtime::read_log_command(target.runtime, target.node_dir, name, whole));
    if (!current.transport_error.empty()) {
        logs.unreachable = true;
        logs.missing.push_back(target.unit->node + " " + name + ": " + current.transport_error);
        return logs;
    }
    if (current.exit_code == 0)
        logs.files.push_back({where + name + ".log", deployment.redactor.redact(current.out)});
    else
        logs.running = false;
    whole.tail_lines = -1;  // kept logs are bounded on the node
    const auto kept =
        deployment.executor->run(*target.node, runtime::previous_log_command(target.node_dir, name, whole));
    if (kept.exit_code == 0)
        logs.files.push_back({where + "previous/" + name + ".log", deployment.redactor.redact(kept.out)});
    return logs;
}

}  // namespace

Bundle collect_bundle(const Deployment& deployment, const LogsRequest& request) {
    const auto scope = logs_scope(deployment.plan, request, /*every_unit_when_unnamed=*/true);
    const auto scoped = plan::scope_plan(deployment.plan, scope, "logs");
    const auto targets = log_targets(deployment, scoped.plan, request);
    std::vector<UnitLogs> read(targets.size());
    util::for_each_parallel(targets.size(), util::kEngineFanout,
                            [&](std::size_t i) { read[i] = read_unit_logs(deployment, targets[i]); });
    Bundle bundle;
    for (std::size_t i = 0; i < read.size(); ++i) {
        auto& unit = read[i];
        for (auto& file : unit.files) bundle.files.push_back(std::move(file));
        for (auto& why : unit.missing) bundle.missing.push_back(std::move(why));
        if (!unit.running && !unit.unreachable) bundle.not_running.push_back(targets[i].unit->name);
        if (unit.unreachable) bundle.code = ExitCode::kUnreachable;
    }
    try {
        const auto journal = read_journal(deployment);
        bundle.files.push_back(
            {"journal.jsonl", deployment.redactor.redact(newest_runs(journal.text, kBundleJournalRuns))});
        if (journal.code != ExitCode::kOk) {
            bundle.missing.push_back("the coordinator's journal: " + journal.source);
            bundle.code = ExitCode::kUnreachable;
        }
    } catch (const Failure& failure) {
        bundle.missing.push_back(std::string("the journal: ") + failure.what());
    }
    return bundle;
}

void write_bundle(const std::string& path, const std::string& top_dir, const std::vector<BundleFile>& files) {
    std::string pattern = (fs::temp_directory_path() / "pdctl-bundle-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw Failure(ExitCode::kInternal, "cannot create a temporary directory");
    const fs::path scratch = pattern;
    const auto clean = [&] {
        std::error_code ignored;
        fs::remove_all(scratch, ignored);
    };
    for (const auto& file : files) {
        const auto target = scratch / top_dir / file.path;
        fs::create_directories(target.parent_path());
        std::ofstream(target, std::ios::binary) << file.content;
    }
    exec::Command tar;
    tar.argv = {"tar", "-czf", fs::absolute(path).string(), "-C", scratch.string(), top_dir};
    tar.timeout = std::chrono::minutes(5);
    const auto result = exec::LocalExecutor().run({"local", "127.0.0.1", {}, {}, {}}, tar);
    clean();
    if (!result.ok())
        throw Failure(ExitCode::kUsage,
                      "cannot write the bundle " + path + ": " + result.err.substr(0, result.err.find('\n')),
                      "a writable path, e.g. ./incident.tar.gz");
}

namespace {

std::string bundle_manifest(const Bundle& bundle, const config::Cluster& cluster, const std::string& when) {
    std::string text = "pdctl " + std::string(PDCTL_VERSION) + " bundle of cluster " + cluster.name + ", " +
                       when + " UTC, from " + cluster.config_path + "\n\n";
    for (const auto& file : bundle.files) text += fmt::format("{:>10}  {}\n", file.content.size(), file.path);
    if (!bundle.not_running.empty())
        text += "\nnot running (no current log; their kept logs are under previous/): " +
                util::join(bundle.not_running, ", ") + "\n";
    if (!bundle.missing.empty()) text += "\nnot collected:\n";
    for (const auto& why : bundle.missing) text += "  " + why + "\n";
    return text;
}

}  // namespace

void check_bundle_path(const std::string& path) {
    if (!std::ofstream(path, std::ios::binary | std::ios::app))
        throw Failure(ExitCode::kUsage, "cannot write the bundle " + path + ": " + std::strerror(errno),
                      "a writable path, e.g. ./incident.tar.gz");
}

WrittenBundle write_incident_bundle(const Deployment& deployment, const BundleRequest& request,
                                    const BundleRenderings& renderings) {
    auto bundle = collect_bundle(deployment, request.logs);
    const auto redact = [&](const std::string& text) { return deployment.redactor.redact(text); };
    bundle.files.push_back({"plan.txt", redact(renderings.plan_text(deployment.plan))});
    const auto status = read_status(deployment, request.logs.scope);
    bundle.files.push_back({"status.json", redact(renderings.status_json(status))});
    const auto when = renderings.now_utc();
    bundle.files.insert(bundle.files.begin(),
                        {"MANIFEST.txt", bundle_manifest(bundle, deployment.cluster, when)});
    std::string top = "pdctl-" + deployment.cluster.name + "-" + when;
    std::replace(top.begin(), top.end(), ':', '-');
    write_bundle(request.path, top, bundle.files);
    WrittenBundle written;
    written.files = bundle.files.size();
    for (const auto& file : bundle.files) written.bytes += file.content.size();
    written.missing = std::move(bundle.missing);
    written.not_running = std::move(bundle.not_running);
    written.code = bundle.code;
    return written;
}

}  // namespace pdctl::ops
