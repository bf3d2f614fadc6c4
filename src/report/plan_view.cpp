#include "pdctl/report/plan_view.hpp"

#include <fmt/format.h>

#include "pdctl/report/text_reporter.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::report {
using util::format_elapsed;

namespace {

using nlohmann::json;

std::string env_value(const runtime::EnvEntry& entry) {
    return entry.secret ? util::kRedacted : entry.value;
}

// The start payload for people, word for word what runs (the BOOTSTRAP wrapper with its guard
// included), long commands wrapped like a shell script would be.
std::string readable_words(const std::vector<std::string>& words) {
    // Quote every word, then glue each `--flag value` pair so a wrap never separates them.
    std::vector<std::string> pieces;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string word = util::shell_quote(words[i]);
        const bool value_of_flag = i > 0 && words[i - 1].size() > 1 && words[i - 1][0] == '-' &&
                                   !words[i].empty() && words[i][0] != '-' && !pieces.empty();
        if (value_of_flag) {
            pieces.back() += " " + word;
        } else {
            pieces.push_back(word);
        }
    }
    std::string out, line;
    for (const auto& piece : pieces) {
        // A multi-line word (the BOOTSTRAP wrapper script) breaks the lines itself: it follows its
        // flag on the same line.
        const bool multi_line = piece.find('\n') != std::string::npos;
        if (!line.empty() && !multi_line && line.size() + piece.size() > 100) {
            out += line + " \\\n          ";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + piece;
    }
    return out + line;
}

std::string readable_run(const plan::Unit& unit) {
    return readable_words(unit.run);
}

// executor: slurm: the exact sbatch line (or the step's launch), and the srun line of its job script with the
// fixed rank script left out (`plan --json` has the whole job script). A step of an allocation (`nodes:
// from-allocation`) is launched by a fixed script: what it does, in words.
void render_slurm_job(std::string& out, const runtime::SlurmJob& job) {
    if (job.step)
        out += "  step:   of SLURM allocation " + job.allocation +
               ": job.sh (the srun below) run detached from pdctl (setsid), its output in job.out\n";
    else
        out += "  sbatch: " + readable_words(job.submit.argv) + "\n";
    auto srun = job.srun;
    if (job.srun_script < srun.size()) srun[job.srun_script] = "<rank script: plan --json, slurm.job_script>";
    out += "  srun:   " + readable_words(srun) + "\n";
    out += "  files:  " + job.dir +
           "/: job.sh, job.out, and per rank NAME.sh, NAME.env (0600), NAME.labels, NAME.log, "
           "NAME.pid, NAME.started, NAME.exit\n";
}

// "prefill (bootstrap: GET 10.0.0.1:8998/health == 200)": which gate each dependency edge waits for.
std::vector<std::string> edge_texts(const plan::Stage& stage) {
    std::vector<std::string> texts;
    for (const auto& edge : stage.edges) {
        const std::string kind = config::to_string(edge.kind);
        texts.push_back(edge.kind == plan::GateKind::Started
                            ? fmt::format("{} ({})", edge.role, kind)
                            : fmt::format("{} ({}: {})", edge.role, kind, edge.gate.why));
    }
    return texts;
}

json edges_json(const plan::Stage& stage) {
    json edges = json::array();
    for (const auto& edge : stage.edges) {
        edges.push_back({{"role", edge.role},
                         {"gate", config::to_string(edge.kind)},
                         {"url", edge.gate.url},
                         {"expect_status", edge.gate.expect_status},
                         {"why", edge.gate.why}});
    }
    return edges;
}

const char* to_string(plan::CheckKind kind) {
    switch (kind) {
        case plan::CheckKind::Status:
            return "status";
        case plan::CheckKind::ServiceReady:
            return "service_ready";
        case plan::CheckKind::Workers:
            return "workers";
        case plan::CheckKind::Generate:
            return "generate";
    }
    return "?";
}

json checks_json(const plan::Gate& gate) {
    json checks = json::array();
    for (const auto& check : gate.effective_checks()) {
        json entry = {{"kind", to_string(check.kind)},
                      {"method", check.kind == plan::CheckKind::Generate ? "POST" : "GET"},
                      {"url", check.url},
                      {"why", check.why}};
        if (check.kind != plan::CheckKind::Generate) entry["expect_status"] = check.expect_status;
        if (check.kind == plan::CheckKind::Workers) entry["workers"] = check.workers;
        checks.push_back(std::move(entry));
    }
    return checks;
}

void render_start_stage(std::string& out, const plan::Stage& stage, std::size_t index) {
    const auto& gate = stage.gate;
    const std::string count = stage.units.size() > 1 ? fmt::format(" ×{}", stage.units.size()) : "";
    out += fmt::format("stage {}  {}{}", index, stage.role, count);
    if (stage.groups > 1) {
        out += fmt::format(" ({}group {} of {})", stage.mode.empty() ? "" : stage.mode + ", ", stage.group,
                           stage.groups);
    } else if (!stage.mode.empty()) {
        out += " (" + stage.mode + ")";
    }
    if (!stage.edges.empty()) out += "  after " + util::join(edge_texts(stage));
    out += "\n";
    if (!stage.program_note.empty()) out += "  program: " + stage.program_note + "\n";
    if (!stage.units.empty() && stage.units.front().cache.enabled()) {
        const auto& cache = stage.units.front().cache;
        out += "  kernel cache: " + cache.dir +
               (cache.mount.empty() ? "" : " (mounted at " + cache.mount + ")") + ", kept per fingerprint\n";
    }
    if (gate.checks.size() <= 1) {
        out += fmt::format("  gate: {} at {} (deadline {}, every {})\n", gate.why, gate.url,
                           format_elapsed(gate.deadline), format_elapsed(gate.interval));
    } else {
        // Each check on a line of its own, in the order they must pass, then why the weaker one is not
        // enough.
        out += fmt::format("  gate: deadline {}, every {}; in order:\n", format_elapsed(gate.deadline),
                           format_elapsed(gate.interval));
        for (std::size_t i = 0; i < gate.checks.size(); ++i) {
            const auto& check = gate.checks[i];
            out += fmt::format("    {}. {}  {} {}\n", i + 1, check.why,
                               check.kind == plan::CheckKind::Generate ? "POST" : "GET", check.url);
        }
        if (!gate.caveat.empty()) out += "    (" + gate.caveat + ")\n";
    }
    if (!gate.deadline_note.empty())
        out += "  deadline " + format_elapsed(gate.deadline) + ": " + gate.deadline_note + "\n";
    if (stage.slurm) render_slurm_job(out, *stage.slurm);
    for (const auto& unit : stage.units) {
        out += fmt::format("  {} rank{}  {}  [{}]\n", unit.node, unit.rank, unit.address, unit.name);
        out += "    run:  " + readable_run(unit) + "\n";
        for (std::size_t i = 0; i < unit.program.env.size(); ++i) {
            const auto& entry = unit.program.env[i];
            out += fmt::format("    {}{}={}\n", i == 0 ? "env:  " : "      ", entry.key, env_value(entry));
        }
    }
}

void render_stop_stage(std::string& out, const plan::Stage& stage, std::size_t index) {
    out += fmt::format("stop {}  {}\n", index, stage.role);
    if (stage.slurm) {
        // One stop for the whole job: every unit's is the same.
        out += fmt::format("  {} {}: {}\n", stage.slurm->step ? "step" : "job", stage.slurm->name,
                           stage.units.front().stop_description);
        return;
    }
    for (const auto& unit : stage.units)
        out += fmt::format("  {} rank{}  {}\n", unit.node, unit.rank, unit.stop_description);
}

json command_json(const exec::Command& command) {
    return json{{"argv", command.argv}, {"timeout_ms", command.timeout.count()}};
}

json stage_json(const plan::Stage& stage) {
    json units = json::array();
    for (const auto& unit : stage.units) {
        json env = json::array();
        for (const auto& entry : unit.program.env)
            env.push_back({{"key", entry.key}, {"value", env_value(entry)}, {"secret", entry.secret}});
        json cache = nullptr;
        if (unit.cache.enabled())
            cache = {{"dir", unit.cache.dir}, {"mount", unit.cache.mount}, {"parts", unit.cache.parts}};
        units.push_back({{"name", unit.name},
                         {"node", unit.node},
                         {"address", unit.address},
                         {"rank", unit.rank},
                         {"program", unit.program.argv},
                         {"env", env},
                         {"bootstrap", unit.program.bootstrap},
                         {"fingerprint", unit.fingerprint},
                         {"cache", cache},
                         {"run", unit.run},
                         {"start", command_json(unit.start)},
                         {"stop", command_json(unit.stop)},
                         {"stop_description", unit.stop_description}});
    }
    const auto& gate = stage.gate;
    json group = nullptr;  // null for a role of one group
    if (stage.groups > 1)
        group = {{"role", stage.config_role}, {"index", stage.group}, {"count", stage.groups}};
    json out{{"role", stage.role},
             {"group", group},
             {"kind", config::to_string(stage.kind)},
             {"mode", stage.mode},
             {"after", stage.after()},
             {"edges", edges_json(stage)},
             {"runtime",
              {{"kind", config::to_string(stage.runtime.kind)},
               {"cli", stage.runtime.cli},
               {"image", stage.runtime.image},
               {"options", stage.runtime.options},
               {"state_dir", stage.runtime.state_dir}}},
             {"gate",
              {{"url", gate.url},
               {"expect_status", gate.expect_status},
               {"deadline_ms", gate.deadline.count()},
               {"interval_ms", gate.interval.count()},
               {"node", gate.node},
               {"why", gate.why},
               {"checks", checks_json(gate)},
               {"caveat", gate.caveat},
               {"deadline_note", gate.deadline_note}}},
             {"program_note", stage.program_note},
             {"units", units}};
    if (stage.slurm) {
        const auto& job = *stage.slurm;
        json prepare = json::array();
        for (const auto& write : job.prepare) prepare.push_back(command_json(write));
        out["slurm"] = {{"job_name", job.name},
                        {"comment", job.comment},
                        {"dir", job.dir},
                        {"nodes", job.nodes},
                        {"job_script", job.job_script},
                        {"allocation", job.allocation},
                        {"prepare", prepare},
                        {"submit", command_json(job.submit)}};
    }
    return out;
}

}  // namespace

