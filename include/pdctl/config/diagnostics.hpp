#pragma once
// Config errors are collected, never thrown one at a time: an operator fixes all of them in one pass.

#include <stdexcept>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"

namespace pdctl::config {

struct Diagnostic {
    SourceLocation where;
    std::string key_path;  // e.g. roles.prefill.ssh_port
    std::string message;
    std::string hint;  // e.g. "did you mean `ssh_port`?"; may be empty

    // "file:line:col: error: roles.prefill.prot: unknown key (hint: did you mean `port`?)"
    std::string format() const;
};

class Diagnostics {
  public:
    void error(SourceLocation where, std::string key_path, std::string message, std::string hint = {});
    bool empty() const { return items_.empty(); }
    const std::vector<Diagnostic>& items() const { return items_; }

  private:
    std::vector<Diagnostic> items_;
};

// Thrown once, at the end of loading, carrying every diagnostic that was found.
class ConfigError : public std::runtime_error {
  public:
    explicit ConfigError(std::vector<Diagnostic> diagnostics);
    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  private:
    std::vector<Diagnostic> diagnostics_;
};

// "did you mean `x`?" for the closest candidate within a small edit distance, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pdctl::config
