#include "pdctl/state/config_store.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "embedded/state_scripts.hpp"
#include "pdctl/util/sha256.hpp"

namespace pdctl::state::config_store {
namespace {

using nlohmann::json;

std::string text_of(const json& object, const char* key, const char* what) {
    const auto found = object.find(key);
    if (found == object.end() || !found->is_string())
        throw std::runtime_error(std::string(what) + " without a text `" + key + "`");
    return found->get<std::string>();
}

}  // namespace

std::string to_document(const Bundle& bundle) {
    // nlohmann::json keeps object keys sorted: the same bundle always dumps to the same text.
    json files = json::array();
    for (const auto& file : bundle.files) files.push_back({{"path", file.path}, {"content", file.content}});
    json pushed = json::array();
    for (const auto& file : bundle.pushed)
        pushed.push_back({{"source", file.source}, {"dest", file.dest}, {"sha256", file.sha256}});
    return json{{"format", 1}, {"entry", bundle.entry}, {"files", files}, {"pushed", pushed}}.dump() + "\n";
}

Bundle parse_document(const std::string& document) {
    const json root = json::parse(document, nullptr, false);
    if (!root.is_object()) throw std::runtime_error("a kept config that is not a JSON object");
    Bundle bundle;
    bundle.entry = text_of(root, "entry", "a kept config");
    const auto files = root.find("files");
    if (files == root.end() || !files->is_array()) throw std::runtime_error("a kept config without `files`");
    for (const auto& file : *files) {
        if (!file.is_object()) throw std::runtime_error("a kept config's file that is not an object");
        bundle.files.push_back(
            {text_of(file, "path", "a kept file"), text_of(file, "content", "a kept file")});
    }
    if (const auto pushed = root.find("pushed"); pushed != root.end() && pushed->is_array())
        for (const auto& file : *pushed)
            if (file.is_object())
                bundle.pushed.push_back({text_of(file, "source", "a pushed file"),
                                         text_of(file, "dest", "a pushed file"),
                                         text_of(file, "sha256", "a pushed file")});
    return bundle;
}

std::string bundle_id(const std::string& document) {
    return util::sha256_hex(document);
}

bool is_bundle_id(const std::string& id) {
    if (id.size() != 64) return false;
    for (const char c : id)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string document_path(const std::string& cluster_dir, const std::string& id) {
    return cluster_dir + "/configs/" + id + ".json";
}

exec::Command put_command(const std::string& cluster_dir, const std::string& id, std::string document) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::config_put), "pdctl-config-put", cluster_dir, id};
    command.stdin_data = std::move(document);
    command.timeout = std::chrono::seconds(20);
    return command;
}

exec::Command get_command(const std::string& cluster_dir, const std::string& id) {
    exec::Command command;
    command.argv = {"cat", document_path(cluster_dir, id)};
    command.timeout = std::chrono::seconds(20);
    return command;
}

}  // namespace pdctl::state::config_store
