#pragma once
// What a router's final argv points at (PD008, PD009): its `--prefill URL [PORT]` and
// `--decode URL` workers, and which sglang unit of the plan answers at each URL.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/lint/address.hpp"
#include "rule_support.hpp"

namespace pdctl::lint::detail {

struct RouterWorker {
    config::SglangMode mode = config::SglangMode::Prefill;  // --prefill or --decode
    std::string url;                                        // as written
    std::optional<std::string> bootstrap_port;              // --prefill's optional second word
};

// Every worker of a router unit: the prefills, then the decodes (repeated flags all count: the
// router parses them with action="append").
std::vector<RouterWorker> router_workers(const plan::Unit& router);

// The sglang unit whose HTTP endpoint (bound host or node address, and --port) is `url`'s.
const plan::Unit* unit_serving(const plan::Plan& plan, const HttpUrl& url);

// The routers of the plan: rank 0 of each router role (every rank gets the same worker list).
std::vector<const plan::Unit*> router_units(const plan::Plan& plan);

}  // namespace pdctl::lint::detail
