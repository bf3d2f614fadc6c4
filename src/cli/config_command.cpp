// pdctl config show|restore RUN: the config a past run ran, kept on the coordinator
// (ops/config_history.hpp).
#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/config_history.hpp"
#include "pdctl/report/config_view.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct ConfigOptions {
    std::string run = "last";
    std::string output;  // restore: the folder written
};

ExitCode config_show_command(const GlobalOptions& global, const ConfigOptions& options) {
    auto context = load_context(global);
    const auto kept = ops::read_kept_config(context, options.run);
    const auto files = ops::show_kept_config(kept);
    print_result(
        global, context.redactor, [&] { return report::kept_config_to_json(kept, files); },
        [&] { return report::render_kept_config_text(kept, files); });
    return ExitCode::kOk;
}

ExitCode config_restore_command(const GlobalOptions& global, const ConfigOptions& options) {
    auto context = load_context(global);
    const auto kept = ops::read_kept_config(context, options.run);
    const auto entry = ops::restore_kept_config(kept, options.output);
    print_result(
        global, context.redactor, [&] { return report::restored_to_json(kept, entry); },
        [&] { return report::render_restored_text(kept, entry); });
    return ExitCode::kOk;
}

}  // namespace

void add_config_verb(CLI::App& app, Verbs& verbs) {
    auto* config = app.add_subcommand(
        "config",
        "the config a past run ran (every start, restart, rollout and rollback keeps it): show, restore");
    config->require_subcommand(1);
    auto show_options = std::make_shared<ConfigOptions>();
    auto* show = config->add_subcommand("show", "print a run's config, its secret values redacted");
    show->add_option("run", show_options->run, "a run id, a unique prefix of one, or `last`")
        ->capture_default_str();
    auto restore_options = std::make_shared<ConfigOptions>();
    auto* restore = config->add_subcommand("restore", "write a run's config files into a new folder");
    restore->add_option("run", restore_options->run, "a run id, a unique prefix of one, or `last`")
        ->capture_default_str();
    restore
        ->add_option("-o,--output", restore_options->output, "the folder to write (must not hold the files)")
        ->required();
    show->fallthrough();
    restore->fallthrough();
    verbs.add(show, [show_options](const GlobalOptions& global) {
        return config_show_command(global, *show_options);
    });
    verbs.add(restore, [restore_options](const GlobalOptions& global) {
        return config_restore_command(global, *restore_options);
    });
}

}  // namespace pdctl::cli
