#include "pdctl/report/diff_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/util/strings.hpp"

namespace pdctl::report {
namespace {

using plan::GroupChange;

std::string shown(bool present, const std::string& value, bool secret) {
    if (!present) return "(none)";
    if (secret) return "[secret]";
    return value.empty() ? "(set)" : value;
}

std::string flag_line(const plan::FlagChange& flag) {
    if (!flag.before_present)
        return fmt::format("      + {}{}", flag.flag,
                           flag.after.empty() ? "" : " " + shown(true, flag.after, flag.secret));
    if (!flag.after_present)
        return fmt::format("      - {}{}", flag.flag,
                           flag.before.empty() ? "" : " " + shown(true, flag.before, flag.secret));
    if (flag.secret) return fmt::format("      ~ {} (secret) changed", flag.flag);
    return fmt::format("      ~ {} {} -> {}", flag.flag, shown(true, flag.before, false),
                       shown(true, flag.after, false));
}

std::string env_line(const plan::EnvChange& env) {
    if (env.secret) {
        const char* what = !env.before_present ? "added" : !env.after_present ? "removed" : "changed";
        return fmt::format("      env {} (secret) {}", env.key, what);
    }
    if (!env.before_present) return fmt::format("      env + {}={}", env.key, env.after);
    if (!env.after_present) return fmt::format("      env - {}={}", env.key, env.before);
    return fmt::format("      env ~ {}: {} -> {}", env.key, env.before, env.after);
}

std::string group_header(const ops::GroupDrift& group, std::size_t name_width) {
    const auto& diff = group.diff;
    std::string line = fmt::format("  {:<{}}  {:<13}", diff.stage, name_width, plan::to_string(diff.change));
    switch (diff.change) {
        case GroupChange::kAdded:
            line += fmt::format("nothing of it runs; the config puts {} on {}",
                                diff.mode_after.empty() ? "it" : diff.mode_after,
                                util::join(diff.nodes_after, " "));
            break;
        case GroupChange::kRemoved:
            line +=
                fmt::format("runs on {}; the config does not have it", util::join(diff.nodes_before, " "));
            break;
        case GroupChange::kRoleChanged:
            line += fmt::format("{} ({}) -> {} ({}) on {}", diff.running_stage, diff.mode_before, diff.stage,
                                diff.mode_after, util::join(diff.nodes_after, " "));
            break;
        case GroupChange::kChanged:
            if (group.unexplained)
                line += "runs from a config pdctl did not keep: which fields differ cannot be told";
            else
                line += "from run " + group.running_from;
            break;
        case GroupChange::kSame:
            line += !group.image_moved.empty() ? "its image tag moved"
                    : !group.workers.empty()   ? "its workers differ from the config's"
                                               : "";
            break;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
}

// One change of a flag or an environment key: absent is null, a secret "[secret]".
template <typename Change>
nlohmann::json change_json(const char* name_key, const std::string& name, const Change& change) {
    const auto side = [&](bool present, const std::string& value) {
        return !present        ? nlohmann::json()
               : change.secret ? nlohmann::json("[secret]")
                               : nlohmann::json(value);
    };
    return {{name_key, name},
            {"secret", change.secret},
            {"before", side(change.before_present, change.before)},
            {"after", side(change.after_present, change.after)}};
}

}  // namespace

std::string render_diff_text(const ops::DiffResult& result, const std::string& config_path) {
    std::string text = fmt::format("diff  {}: what runs -> {}\n", result.cluster, config_path);
    int differing = 0;
    std::size_t name_width = 0;
    for (const auto& group : result.groups) name_width = std::max(name_width, group.diff.stage.size());
    for (const auto& group : result.groups) {
        if (group.differs()) ++differing;
        text += group_header(group, name_width);
        const auto& diff = group.diff;
        if (diff.change == GroupChange::kChanged && !group.unexplained) {
            if (diff.image_before != diff.image_after)
                text += fmt::format("      image {} -> {}\n", diff.image_before, diff.image_after);
            if (diff.mode_before != diff.mode_after)
                text += fmt::format("      mode {} -> {}\n", diff.mode_before, diff.mode_after);
            if (diff.nodes_before != diff.nodes_after)
                text += fmt::format("      nodes {} -> {}\n", util::join(diff.nodes_before, " "),
                                    util::join(diff.nodes_after, " "));
            if (diff.program_before != diff.program_after)
                text += fmt::format("      program {} -> {}\n", util::join(diff.program_before, " "),
                                    util::join(diff.program_after, " "));
            for (const auto& flag : diff.flags) text += flag_line(flag) + "\n";
            for (const auto& env : diff.env) text += env_line(env) + "\n";
            if (diff.bootstrap_changed) text += "      bootstrap changed\n";
            if (!diff.spec_differs())
                text += fmt::format(
                    "      rank 0 runs the same; {} of {} units run with another fingerprint "
                    "(a rank's own setting, or a rank missing)\n",
                    group.units_running, group.units_wanted);
        }
        for (const auto& moved : group.image_moved) text += "      image " + moved + "\n";
        for (const auto& extra : group.workers.extra)
            text += "      workers: lists " + extra + ", which the config does not have\n";
        for (const auto& missing : group.workers.missing)
            text += "      workers: does not list " + missing + "\n";
        if (!group.workers_unread.empty()) text += "      workers: not read (" + group.workers_unread + ")\n";
    }
    if (!result.files.empty()) text += "files:\n";
    for (const auto& file : result.files) {
        std::string where;
        if (!file.differs.empty()) where = "differs on " + util::join(file.differs, " ");
        if (!file.missing.empty())
            where += std::string(where.empty() ? "" : "; ") + "missing on " + util::join(file.missing, " ");
        text += fmt::format("  {} ({}): {}\n", file.dest, file.source, where);
    }
    for (const auto& [node, why] : result.unreachable) text += fmt::format("! {}: {}\n", node, why);
    if (differing == 0 && result.files.empty())
        text += result.unreachable.empty() ? "nothing differs: what runs is what the config says\n"
                                           : "nothing differs on the nodes that answered\n";
    else
        text += fmt::format("{} of {} groups differ, {} file{} differ{}\n", differing, result.groups.size(),
                            result.files.size(), result.files.size() == 1 ? "" : "s",
                            result.files.size() == 1 ? "s" : "");
    return text;
}

nlohmann::json diff_to_json(const ops::DiffResult& result, const std::string& config_path) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& group : result.groups) {
        const auto& diff = group.diff;
        nlohmann::json item = {{"group", diff.stage},
                               {"change", plan::to_string(diff.change)},
                               {"differs", group.differs()},
                               {"running_from", group.running_from},
                               {"unexplained", group.unexplained},
                               {"units_running", group.units_running},
                               {"units_wanted", group.units_wanted},
                               {"mode", {{"before", diff.mode_before}, {"after", diff.mode_after}}},
                               {"nodes", {{"before", diff.nodes_before}, {"after", diff.nodes_after}}},
                               {"image", {{"before", diff.image_before}, {"after", diff.image_after}}},
                               {"image_moved", group.image_moved},
                               {"workers",
                                {{"missing", group.workers.missing},
                                 {"extra", group.workers.extra},
                                 {"unread", group.workers_unread}}},
                               {"bootstrap_changed", diff.bootstrap_changed}};
        if (!diff.running_stage.empty()) item["running_group"] = diff.running_stage;
        item["flags"] = nlohmann::json::array();
        for (const auto& flag : diff.flags) item["flags"].push_back(change_json("flag", flag.flag, flag));
        item["env"] = nlohmann::json::array();
        for (const auto& env : diff.env) item["env"].push_back(change_json("key", env.key, env));
        groups.push_back(std::move(item));
    }
    nlohmann::json files = nlohmann::json::array();
    for (const auto& file : result.files)
        files.push_back({{"source", file.source},
                         {"dest", file.dest},
                         {"differs", file.differs},
                         {"missing", file.missing}});
    return {{"cluster", result.cluster},
            {"config", config_path},
            {"differs", result.differs()},
            {"groups", groups},
            {"files", files},
            {"unreachable", result.unreachable},
            {"journal", result.journal_source}};
}

}  // namespace pdctl::report
