#include <fmt/format.h>

#include "commands.hpp"
#include "pdctl/report/plan_view.hpp"

namespace pdctl::cli {

ExitCode plan_command(const GlobalOptions& global, const PlanOptions& options) {
    if (options.verb != "start" && options.verb != "stop" && options.verb != "restart")
        throw Failure(ExitCode::kUsage, "plan takes start, stop or restart, not '" + options.verb + "'");
    auto context = load_context(global);
    const std::string text = global.json ? report::plan_to_json(context.plan, options.verb).dump(2)
                                         : report::render_plan_text(context.plan, options.verb);
    fmt::print("{}\n", context.redactor.redact(text));
    return ExitCode::kOk;
}

}  // namespace pdctl::cli
