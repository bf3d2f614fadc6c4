#include "prometheus_probes.hpp"

namespace pdctl::exporter {

std::string rank_probe_job(const std::string& cluster) {
    return "pd-" + cluster + "-probe-ranks";
}
std::string router_health_job(const std::string& cluster) {
    return "pd-" + cluster + "-probe-router-health";
}
std::string router_generate_job(const std::string& cluster) {
    return "pd-" + cluster + "-probe-router-generate";
}

ProbeTarget rank_probe(const plan::Plan& plan, const plan::Stage& stage, const plan::Unit& unit,
                       const std::string& address) {
    return {rank_probe_job(plan.cluster),
            kPortModule,
            address,
            stage.config_role,
            stage.role,
            unit.node,
            unit.rank};
}

std::vector<ProbeTarget> router_probes(const plan::Plan& plan, const plan::Stage& stage) {
    const auto& router = stage.units.front();
    const auto& base = stage.router->url;
    return {{router_health_job(plan.cluster), kHealthModule, base + "/health", stage.config_role, stage.role,
             router.node, router.rank},
            {router_generate_job(plan.cluster), kGenerateModule, base + "/generate", stage.config_role,
             stage.role, router.node, router.rank}};
}

void make_probe_job(Tree& job, const std::string& module, const PrometheusOptions& options) {
    job["metrics_path"] = "/probe";
    job["params"]["module"] = Tree::array({module});
    Tree target;
    target["source_labels"] = Tree::array({"__address__"});
    target["target_label"] = "__param_target";
    Tree instance;
    instance["source_labels"] = Tree::array({"__param_target"});
    instance["target_label"] = "instance";
    Tree exporter;
    exporter["target_label"] = "__address__";
    exporter["replacement"] = options.blackbox_address;
    job["relabel_configs"] = Tree::array({std::move(target), std::move(instance), std::move(exporter)});
}

}  // namespace pdctl::exporter
