// PD016: the prefill and decode groups a router pairs must agree on TP size, or carry the staging
// buffer SGLang needs for heterogeneous TP (SGLANG_DISAGG_STAGING_BUFFER, sglang #15674). A
// mismatch is refused only when the first KV transfer happens, so the client sees a hang, not an
// error (llm-d #2433). With several groups per role, and several roles per mode, this is the check
// that every pairing the router can make is one SGLang can serve.

#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

int tp_of(const plan::Stage& stage) {
    return detail::tp_size(stage.units.front().program.argv);
}

bool has_staging_buffer(const config::Role& role) {
    const auto* var = detail::find_env(role, "SGLANG_DISAGG_STAGING_BUFFER");
    return var && !var->value.empty() && var->value != "0" && var->value != "false";
}

}  // namespace

void check_tp_transfer(const RuleInput& input, FindingSink& sink) {
    for (const auto& router : input.cluster.roles) {
        if (router.kind != config::RoleKind::Router) continue;
        for (const auto& prefill_name : router.prefill_roles) {
            const auto* prefill = input.cluster.find_role(prefill_name);
            const auto* prefill_stage = detail::stage_of(input.plan, prefill_name);
            if (!prefill || !prefill_stage || prefill_stage->units.empty()) continue;
            for (const auto& decode_name : router.decode_roles) {
                const auto* decode = input.cluster.find_role(decode_name);
                const auto* decode_stage = detail::stage_of(input.plan, decode_name);
                if (!decode || !decode_stage || decode_stage->units.empty()) continue;
                const int p = tp_of(*prefill_stage);
                const int d = tp_of(*decode_stage);
                if (p == d || (has_staging_buffer(*prefill) && has_staging_buffer(*decode))) continue;
                auto& finding = sink.add(
                    Severity::Warn, decode->name,
                    detail::router_label(router.name) + " pairs " + prefill->name + " (--tp-size " +
                        std::to_string(p) + ") with " + decode->name + " (--tp-size " + std::to_string(d) +
                        "), and not both set SGLANG_DISAGG_STAGING_BUFFER: SGLang refuses the KV transfer "
                        "only at the first request, which then hangs",
                    "give both the same TP size, or set SGLANG_DISAGG_STAGING_BUFFER=1 in both profiles "
                    "(heterogeneous TP)");
                finding.location = decode->where;
            }
        }
    }
}

}  // namespace pdctl::lint
