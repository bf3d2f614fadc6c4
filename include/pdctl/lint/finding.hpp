#pragma once
// One problem found by `pdctl doctor`: what, where, how bad, how to fix it, and where the rule comes
// from. Pure data; rules produce findings, report/doctor_report_view.hpp prints them.

#include <string>

#include "pdctl/config/model.hpp"

namespace pdctl::lint {

// error blocks `start`; warn is printed and does not; info is context (e.g. the simulated cluster
// on loopback, where a production error is expected and harmless).
enum class Severity { Error, Warn, Info };

std::string to_string(Severity severity);  // "error" | "warn" | "info"

struct Finding {
    std::string id;  // stable rule ID, e.g. PD001 (docs/doctor.md)
    Severity severity = Severity::Error;
    std::string role;                 // the role concerned ("" = the cluster as a whole)
    std::string node;                 // the node concerned, when there is one
    config::SourceLocation location;  // the file (and line) of the offending value; file "" = unknown
    std::string message;              // what was found; never contains a secret value
    std::string fix;                  // what to do about it
    std::string reference;            // "docs/doctor.md#pd001", then upstream URLs, joined by " · "
};

// "file:line:col", "file" when no position is known, "" when no file is known.
std::string format_location(const config::SourceLocation& location);

}  // namespace pdctl::lint