std::string render_plan_text(const plan::Plan& plan, const std::string& verb) {
    std::string out =
        fmt::format("cluster {} · {} nodes · executor {} · config {} · plan {}\n", plan.cluster,
                    plan.nodes.size(), config::to_string(plan.executor), plan.fingerprint, verb);
    if (verb == "stop" || verb == "restart") {
        std::size_t index = 1;
        for (auto it = plan.stages.rbegin(); it != plan.stages.rend(); ++it)
            render_stop_stage(out, *it, index++);
    }
    if (verb == "start" || verb == "restart") {
        std::size_t index = 1;
        for (const auto& stage : plan.stages) render_start_stage(out, stage, index++);
    }
    return out;
}

json plan_to_json(const plan::Plan& plan, const std::string& verb) {
    json nodes = json::array();
    for (const auto& node : plan.nodes)
        nodes.push_back({{"name", node.name},
                         {"address", node.address},
                         {"ssh_user", node.ssh.user},
                         {"ssh_port", node.ssh.port}});
    json start = json::array(), stop = json::array();
    for (const auto& stage : plan.stages) start.push_back(stage_json(stage));
    for (auto it = plan.stages.rbegin(); it != plan.stages.rend(); ++it) stop.push_back(it->role);
    json out{{"cluster", plan.cluster},
             {"verb", verb},
             {"config", plan.fingerprint},
             {"executor", config::to_string(plan.executor)},
             {"nodes", nodes}};
    if (verb == "stop" || verb == "restart") out["stop_order"] = stop;
    out["stages"] = start;
    return out;
}

}  // namespace pdctl::report
