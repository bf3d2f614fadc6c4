#include "pdctl/ops/bench_flags.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>

#include "pdctl/config/bench_file.hpp"
#include "pdctl/config/dataset_file.hpp"
#include "pdctl/config/duration.hpp"
#include "pdctl/ops/bench_requests.hpp"
#include "pdctl/ops/bench_slo.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

// --dataset FILE.jsonl: one row of the file's prompts, as texts (docs/bench.md "Workloads").
BenchRow dataset_row(const BenchFlags& options) {
    config::DatasetFilter filter;
    filter.fixed_output_tokens = options.output;
    const auto file = config::load_dataset_file(options.dataset, config::DiskFileSource{}, filter);
    if (file.prompts.empty())
        throw Failure(
            ExitCode::kUsage,
            fmt::format("--dataset {}: no prompt is left ({} too short, {} too long, {} without an answer)",
                        options.dataset, file.dropped_too_short, file.dropped_too_long,
                        file.dropped_no_answer));
    auto shape = std::make_shared<load::DatasetShape>();
    shape->default_output_tokens = options.output > 0 ? options.output : 256;
    for (const auto& prompt : file.prompts) shape->prompts.push_back({prompt.text, prompt.output_tokens});
    BenchRow row;
    row.name = std::filesystem::path(options.dataset).stem().string();
    row.workload = BenchWorkload::kDataset;
    row.output_tokens = shape->default_output_tokens;
    row.dataset = std::move(shape);
    return row;
}

// The rows the flags ask for: --input/--output (one row), --file, --scenario validation, or for a soak
// its row.
std::vector<BenchRow> chosen_rows(const BenchFlags& options, const std::optional<config::BenchFile>& file,
                                  std::string& scenario) {
    const bool custom = options.input > 0 || (options.output > 0 && options.dataset.empty());
    if ((custom ? 1 : 0) + (options.scenario.empty() ? 0 : 1) + (file ? 1 : 0) +
            (options.dataset.empty() ? 0 : 1) >
        1)
        throw Failure(
            ExitCode::kUsage,
            "--scenario, --file, --dataset and --input/--output each choose the rows: give one of them");
    if (!options.dataset.empty()) {
        scenario = "dataset";
        return {dataset_row(options)};
    }
    if (file) {
        scenario = file->name;
        std::vector<BenchRow> rows;
        for (const auto& row : file->rows)
            rows.push_back(unique_row(row.name, row.input_tokens, row.output_tokens));
        return rows;
    }
    if (custom) {
        if (options.input <= 0 || options.output <= 0)
            throw Failure(ExitCode::kUsage, "--input and --output go together, each at least 1 token");
        scenario = "custom";
        return {
            unique_row(fmt::format("{}/{}", options.input, options.output), options.input, options.output)};
    }
    if (!options.soak.empty() && options.scenario.empty()) {
        scenario = "soak";
        return {soak_row()};
    }
    scenario = options.scenario.empty() ? "validation" : options.scenario;
    if (scenario == "shared-prefix") return {shared_prefix_row()};
    if (scenario == "multi-turn") return {multi_turn_row()};
    if (scenario != "validation")
        throw Failure(ExitCode::kUsage,
                      fmt::format("--scenario {}: unknown scenario (validation, shared-prefix, "
                                  "multi-turn)",
                                  scenario));
    return validation_rows();
}

// --rate 8 | 1,2,4,8 | inf | ramp: open-loop levels, or the search for the saturation point.
void read_rates(const BenchFlags& options, BenchSpec& spec) {
    if (options.rate.empty()) return;
    if (options.rate == "ramp") {
        spec.ramp = true;
    } else {
        for (const std::string& part : util::split(options.rate, ',')) {
            char* end = nullptr;
            const double rate = std::strtod(part.c_str(), &end);
            if (part.empty() || *end != '\0' || !(rate > 0))
                throw Failure(
                    ExitCode::kUsage,
                    fmt::format("--rate {}: requests per second above 0 (8), a list (1,2,4,8), inf, "
                                "or ramp",
                                options.rate));
            spec.rates.push_back(rate);
        }
    }
    if (options.concurrency.size() > 1)
        throw Failure(
            ExitCode::kUsage,
            "with --rate, --concurrency is one cap on the requests in flight, not a list of levels");
    spec.concurrency = options.concurrency.empty() ? std::vector<int>{0} : options.concurrency;
}

}  // namespace

