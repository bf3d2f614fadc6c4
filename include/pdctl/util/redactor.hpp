#pragma once
// Secrets must never reach a log line, a plan, an error or JSON output. Every text that leaves
// pdctl for a human or a file passes through a Redactor that knows the secret values.

#include <string>
#include <string_view>
#include <vector>

namespace pdctl::util {

inline constexpr const char* kRedacted = "[REDACTED]";

class Redactor {
  public:
    // Values shorter than 4 characters are not tracked: they would redact unrelated text.
    void add_secret(std::string value);
    // Every secret `other` knows (a sweep prints what several configs' secrets may be in).
    void add_secrets_of(const Redactor& other);
    std::string redact(std::string_view text) const;
    bool empty() const { return secrets_.empty(); }

  private:
    std::vector<std::string> secrets_;  // longest first, so a secret containing another is replaced whole
};

}  // namespace pdctl::util
