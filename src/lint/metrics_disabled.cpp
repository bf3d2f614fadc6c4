// PD022: SGLang mounts /metrics only with --enable-metrics (python/sglang/srt/entrypoints/http_server.py
// for rank 0; launch_dummy_health_check_server for ranks >= 1): without it /metrics answers 404. Then
// `pdctl status --metrics` shows nothing of the group, and a Prometheus that scrapes it records the
// group down for as long as it runs; `pdctl export prometheus` leaves it unscraped, so the alerts on
// KV transfer failures, bootstrap failures and queues have nothing to read. Info: a deployment may run
// without metrics on purpose, and the blackbox probes still watch it.

#include "pdctl/lint/argv.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {

void check_metrics_disabled(const RuleInput& input, FindingSink& sink) {
    for (const auto& stage : input.plan.stages) {
        // One finding per `roles:` entry: its groups share their args.
        if (stage.kind != config::RoleKind::Sglang || stage.units.empty() || stage.group > 1) continue;
        if (flag_set(stage.units.front().program.argv, {"--enable-metrics"})) continue;
        const auto* role = input.cluster.find_role(stage.role);
        auto& finding = sink.add(Severity::Info, stage.config_role,
                                 stage.config_role +
                                     " runs SGLang without --enable-metrics: its /metrics answers 404, so "
                                     "`pdctl status --metrics` and Prometheus cannot read its KV transfer "
                                     "failures or queues (`pdctl export prometheus` probes it instead)",
                                 "add --enable-metrics to the role's `args:` or its profile's EXTRA_ARGS "
                                 "(docs/migrating.md#6-metrics-a-flag-the-script-did-not-pass)");
        if (role) finding.location = role->where;
    }
}

}  // namespace pdctl::lint
