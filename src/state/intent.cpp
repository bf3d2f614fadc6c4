#include "pdctl/state/intent.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "embedded/state_scripts.hpp"

namespace pdctl::state::intent {
namespace {

using nlohmann::json;

std::string text_of(const json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

long long number_of(const json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_number_integer() ? found->get<long long>() : 0;
}

json act_json(const Act& act) {
    return {{"who", act.who}, {"at", act.at}, {"epoch_ms", act.epoch_ms}, {"run", act.run}};
}

Act act_of(const json& object) {
    return {text_of(object, "who"), text_of(object, "at"), number_of(object, "epoch_ms"),
            text_of(object, "run")};
}

}  // namespace

const DeliberateStop* Intent::stopped_on_purpose(const std::string& stage) const {
    const auto found = stopped.find(stage);
    return found == stopped.end() ? nullptr : &found->second;
}

const HealPause* Intent::active_pause(long long now_ms) const {
    return pause && !pause->expired(now_ms) ? &*pause : nullptr;
}

Intent parse(const std::string& text) {
    Intent intent;
    const auto document = json::parse(text, nullptr, false);
    if (!document.is_object()) return intent;
    if (const auto stopped = document.find("stopped"); stopped != document.end() && stopped->is_object())
        for (const auto& [stage, entry] : stopped->items()) {
            if (!entry.is_object()) continue;
            intent.stopped[stage] = {act_of(entry), text_of(entry, "command"), text_of(entry, "bring_back")};
        }
    if (const auto pause = document.find("pause"); pause != document.end() && pause->is_object())
        intent.pause =
            HealPause{act_of(*pause), number_of(*pause, "until_epoch_ms"), text_of(*pause, "reason")};
    if (const auto rollout = document.find("rollout"); rollout != document.end() && rollout->is_object())
        intent.rollout = PausedRollout{act_of(*rollout), text_of(*rollout, "config_id"),
                                       text_of(*rollout, "previous_config_id"),
                                       text_of(*rollout, "previous_run"), text_of(*rollout, "canary")};
    return intent;
}

std::string to_text(const Intent& intent) {
    json document = {{"stopped", json::object()}};
    for (const auto& [stage, stop] : intent.stopped) {
        auto entry = act_json(stop.act);
        entry["command"] = stop.command;
        entry["bring_back"] = stop.bring_back;
        document["stopped"][stage] = std::move(entry);
    }
    if (intent.pause) {
        auto pause = act_json(intent.pause->act);
        pause["until_epoch_ms"] = intent.pause->until_epoch_ms;
        pause["reason"] = intent.pause->reason;
        document["pause"] = std::move(pause);
    }
    if (intent.rollout) {
        auto rollout = act_json(intent.rollout->act);
        rollout["config_id"] = intent.rollout->config_id;
        rollout["previous_config_id"] = intent.rollout->previous_config_id;
        rollout["previous_run"] = intent.rollout->previous_run;
        rollout["canary"] = intent.rollout->canary;
        document["rollout"] = std::move(rollout);
    }
    return document.dump(2) + "\n";
}

bool mark_stopped(Intent& intent, const std::vector<std::string>& stages, const DeliberateStop& stop) {
    for (const auto& stage : stages) intent.stopped[stage] = stop;
    return !stages.empty();
}

bool clear_stopped(Intent& intent, const std::vector<std::string>& stages) {
    bool changed = false;
    for (const auto& stage : stages) changed = intent.stopped.erase(stage) > 0 || changed;
    return changed;
}

std::string scope_words(const std::vector<std::string>& roles, const std::vector<std::string>& groups) {
    std::string words;
    for (const auto& role : roles) words += " --role " + role;
    for (const auto& group : groups) words += " --group " + group;
    return words;
}

std::vector<Change> journal_changes(const std::string& journal_jsonl) {
    std::vector<Change> changes;
    std::istringstream in(journal_jsonl);
    std::string text;
    while (std::getline(in, text)) {
        if (text.find("\"intent\"") == std::string::npos) continue;  // most lines: skipped unparsed
        const auto line = json::parse(text, nullptr, false);
        if (!line.is_object() || text_of(line, "event") != "intent") continue;
        Change change{text_of(line, "change"), {}, number_of(line, "epoch_ms")};
        if (const auto stages = line.find("stages"); stages != line.end() && stages->is_array())
            for (const auto& stage : *stages)
                if (stage.is_string()) change.stages.push_back(stage.get<std::string>());
        changes.push_back(std::move(change));
    }
    return changes;
}

exec::Command write_command(const std::string& cluster_dir, std::string text) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::intent_write), "pdctl-intent-write", cluster_dir};
    command.stdin_data = std::move(text);
    command.timeout = std::chrono::seconds(20);
    return command;
}

exec::Command read_command(const std::string& cluster_dir) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::intent_read), "pdctl-intent-read", cluster_dir};
    command.timeout = std::chrono::seconds(20);
    return command;
}

}  // namespace pdctl::state::intent
