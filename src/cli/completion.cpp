#include "completion.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

#include "pdctl/util/strings.hpp"

namespace pdctl::cli {
namespace {

bool is_lower_word(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::islower(c) || std::isdigit(c) || c == '-' || c == '_';
    });
}

// "TEXT:{learned,fixed}", "start|stop|restart", "ROLE", "FILE", "INT" ...
void read_type_name(const std::string& type_name, OptionSpec& spec) {
    if (const auto open = type_name.find('{'); open != std::string::npos) {
        const auto close = type_name.find('}', open);
        spec.value = ValueKind::kChoice;
        spec.choices = util::split(type_name.substr(open + 1, close - open - 1), ',');
        return;
    }
    const std::string head = type_name.substr(0, type_name.find_first_of(": "));
    if (head == "FILE")
        spec.value = ValueKind::kFile;
    else if (head == "DIR")
        spec.value = ValueKind::kDir;
    else if (head == "ROLE")
        spec.value = ValueKind::kRole;
    else if (head == "GROUP")
        spec.value = ValueKind::kGroup;
    else if (head == "ROLE|GROUP")
        spec.value = ValueKind::kRoleOrGroup;
    else if (head == "NODE")
        spec.value = ValueKind::kNode;
    else if (const auto choices = util::split(head, '|');
             choices.size() > 1 && std::all_of(choices.begin(), choices.end(), is_lower_word)) {
        spec.value = ValueKind::kChoice;
        spec.choices = choices;
    } else {
        spec.value = ValueKind::kFree;
    }
}

OptionSpec describe_option(const CLI::Option& option) {
    OptionSpec spec;
    for (const auto& name : option.get_snames()) spec.names.push_back("-" + name);
    for (const auto& name : option.get_lnames()) spec.names.push_back("--" + name);
    if (option.get_type_size() != 0) read_type_name(option.get_type_name(), spec);
    return spec;
}

CommandSpec describe_command(const CLI::App& app) {
    CommandSpec spec;
    spec.name = app.get_name();
    for (const auto* option : app.get_options()) {
        // A hidden option (a deprecated spelling) still parses but is not offered.
        if (option->nonpositional() && option->get_group().empty()) continue;
        if (option->nonpositional()) {
            spec.options.push_back(describe_option(*option));
        } else {
            spec.positionals.push_back(describe_option(*option));
            spec.last_positional_repeats = option->get_items_expected_max() > 1;
        }
    }
    for (const auto* sub : app.get_subcommands({}))
        if (!sub->get_group().empty()) spec.commands.push_back(describe_command(*sub));
    return spec;
}

// The options a word may name at this point: the chosen command's and, since every verb falls through
// to its parents, theirs.
const OptionSpec* find_option(const std::vector<const CommandSpec*>& path, const std::string& name) {
    for (auto it = path.rbegin(); it != path.rend(); ++it)
        for (const auto& option : (*it)->options)
            if (std::find(option.names.begin(), option.names.end(), name) != option.names.end())
                return &option;
    return nullptr;
}

const CommandSpec* find_command(const CommandSpec& command, const std::string& name) {
    for (const auto& sub : command.commands)
        if (sub.name == name) return &sub;
    return nullptr;
}

bool is_config_option(const OptionSpec& option) {
    return std::find(option.names.begin(), option.names.end(), "--config") != option.names.end();
}

// Bash splits "--config=x" into "--config", "=", "x" (COMP_WORDBREAKS); bash-completion's
// _init_completion -n = does not. Either way the engine below sees "--config=x".
void join_equals(std::vector<std::string>& words, std::size_t& current) {
    for (std::size_t i = 1; i < words.size(); ++i) {
        if (words[i] != "=" || words[i - 1].rfind('-', 0) != 0) continue;
        std::size_t merged = 1;
        words[i - 1] += "=";
        if (i + 1 < words.size() && current != i) {
            words[i - 1] += words[i + 1];
            merged = 2;
        }
        words.erase(words.begin() + static_cast<std::ptrdiff_t>(i),
                    words.begin() + static_cast<std::ptrdiff_t>(i + merged));
        if (current >= i) current = current >= i + merged ? current - merged : i - 1;
    }
}

void keep_prefixed(std::vector<std::string>& words, const std::string& prefix) {
    words.erase(std::remove_if(words.begin(), words.end(),
                               [&](const std::string& word) { return word.rfind(prefix, 0) != 0; }),
                words.end());
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
}