BenchSpec bench_spec(BenchFlags options) {
    std::optional<config::BenchFile> file;
    if (!options.file.empty()) {
        file = config::load_bench_file(options.file, config::DiskFileSource{});
        // What the file sets, unless a flag says otherwise.
        if (options.concurrency.empty()) options.concurrency = file->concurrency;
        // A soak's length is --soak's: the file's own end of a level does not apply to it.
        if (options.soak.empty() && options.requests == 0 && options.duration.empty()) {
            options.requests = file->requests;
            if (file->duration.count() > 0) options.duration = std::to_string(file->duration.count()) + "ms";
        }
        if (file->warmup >= 0 && !options.warmup_given) options.warmup = file->warmup;
    }
    BenchSpec spec;
    spec.rows = chosen_rows(options, file, spec.scenario);
    if (!options.concurrency.empty()) spec.concurrency = options.concurrency;
    for (int level : options.concurrency)
        if (level < 1)
            throw Failure(ExitCode::kUsage, fmt::format("--concurrency {}: each level is at least 1", level));
    read_rates(options, spec);
    if (options.requests < 0) throw Failure(ExitCode::kUsage, "--requests: at least 1");
    spec.requests = options.requests;
    if (!options.duration.empty())
        spec.duration = config::parse_duration_flag("--duration", options.duration);
    if (!options.soak.empty()) {
        if (!options.duration.empty() || options.requests > 0)
            throw Failure(ExitCode::kUsage,
                          "--soak T is itself the duration: leave out --duration and --requests");
        spec.soak = true;
        spec.duration = config::parse_duration_flag("--soak", options.soak);
    }
    if (spec.requests > 0 && spec.duration.count() > 0)
        throw Failure(ExitCode::kUsage, "--requests and --duration both end a level: give one of them");
    if (options.warmup < 0) throw Failure(ExitCode::kUsage, "--warmup: 0 or more requests");
    spec.warmup = options.warmup;
    spec.timeout = config::parse_duration_flag("--timeout", options.timeout);
    // Without --seed every run draws its own, so no prompt of this run is in the prefix cache from the
    // last one; with it the run repeats exactly (and a cache that kept the last run's prompts shows).
    spec.seed_given = options.seed.has_value();
    spec.seed =
        options.seed ? *options.seed : std::random_device{}() * 0x100000000ULL + std::random_device{}();
    spec.router = options.router;
    if (options.repeat < 1) throw Failure(ExitCode::kUsage, "--repeat: each level runs at least once");
    spec.repeat = options.repeat;
    if (!(options.burstiness > 0))
        throw Failure(ExitCode::kUsage, "--burstiness: the arrivals' gamma shape, above 0 (1: Poisson)");
    if (options.burstiness != 1.0 && spec.rates.empty() && !spec.ramp)
        throw Failure(ExitCode::kUsage, "--burstiness shapes the arrivals of --rate: give --rate too");
    spec.burstiness = options.burstiness;
    if (!options.slo.empty()) spec.slo = parse_slo(options.slo);
    if (spec.ramp && !spec.slo)
        throw Failure(ExitCode::kUsage,
                      "--rate ramp searches the highest rate that meets an SLO: give --slo too, e.g. "
                      "--slo ttft=2s,itl=50ms");
    spec.flush_cache = options.flush_cache;
    spec.base_url = options.base_url;
    if (!spec.base_url.empty() && !options.router.empty())
        throw Failure(ExitCode::kUsage,
                      "--base-url and --router both say where the load goes: give one of them");
    spec.allow_unverified = options.allow_unverified;
    if (spec.allow_unverified && !spec.soak)
        throw Failure(ExitCode::kUsage, "--allow-unverified is a soak's: give --soak too");
    return spec;
}

}  // namespace pdctl::ops
