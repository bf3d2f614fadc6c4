#pragma once
// A small command-line tokenizer shared by the three simulated programs. Each program gives a
// table of the flags it knows; everything else is accepted and ignored, because pdctl plans may
// pass flags of newer upstream versions that pdsim has no reason to model.

#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pdsim {

// A command-line mistake: reported on stderr with exit status 2, as argparse and gflags do.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Arity {
    kSwitch,    // store_true: never takes the next token ("--trust-remote-code")
    kOne,       // exactly one value ("--port 30000" or "--port=30000")
    kOneOrTwo,  // the router's "--prefill URL [BOOTSTRAP_PORT]": a 2nd value if it is not a flag
};

struct FlagSpec {
    std::string_view name;  // with the leading dashes, e.g. "--tp-size"
    Arity arity;
    std::string_view canonical = {};  // for aliases ("--tp" -> "--tp-size"); empty = itself
};

enum class Dialect {
    kArgparse,  // "--flag value", "--flag=value"
    kGflags,    // also "-flag", "--noflag" for switches, "--flag=true|false"
};

class ParsedArgs {
  public:
    // Each occurrence of a flag, in order, with its values (empty for a switch that was given).
    using Occurrences = std::vector<std::vector<std::string>>;

    bool has(std::string_view name) const { return values_.count(std::string(name)) != 0; }
    const Occurrences& all(std::string_view name) const;
    // The last occurrence's first value, as argparse keeps the last of repeated flags.
    std::optional<std::string> last(std::string_view name) const;
    std::string str(std::string_view name, std::string_view fallback) const;
    int integer(std::string_view name, int fallback) const;    // UsageError if not an integer
    bool boolean(std::string_view name, bool fallback) const;  // switch given, or =true/false

    const std::vector<std::string>& ignored() const { return ignored_; }

  private:
    friend ParsedArgs parse_flags(std::span<const std::string>, std::span<const FlagSpec>, Dialect);
    std::map<std::string, Occurrences, std::less<>> values_;
    std::vector<std::string> ignored_;  // unknown flags and stray tokens, for one debug line
};

ParsedArgs parse_flags(std::span<const std::string> argv, std::span<const FlagSpec> table, Dialect dialect);

}  // namespace pdsim