Completion values(const OptionSpec& option, const std::string& prefix, const std::string& config_path,
                  const NameLoader& load) {
    Completion out;
    const auto names = [&] { return load ? load(config_path) : ClusterNames{}; };
    switch (option.value) {
        case ValueKind::kFile:
            out.kind = Completion::Kind::kFiles;
            return out;
        case ValueKind::kDir:
            out.kind = Completion::Kind::kDirs;
            return out;
        case ValueKind::kRole:
            out.words = names().roles;
            break;
        case ValueKind::kGroup:
            out.words = names().groups;
            break;
        case ValueKind::kRoleOrGroup: {
            const auto all = names();
            out.words = all.roles;
            out.words.insert(out.words.end(), all.groups.begin(), all.groups.end());
            break;
        }
        case ValueKind::kNode:
            out.words = names().nodes;
            break;
        case ValueKind::kChoice:
            out.words = option.choices;
            break;
        case ValueKind::kNone:
        case ValueKind::kFree:
            break;
    }
    keep_prefixed(out.words, prefix);
    return out;
}

std::vector<std::string> option_names(const std::vector<const CommandSpec*>& path, bool with_short) {
    std::vector<std::string> names;
    for (const auto* command : path)
        for (const auto& option : command->options)
            for (const auto& name : option.names)
                if (with_short || name.rfind("--", 0) == 0) names.push_back(name);
    return names;
}

}  // namespace

CommandSpec describe(const CLI::App& app) {
    return describe_command(app);
}

Completion complete(const CommandSpec& root, std::vector<std::string> words, std::size_t current,
                    const NameLoader& names) {
    join_equals(words, current);
    current = std::min(current, words.size());
    std::vector<const CommandSpec*> path{&root};
    std::string config_path;
    const OptionSpec* pending = nullptr;  // an option whose value is the next word
    std::size_t positional = 0;
    bool options_ended = false;  // after "--"
    for (std::size_t i = 1; i < current; ++i) {
        const auto& word = words[i];
        if (pending) {
            if (is_config_option(*pending)) config_path = word;
            pending = nullptr;
        } else if (!options_ended && word == "--") {
            options_ended = true;
        } else if (!options_ended && word.size() > 1 && word[0] == '-') {
            const auto equals = word.find('=');
            const auto* option = find_option(path, word.substr(0, equals));
            if (!option || option->value == ValueKind::kNone) continue;
            if (equals == std::string::npos)
                pending = option;
            else if (is_config_option(*option))
                config_path = word.substr(equals + 1);
        } else if (const auto* sub = options_ended ? nullptr : find_command(*path.back(), word)) {
            path.push_back(sub);
            positional = 0;
        } else {
            ++positional;
        }
    }

    const std::string cur = current < words.size() ? words[current] : std::string();
    if (pending) return values(*pending, cur, config_path, names);
    if (options_ended) return {};
    const auto& command = *path.back();
    if (cur.rfind('-', 0) == 0) {
        if (const auto equals = cur.find('='); equals != std::string::npos) {
            const auto* option = find_option(path, cur.substr(0, equals));
            return option ? values(*option, cur.substr(equals + 1), config_path, names) : Completion{};
        }
        Completion out;
        out.words = option_names(path, cur.rfind("--", 0) != 0);
        keep_prefixed(out.words, cur);
        return out;
    }
    Completion out;
    if (positional == 0)
        for (const auto& sub : command.commands) out.words.push_back(sub.name);
    const auto& positionals = command.positionals;
    if (!positionals.empty() && (positional < positionals.size() || command.last_positional_repeats)) {
        const auto& next = positionals[std::min(positional, positionals.size() - 1)];
        auto given = values(next, cur, config_path, names);
        if (given.kind != Completion::Kind::kWords) return given;
        out.words.insert(out.words.end(), given.words.begin(), given.words.end());
    }
    // A verb with nothing left to name: its flags, so <Tab> after `pdctl stop ` is not silent.
    if (out.words.empty() && cur.empty() && path.size() > 1) out.words = option_names(path, false);
    keep_prefixed(out.words, cur);
    return out;
}

std::string to_protocol(const Completion& completion) {
    std::string text = completion.kind == Completion::Kind::kFiles  ? "files\n"
                       : completion.kind == Completion::Kind::kDirs ? "dirs\n"
                                                                    : "words\n";
    for (const auto& word : completion.words) text += word + "\n";
    return text;
}

}  // namespace pdctl::cli
