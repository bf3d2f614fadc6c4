#include "pdctl/config/bench_file.hpp"

#include <filesystem>
#include <set>

#include "pdctl/config/detail/yaml_reader.hpp"

namespace pdctl::config {
namespace {

using detail::MapReader;
using detail::YamlContext;

constexpr int kMaxTokens = 10'000'000;
constexpr int kMaxConcurrency = 100'000;

void read_rows(const YamlContext& yaml, const MapReader& top, BenchFile& bench) {
    const auto* entry = top.find("rows");
    if (entry == nullptr) return;
    if (!entry->value.IsSequence() || entry->value.size() == 0) {
        yaml.error(entry->value_where, "rows",
                   "expected a list of rows, got " + detail::describe(entry->value),
                   "e.g. rows: [{name: chat, input: 512, output: 256}]");
        return;
    }
    std::set<std::string> names;
    std::size_t index = 0;
    for (const auto& element : entry->value) {
        const std::string path = "rows[" + std::to_string(index++) + "]";
        MapReader row(yaml, element, path, yaml.at(element, entry->value_where));
        if (!row.is_map()) continue;
        row.check_keys({"name", "input", "output"});
        BenchFileRow parsed;
        parsed.where = row.where();
        // Every check runs, so one pass names every mistake of the row.
        const bool has_input = row.require("input", "input tokens per request");
        const bool has_output =
            row.require("output", "output tokens per request (ignore_eos: exactly that many)");
        const bool input_ok = row.integer("input", parsed.input_tokens, 1, kMaxTokens);
        const bool output_ok = row.integer("output", parsed.output_tokens, 1, kMaxTokens);
        if (!row.string("name", parsed.name))
            parsed.name = std::to_string(parsed.input_tokens) + "/" + std::to_string(parsed.output_tokens);
        if (!has_input || !has_output || !input_ok || !output_ok) continue;
        if (!names.insert(parsed.name).second) {
            yaml.error(parsed.where, path + ".name", "row `" + parsed.name + "` is named twice",
                       "rows are matched by name when runs are compared: give each its own");
            continue;
        }
        bench.rows.push_back(std::move(parsed));
    }
}

void read_concurrency(const YamlContext& yaml, const MapReader& top, BenchFile& bench) {
    const auto* entry = top.find("concurrency");
    if (entry == nullptr) return;
    const YAML::Node& value = entry->value;
    if (value.IsScalar()) {
        if (auto level = detail::as_int(yaml, value, entry->value_where, "concurrency", 1, kMaxConcurrency))
            bench.concurrency.push_back(*level);
        return;
    }
    if (!value.IsSequence()) {
        yaml.error(entry->value_where, "concurrency",
                   "expected a list of levels, got " + detail::describe(value),
                   "e.g. concurrency: [1, 8, 32]");
        return;
    }
    std::size_t index = 0;
    for (const auto& element : value) {
        const std::string path = "concurrency[" + std::to_string(index++) + "]";
        if (auto level =
                detail::as_int(yaml, element, yaml.at(element, entry->value_where), path, 1, kMaxConcurrency))
            bench.concurrency.push_back(*level);
    }
}

}  // namespace

BenchFile load_bench_file(const std::string& path, const FileSource& files) {
    Diagnostics diags;
    BenchFile bench;
    bench.path = path;
    bench.name = std::filesystem::path(path).stem().string();
    const auto content = files.read(path);
    if (!content) {
        diags.error({path}, "", "cannot read the bench file");
        throw ConfigError(diags.items());
    }
    const YamlContext yaml{path, &diags};
    try {
        const YAML::Node root = YAML::Load(*content);
        MapReader top(yaml, root, "", yaml.at(root, {path, 1, 1}));
        if (top.is_map()) {
            top.check_keys({"name", "rows", "concurrency", "requests", "duration", "warmup"});
            top.string("name", bench.name);
            if (top.require("rows", "the request shapes, e.g. rows: [{name: chat, input: 512, output: 256}]"))
                read_rows(yaml, top, bench);
            read_concurrency(yaml, top, bench);
            top.integer("requests", bench.requests, 1, 100'000'000);
            top.duration("duration", bench.duration);
            top.integer("warmup", bench.warmup, 0, 100'000);
            if (bench.requests > 0 && bench.duration.count() > 0)
                yaml.error(top.find("duration")->key_where, "duration",
                           "requests and duration both end a level", "keep one of them");
        }
    } catch (const YAML::Exception& e) {
        diags.error({path, e.mark.line + 1, e.mark.column + 1}, "", "invalid YAML: " + e.msg);
    }
    if (!diags.empty()) throw ConfigError(diags.items());
    return bench;
}

}  // namespace pdctl::config
