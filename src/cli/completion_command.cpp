// pdctl completion bash: the script a shell sources to complete pdctl; and the hidden
// `pdctl __complete CWORD WORD...` that script calls on every <Tab>, answering from the app's own
// verbs and flags and from the cluster file on the line.
#include "completion_command.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "completion.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

// Kept small on purpose: every decision is pdctl's (__complete), so the script never goes stale.
constexpr const char* kBashScript =
    R"(# bash completion for pdctl (from `pdctl completion bash`). The candidates come from
# `pdctl __complete`: the verbs, their flags, and the roles, groups and nodes of the cluster file
# on the line (-c), in $PDCTL_CONFIG or ./pdctl.yaml.
_pdctl() {
    local cur words cword
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion -n = || return
    else
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
    fi
    local reply
    reply=$("${words[0]}" __complete "$cword" "${words[@]}" 2>/dev/null) || return
    [[ $cur == -*=* ]] && cur=${cur#*=}
    [[ $cur == = ]] && cur=
    local list=
    [[ $reply == *$'\n'* ]] && list=${reply#*$'\n'}
    case ${reply%%$'\n'*} in
        files) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        dirs) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
        *) mapfile -t COMPREPLY < <(printf '%s' "$list") ;;
    esac
}
complete -F _pdctl pdctl
)";

ClusterNames names_of(const std::string& config_path) {
    ClusterNames names;
    try {
        GlobalOptions options;
        options.config_path = config_path;
        const auto cluster = load_cluster(options);
        for (const auto& role : cluster.roles) {
            names.groups.push_back(role.name);
            if (std::find(names.roles.begin(), names.roles.end(), role.entry_name()) == names.roles.end())
                names.roles.push_back(role.entry_name());
        }
        for (const auto& node : cluster.nodes) names.nodes.push_back(node.name);
    } catch (const std::exception&) {
        // A config that does not load completes no names; the verb itself will say why.
    }
    return names;
}

}  // namespace

bool is_completion_request(int argc, char** argv) {
    return argc >= 2 && std::string(argv[1]) == kCompleteVerb;
}

int run_completion_request(const CLI::App& app, int argc, char** argv) {
    // Nothing but candidates may reach stdout: the config loader's notes stay quiet.
    spdlog::set_level(spdlog::level::off);
    if (argc < 4) return 2;
    std::size_t current = 0;
    try {
        current = std::stoul(argv[2]);
    } catch (const std::exception&) {
        return 2;
    }
    const std::vector<std::string> words(argv + 3, argv + argc);
    fmt::print("{}", to_protocol(complete(describe(app), words, current, names_of)));
    return 0;
}

void add_completion_verb(CLI::App& app, Verbs& verbs) {
    auto shell = std::make_shared<std::string>("bash");
    auto* command = app.add_subcommand(
        "completion",
        "print the shell completion script: source <(pdctl completion bash) (the .deb installs it)");
    command->add_option("shell", *shell, "the shell")->check(CLI::IsMember({"bash"}))->capture_default_str();
    // The lambda owns the bound string: CLI11 writes to it while parsing, after this returns.
    verbs.add(command, [shell](const GlobalOptions&) {
        fmt::print("{}", kBashScript);
        return ExitCode::kOk;
    });
}

}  // namespace pdctl::cli
