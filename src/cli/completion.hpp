#pragma once
// Shell completion, the pure part: the verbs and flags as CLI11 knows them (describe), and the words
// that may come next on a command line (complete). What an option's value may be comes from its
// type name, the same one `--help` shows: FILE and DIR are paths, ROLE, GROUP and NODE are names from
// the cluster file in use, and `{a,b}` (CLI11's IsMember) or `a|b` are the choices.

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace pdctl::cli {

enum class ValueKind { kNone, kFree, kFile, kDir, kRole, kGroup, kRoleOrGroup, kNode, kChoice };

struct OptionSpec {
    std::vector<std::string> names;  // "-c", "--config"
    ValueKind value = ValueKind::kNone;
    std::vector<std::string> choices;  // for kChoice
};

struct CommandSpec {
    std::string name;
    std::vector<OptionSpec> options;      // those that start with '-'
    std::vector<OptionSpec> positionals;  // in order; a repeatable last one takes every word left
    std::vector<CommandSpec> commands;    // subcommands (verbs; `lock status`)
    bool last_positional_repeats = false;
};

// The app's verbs and flags, without hidden subcommands (empty group).
CommandSpec describe(const CLI::App& app);

// The names a value may take, read from the cluster file only when a word needs them.
struct ClusterNames {
    std::vector<std::string> roles;   // the `roles:` keys
    std::vector<std::string> groups;  // every group's name (a role of one group is its own group)
    std::vector<std::string> nodes;
};
// `config_path` is the -c/--config value on the line, empty when there is none.
using NameLoader = std::function<ClusterNames(const std::string& config_path)>;

struct Completion {
    enum class Kind { kWords, kFiles, kDirs } kind = Kind::kWords;
    std::vector<std::string> words;  // the candidates that start with the current word (kWords)
};

// `words` as the shell split the line, the program first; `current` indexes the word the cursor is in
// (== words.size() for a new, empty one). A value written as --opt=VALUE completes VALUE alone: bash
// replaces only what follows the '='. Bash's own split ("--opt", "=", "VALUE") is joined first.
Completion complete(const CommandSpec& root, std::vector<std::string> words, std::size_t current,
                    const NameLoader& names);

// What the shell reads from `pdctl __complete`: "files", "dirs" or "words" on the first line, then one
// candidate per line.
std::string to_protocol(const Completion& completion);

}  // namespace pdctl::cli
