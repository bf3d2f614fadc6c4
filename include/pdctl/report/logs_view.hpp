#pragma once
// `pdctl logs`: the words around the units' own log lines. The lines themselves are printed as the
// node gives them (redacted); with several units each line says whose it is.

#include <cstdio>
#include <string>
#include <vector>

#include "pdctl/ops/log_bundle.hpp"
#include "pdctl/ops/logs.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

// "[n3 rank2] " before each line when several units are shown, so interleaved lines stay readable.
std::string log_line_prefix(const std::string& node, int rank);

// Printed in the stream (with the unit's prefix) when --follow finds the log shorter than its
// cursor: the unit was restarted and its new log begins here.
std::string log_restarted_line(const std::string& prefix);

// To stderr: a node whose log cannot be read, once, and once again when it can be read again
// (an empty trouble).
std::string log_trouble_line(const std::string& node, const std::string& unit, const std::string& trouble);
std::string log_unreachable_line(const std::string& node, const std::string& transport_error);

// The lines on stdout (redacted, prefixed when several units are shown), the troubles on stderr.
class LogPrinter : public ops::LogSink {
  public:
    explicit LogPrinter(const util::Redactor& redactor) : redactor_(redactor) {}
    void begin(const std::vector<ops::LogTarget>& targets) override;
    void line(std::size_t target, const std::string& text) override;
    void unreachable(std::size_t target, const std::string& transport_error) override;
    void trouble(std::size_t target, const std::string& trouble) override;
    void restarted(std::size_t target) override;
    void flush() override { std::fflush(stdout); }

  private:
    const util::Redactor& redactor_;
    std::vector<ops::LogTarget> targets_;
    std::vector<std::string> prefixes_;
};

// What `logs --bundle` prints once the archive is written: its size, and what it lacks and why.
std::string render_bundle_written(const std::string& path, const ops::WrittenBundle& written);

}  // namespace pdctl::report
