// pdctl cache status|clear|spread: the roles' compiled-kernel caches on their nodes (ops/kernel_cache.hpp).
// clear and spread change the nodes, so they run under the deploy lock and are journaled, as push does.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/kernel_cache.hpp"
#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/report/kernel_cache_view.hpp"
#include "pdctl/util/bytes.hpp"
#include "pdctl/util/durations.hpp"
#include "print_result.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct ClearOptions {
    plan::Scope scope;
    bool only_set_aside = false;
};

ExitCode cache_status_command(const GlobalOptions& global, const plan::Scope& scope) {
    auto context = load_context(global);
    const auto report = ops::read_caches(context, scope);
    print_result(
        global, context.redactor, [&] { return report::cache_status_to_json(report); },
        [&] { return report::render_cache_status_text(report); });
    return report.any_error() ? ExitCode::kUnreachable : ExitCode::kOk;
}

ExitCode cache_clear_command(const GlobalOptions& global, const ClearOptions& options) {
    auto context = load_context(global);
    ops::CacheClearResult result;
    const auto code = ops::run_copy_verb(context, "cache clear", [&](engine::Reporter&) {
        const auto began = util::SteadyClock::now();
        result = ops::clear_caches(context, options.scope, options.only_set_aside);
        return ops::CopyOutcome{
            result.failed.empty(), !result.failed.empty(), util::milliseconds_since(began),
            fmt::format("cleared {}", util::format_bytes(static_cast<std::uint64_t>(result.bytes)))};
    });
    print_result(
        global, context.redactor,
        [&] {
            return nlohmann::json{{"freed_bytes", result.bytes}, {"failed", result.failed}};
        },
        [&] {
            std::string text =
                fmt::format("cleared {}{}\n", options.only_set_aside ? "the caches set aside, " : "",
                            util::format_bytes(static_cast<std::uint64_t>(result.bytes)));
            for (const auto& failure : result.failed) text += "failed: " + failure + "\n";
            return text;
        });
    return code;
}

struct SpreadOptions {
    plan::Scope scope;
    int relay_port = ops::kCacheSpreadPort;
};

ExitCode cache_spread_command(const GlobalOptions& global, const SpreadOptions& options) {
    auto context = load_context(global, Purpose::kOnNodes, "cache spread");
    ops::CacheSpreadResult result;
    const auto code = ops::run_copy_verb(context, "cache spread", [&](engine::Reporter&) {
        const auto began = util::SteadyClock::now();
        result = ops::spread_caches(context, options.scope, options.relay_port);
        return ops::CopyOutcome{!result.failed(), result.failed(), util::milliseconds_since(began),
                                fmt::format("{} spread", result.spreads.size())};
    });
    print_result(
        global, context.redactor, [&] { return report::cache_spread_to_json(result); },
        [&] { return report::render_cache_spread_text(result); });
    return code;
}

}  // namespace

void add_cache_verb(CLI::App& app, Verbs& verbs) {
    auto* cache = app.add_subcommand(
        "cache", "the compiled-kernel caches the roles with `cache:` keep on their nodes between starts");
    cache->require_subcommand(1);
    auto* status = cache->add_subcommand(
        "status",
        "per node and role: the cache's key, size, age, hit or miss at the last start, what was set aside");
    auto scope = std::make_shared<plan::Scope>();
    add_scope_flags(*status, *scope);
    verbs.add(status, [scope](const GlobalOptions& global) { return cache_status_command(global, *scope); });

    auto* clear = cache->add_subcommand(
        "clear", "remove the caches (refused while a unit that uses one runs), or only those set aside");
    auto options = std::make_shared<ClearOptions>();
    add_scope_flags(*clear, options->scope);
    clear->add_flag("--set-aside", options->only_set_aside,
                    "only the caches of other fingerprints, set aside when the config or image changed");
    verbs.add(clear,
              [options](const GlobalOptions& global) { return cache_clear_command(global, *options); });

    auto* spread =
        cache->add_subcommand("spread",
                              "copy a role's kernels from a node that has them to the nodes of the same "
                              "fingerprint that lack them, "
                              "streamed node to node and sha256-checked on each (one warms, all benefit)");
    auto spread_options = std::make_shared<SpreadOptions>();
    add_scope_flags(*spread, spread_options->scope);
    spread
        ->add_option("--relay-port", spread_options->relay_port, "the TCP port the receiving nodes listen on")
        ->capture_default_str()
        ->check(CLI::Range(1, 65535));
    verbs.add(spread, [spread_options](const GlobalOptions& global) {
        return cache_spread_command(global, *spread_options);
    });
}

}  // namespace pdctl::cli
