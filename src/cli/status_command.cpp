#include <fmt/format.h>

#include "commands.hpp"
#include "pdctl/engine/status.hpp"
#include "pdctl/report/status_view.hpp"

namespace pdctl::cli {

ExitCode status_command(const GlobalOptions& global) {
    auto context = load_context(global);
    auto& executor = *context.executor;
    health::RealHttpProber prober;
    const auto status = engine::collect_status(context.plan, executor, prober);
    const std::string text =
        global.json ? report::status_to_json(status).dump(2) : report::render_status_text(status);
    fmt::print("{}{}", context.redactor.redact(text), text.ends_with('\n') ? "" : "\n");
    return engine::status_exit_code(status);
}

}  // namespace pdctl::cli
