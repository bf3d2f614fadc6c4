// PD008: decode fetches the KV of a request from the bootstrap server at the prefill host the
// router names and the port the router passes with `--prefill URL PORT`; the router does not
// discover it (sglang_router's router_args.py; sglang #11747). pdctl passes the config's bootstrap_port, so a
// --disaggregation-bootstrap-port in the prefill's args/EXTRA_ARGS (the last one wins) silently
// splits the two: "Could not fetch prefill parallel info from bootstrap" on every request.

#include <charconv>

#include "pdctl/lint/argv.hpp"
#include "router_workers.hpp"

namespace pdctl::lint {
namespace {

// The port decode uses for a worker: the router's, or — when the router sends none — the decode's
// own --disaggregation-bootstrap-port (SGLang's scheduler.py falls back to it; docs/doctor.md#pd008).
struct RouterPort {
    int port = 0;
    std::string source;  // for the message
};

std::vector<RouterPort> ports_used(const plan::Plan& plan, const std::vector<detail::RouterWorker>& workers,
                                   const detail::RouterWorker& prefill) {
    if (prefill.bootstrap_port && *prefill.bootstrap_port != "none") {
        int port = 0;
        const auto& text = *prefill.bootstrap_port;
        const auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), port);
        if (error != std::errc() || ptr != text.data() + text.size()) return {};
        return {{port, "the router passes " + text}};
    }
    std::vector<RouterPort> ports;
    for (const auto& worker : workers) {
        if (worker.mode != config::SglangMode::Decode) continue;
        const auto url = parse_http_url(worker.url);
        const auto* decode = url ? detail::unit_serving(plan, *url) : nullptr;
        if (!decode) continue;
        ports.push_back({detail::bootstrap_port(decode->program.argv),
                         "the router passes no port, so " + decode->role + " uses its own " +
                             std::to_string(detail::bootstrap_port(decode->program.argv))});
    }
    if (ports.empty())
        ports.push_back(
            {config::kSglangBootstrapPort, "the router passes no port, so decode uses the default " +
                                               std::to_string(config::kSglangBootstrapPort)});
    return ports;
}

}  // namespace

void check_router_bootstrap_port(const RuleInput& input, FindingSink& sink) {
    for (const auto* router : detail::router_units(input.plan)) {
        const auto workers = detail::router_workers(*router);
        for (const auto& worker : workers) {
            if (worker.mode != config::SglangMode::Prefill) continue;
            const auto url = parse_http_url(worker.url);
            const auto* prefill = url ? detail::unit_serving(input.plan, *url) : nullptr;
            if (!prefill || prefill->rank != 0) continue;  // PD009 reports URLs that are not a rank 0
            const int listens = detail::bootstrap_port(prefill->program.argv);
            const auto* role = input.cluster.find_role(prefill->role);
            for (const auto& used : ports_used(input.plan, workers, worker)) {
                if (used.port == listens) continue;
                const bool in_args = role && detail::given_in_args(*role, "--disaggregation-bootstrap-port");
                auto& finding = sink.add(
                    Severity::Error, prefill->role,
                    detail::router_label(router->role) + " sends requests for " + worker.url +
                        " with bootstrap port " + std::to_string(used.port) + " (" + used.source + "), but " +
                        prefill->role + " listens on " + std::to_string(listens) +
                        (in_args
                             ? " (--disaggregation-bootstrap-port in its args/EXTRA_ARGS, the last one wins)"
                             : ""),
                    in_args
                        ? "set `bootstrap_port: " + std::to_string(listens) + "` on role " + prefill->role +
                              " instead of passing --disaggregation-bootstrap-port in args/EXTRA_ARGS; pdctl "
                              "then gives the router the same port"
                        : "give the router the prefill's bootstrap port (`--prefill URL PORT`)");
                finding.node = prefill->node;
                finding.location = role ? role->where : config::SourceLocation{};
            }
        }
    }
}

}  // namespace pdctl::lint
