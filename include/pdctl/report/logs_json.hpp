#pragma once
// `pdctl --json logs`: JSON Lines on stdout, one object per event, so a script can follow several units
// without parsing the text view's "[n3 rank2] " prefixes:
//   {"event":"line","role":"decode","node":"n5","rank":0,"unit":"pd-x-decode-0","text":"..."}
// and "restarted" (the unit's log starts over), "unreachable" and "trouble" (with "error") for the
// same unit keys. Lines are redacted as in the text view.

#include <string>
#include <vector>

#include "pdctl/ops/logs.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

class LogJsonPrinter : public ops::LogSink {
  public:
    explicit LogJsonPrinter(const util::Redactor& redactor) : redactor_(redactor) {}
    void begin(const std::vector<ops::LogTarget>& targets) override { targets_ = targets; }
    void line(std::size_t target, const std::string& text) override;
    void unreachable(std::size_t target, const std::string& transport_error) override;
    void trouble(std::size_t target, const std::string& trouble) override;
    void restarted(std::size_t target) override;
    void flush() override;

  private:
    void emit(std::size_t target, const std::string& event, const std::string& key, const std::string& value);
    const util::Redactor& redactor_;
    std::vector<ops::LogTarget> targets_;
};

}  // namespace pdctl::report
