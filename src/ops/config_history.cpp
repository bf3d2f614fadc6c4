#include "pdctl/ops/config_history.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/config/state_paths.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/util/sha256.hpp"

namespace pdctl::ops {
namespace fs = std::filesystem;
namespace store = state::config_store;

namespace {

std::string cluster_dir(const config::Cluster& cluster) {
    return config::cluster_state_dir(cluster.state_dir, cluster.name);
}

state::journal::RunRecord pick_run(const std::vector<state::journal::RunRecord>& newest_first,
                                   const std::string& selector, const std::string& source) {
    if (selector == "last") {
        for (const auto& run : newest_first)
            if (!run.config_id.empty()) return run;
        throw Failure(ExitCode::kUsage, fmt::format("no run in the journal kept its config ({})", source),
                      "a start, restart, rollout or rollback keeps the config it ran");
    }
    std::vector<const state::journal::RunRecord*> found;
    for (const auto& run : newest_first)
        if (run.run.rfind(selector, 0) == 0) found.push_back(&run);
    if (found.empty())
        throw Failure(ExitCode::kUsage, fmt::format("no run `{}` in the journal ({})", selector, source),
                      "`pdctl history` lists the runs");
    if (found.size() > 1)
        throw Failure(ExitCode::kUsage,
                      fmt::format("`{}` names {} runs: {}, ...", selector, found.size(), found[0]->run),
                      "give more of the run id");
    if (found[0]->config_id.empty())
        throw Failure(ExitCode::kUsage,
                      fmt::format("run {} ({}) kept no config", found[0]->run, found[0]->verb),
                      "a start, restart, rollout or rollback keeps the config it ran");
    return *found[0];
}

// The folder that holds every kept file: their longest common directory.
fs::path common_folder(const std::vector<config::SourceFile>& files) {
    fs::path common;
    bool first = true;
    for (const auto& file : files) {
        const fs::path folder = fs::path(file.path).lexically_normal().parent_path();
        if (first) {
            common = folder;
            first = false;
            continue;
        }
        fs::path shared;
        auto a = common.begin();
        auto b = folder.begin();
        for (; a != common.end() && b != folder.end() && *a == *b; ++a, ++b) shared /= *a;
        common = shared;
    }
    return common;
}

}  // namespace

bool keeps_config(const std::string& verb) {
    return verb == "start" || verb == "restart" || verb == "rollout" || verb == "rollback";
}

store::Bundle config_bundle(const config::Cluster& cluster) {
    store::Bundle bundle;
    bundle.entry = cluster.config_path;
    bundle.files = cluster.sources;
    for (const auto& file : cluster.files)
        bundle.pushed.push_back({file.source, file.dest, util::sha256_file_hex(file.source).value_or("")});
    return bundle;
}

std::string config_id_of(const config::Cluster& cluster) {
    return store::bundle_id(store::to_document(config_bundle(cluster)));
}

std::string keep_config(const Deployment& deployment) {
    const auto document = store::to_document(config_bundle(deployment.cluster));
    auto id = store::bundle_id(document);
    const auto& coordinator = state::coordinator_node(deployment.cluster);
    const auto answer = deployment.executor->run(
        coordinator, store::put_command(cluster_dir(deployment.cluster), id, document));
    if (!answer.ok()) {
        spdlog::warn(
            "the config of this run could not be kept on {}: {} (the run goes on; `pdctl "
            "rollback` cannot come back to it)",
            coordinator.name, exec::failure_reason(answer));
        return "";
    }
    return id;
}

KeptConfig read_kept_config(const Deployment& deployment, const std::string& selector) {
    const auto journal = read_journal(deployment);
    if (journal.code == ExitCode::kUnreachable && journal.text.empty())
        throw Failure(ExitCode::kUnreachable, "the journal could not be read: " + journal.source);
    auto runs = state::journal::parse_history(journal.text);
    const auto count = runs.size();
    runs = state::journal::newest(std::move(runs), count);
    KeptConfig kept;
    kept.run = pick_run(runs, selector, journal.source);
    kept.id = kept.run.config_id;
    std::string error;
    auto bundle = fetch_kept_config(deployment, kept.id, error);
    if (!bundle)
        throw Failure(ExitCode::kUsage, fmt::format("the config of run {}: {}", kept.run.run, error),
                      fmt::format("it is kept as {} on {}",
                                  store::document_path(cluster_dir(deployment.cluster), kept.id),
                                  state::coordinator_node(deployment.cluster).name));
    kept.bundle = std::move(*bundle);
    return kept;
}

std::optional<store::Bundle> fetch_kept_config(const Deployment& deployment, const std::string& id,
                                               std::string& error) {
    if (!store::is_bundle_id(id)) {
        error = fmt::format("`{}` is not the sha256 of a kept config", id);
        return std::nullopt;
    }
    const auto& coordinator = state::coordinator_node(deployment.cluster);
    const auto answer =
        deployment.executor->run(coordinator, store::get_command(cluster_dir(deployment.cluster), id));
    if (!answer.ok()) {
        error = fmt::format("it could not be read on {}: {}", coordinator.name, exec::failure_reason(answer));
        return std::nullopt;
    }
    if (store::bundle_id(answer.out) != id) {
        error = fmt::format("the copy on {} is damaged: its sha256 is not {}", coordinator.name, id);
        return std::nullopt;
    }
    try {
        return store::parse_document(answer.out);
    } catch (const std::exception& damaged) {
        error = damaged.what();
        return std::nullopt;
    }
}

config::Cluster load_kept_config(const store::Bundle& bundle) {
    std::map<std::string, std::string> files;
    for (const auto& file : bundle.files) files[file.path] = file.content;
    const config::MemoryFileSource memory(std::move(files));
    return config::load_cluster(bundle.entry, memory);
}

std::vector<ShownFile> show_kept_config(const KeptConfig& kept) {
    config::Cluster cluster;
    try {
        cluster = load_kept_config(kept.bundle);
    } catch (const config::ConfigError& error) {
        // Without the config, which values are secrets is unknown: nothing is printed.
        throw Failure(
            ExitCode::kUsage,
            fmt::format("the config of run {} no longer loads, so its secrets cannot be told apart: "
                        "{}",
                        kept.run.run, error.what()),
            "`pdctl config restore " + kept.run.run + " -o DIR` writes its files as they were");
    }
    const auto redactor = secrets_of(cluster, plan::build_plan(cluster));
    std::vector<ShownFile> shown;
    for (const auto& file : kept.bundle.files) shown.push_back({file.path, redactor.redact(file.content)});
    return shown;
}

std::string restore_kept_config(const KeptConfig& kept, const std::string& dir) {
    const fs::path base = common_folder(kept.bundle.files);
    std::vector<std::pair<fs::path, const config::SourceFile*>> targets;
    for (const auto& file : kept.bundle.files) {
        const fs::path relative = fs::path(file.path).lexically_normal().lexically_relative(base);
        const fs::path target = fs::path(dir) / relative;
        if (fs::exists(target))
            throw Failure(ExitCode::kUsage,
                          fmt::format("{} exists: restore writes into a new folder", target.string()),
                          "name a folder that does not hold these files (-o DIR)");
        targets.emplace_back(target, &file);
    }
    std::string entry;
    for (const auto& [target, file] : targets) {
        std::error_code error;
        fs::create_directories(target.parent_path(), error);
        // 0600: an env file can hold secrets, as it does on the nodes.
        std::ofstream out(target, std::ios::binary);
        if (error || !out || !(out << file->content) || !out.flush())
            throw Failure(ExitCode::kUsage, fmt::format("cannot write {}", target.string()));
        out.close();
        ::chmod(target.c_str(), 0600);
        if (file->path == kept.bundle.entry) entry = target.string();
    }
    return entry;
}

}  // namespace pdctl::ops
