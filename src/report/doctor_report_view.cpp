#include "pdctl/report/doctor_report_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/lint/folded_findings.hpp"
#include "pdctl/util/name_ranges.hpp"

namespace pdctl::report {

using lint::Finding;
using lint::format_location;
using lint::Report;
using lint::Severity;

namespace {

const char* label(Severity severity) {
    switch (severity) {
        case Severity::Error:
            return "ERROR";
        case Severity::Warn:
            return "WARN";
        case Severity::Info:
            return "INFO";
    }
    return "ERROR";
}

// The file:line:col to open; without one, the node or the role the finding is about.
std::string where(const Finding& finding) {
    auto text = format_location(finding.location);
    if (text.empty()) text = finding.node;
    if (text.empty()) text = finding.role;
    return text;
}

std::string seconds(long long ms) {
    return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
}

std::string plural(int count, const char* word) {
    return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

// One line per acknowledged rule: what it held back, and the site's reason, so the decision stays
// visible without the findings' noise.
std::string render_acknowledged(const Report& report) {
    std::string out;
    for (const auto& held : report.acknowledged) {
        const auto& rule = held.rule;
        const auto what = held.findings == 0
                              ? std::string("found nothing this time (a stale entry?)")
                              : plural(held.findings, "finding") + " held back" +
                                    (held.errors > 0 ? fmt::format(" ({} would block a start)", held.errors)
                                                     : std::string());
        out += fmt::format("{:<6} {} {}  acknowledged, {}\n", "ACK", rule.rule, format_location(rule.where),
                           what);
        out += fmt::format("{:13}reason: {}\n", "", rule.reason);
    }
    return out;
}

// What one entry of the report shows: a finding, or several folded into one.
struct Entry {
    Severity severity = Severity::Error;
    std::string id, where, message, fix, reference;
};

Entry entry_of(const Finding& finding) {
    return {finding.severity, finding.id, where(finding), finding.message, finding.fix, finding.reference};
}

// The findings in report order; with `fold`, those without a file:line that share a rule, a
// severity and a fix are folded at the place of the first of them.
std::vector<Entry> entries(const std::vector<Finding>& findings, bool fold) {
    std::vector<std::vector<Finding>> buckets;
    std::vector<std::pair<bool, std::size_t>> order;  // (a bucket, its index) or (a finding, its index)
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const auto& finding = findings[i];
        if (!fold || !format_location(finding.location).empty()) {
            order.emplace_back(false, i);
            continue;
        }
        const auto bucket = std::find_if(buckets.begin(), buckets.end(), [&](const auto& b) {
            const auto& first = b.front();
            return first.severity == finding.severity && first.id == finding.id && first.fix == finding.fix &&
                   first.reference == finding.reference;
        });
        if (bucket != buckets.end()) {
            bucket->push_back(finding);
            continue;
        }
        order.emplace_back(true, buckets.size());
        buckets.push_back({finding});
    }
    std::vector<Entry> out;
    for (const auto& [is_bucket, index] : order) {
        if (!is_bucket) {
            out.push_back(entry_of(findings[index]));
            continue;
        }
        const auto& bucket = buckets[index];
        for (const auto& folded : lint::fold_findings(bucket)) {
            auto entry = entry_of(bucket.front());
            entry.where = folded.nodes.empty() ? entry.where : util::name_ranges(folded.nodes);
            entry.message = folded.message;
            out.push_back(std::move(entry));
        }
    }
    return out;
}

int acknowledged_findings(const Report& report) {
    int count = 0;
    for (const auto& held : report.acknowledged) count += held.findings;
    return count;
}

}  // namespace

std::string render_doctor_report(const Report& report, const DoctorReportOptions& options) {
    std::string out;
    int shown = 0;
    for (const auto& finding : entries(report.findings, options.fold)) {
        if (finding.severity == Severity::Info && !options.show_info) continue;
        ++shown;
        out += fmt::format("{:<6} {} {}  {}\n", label(finding.severity), finding.id, finding.where,
                           finding.message);
        out += fmt::format("{:13}fix: {}", "", finding.fix);
        if (!finding.reference.empty()) out += fmt::format(" ({})", finding.reference);
        out += "\n";
    }
    out += render_acknowledged(report);
    if (!options.show_summary) return out;
    if (!report.live) {
        if (shown == 0 && acknowledged_findings(report) == 0) {
            out +=
                fmt::format("{:<6} all {} static rules passed (no node touched)\n", "OK", report.rules_run);
            return out;
        }
        if (report.rules_without_findings > 0)
            out += fmt::format("{:<6} {} other static rules found nothing (no node touched)\n", "OK",
                               report.rules_without_findings);
    } else {
        const auto& live = *report.live;
        if (report.rules_without_findings == report.rules_run)
            out += fmt::format("{:<6} all {} static rules passed\n", "OK", report.rules_run);
        else if (report.rules_without_findings > 0)
            out += fmt::format("{:<6} {} other static rules found nothing\n", "OK",
                               report.rules_without_findings);
        out += fmt::format("{:<6} {}{} checks on {} passed ({})\n", "OK",
                           live.checks_without_findings == live.checks ? "all " : "",
                           live.checks_without_findings == live.checks
                               ? std::to_string(live.checks)
                               : std::to_string(live.checks_without_findings) + " other",
                           plural(live.nodes, "node"), seconds(live.elapsed_ms));
        if (shown == 0) return out;
    }
    out += plural(report.errors(), "error") + ", " + plural(report.warnings(), "warning");
    if (options.show_info) out += ", " + std::to_string(report.count(Severity::Info)) + " info";
    out += "\n";
    return out;
}

nlohmann::json doctor_report_json(const Report& report) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : report.findings) {
        const auto location = format_location(f.location);
        findings.push_back(
            {{"id", f.id},
             {"severity", to_string(f.severity)},
             {"role", f.role.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.role)},
             {"node", f.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.node)},
             {"location", location.empty() ? nlohmann::json(nullptr) : nlohmann::json(location)},
             {"message", f.message},
             {"fix", f.fix},
             {"reference", f.reference}});
    }
    nlohmann::json live = nullptr;
    if (report.live)
        live = {{"nodes", report.live->nodes},
                {"checks", report.live->checks},
                {"checks_without_findings", report.live->checks_without_findings},
                {"unreachable", report.live->unreachable},
                {"elapsed_ms", report.live->elapsed_ms}};
    nlohmann::json acknowledged = nlohmann::json::array();
    for (const auto& held : report.acknowledged)
        acknowledged.push_back({{"rule", held.rule.rule},
                                {"reason", held.rule.reason},
                                {"location", format_location(held.rule.where)},
                                {"findings", held.findings},
                                {"errors", held.errors}});
    return {{"findings", findings},
            {"errors", report.errors()},
            {"warnings", report.warnings()},
            {"infos", report.count(Severity::Info)},
            {"rules", report.rules_run},
            {"acknowledged", acknowledged},
            {"live", live}};
}

namespace {

std::string finding_text(const lint::Finding& finding) {
    const auto where = lint::format_location(finding.location);
    std::string text = finding.id + (where.empty() ? "" : " " + where) +
                       (finding.node.empty() ? "" : " on " + finding.node) + ": " + finding.message + "\n";
    if (!finding.fix.empty()) text += "  fix: " + finding.fix + "\n";
    return text;
}

// The case failed by the errors among `findings`; the rest is its output.
JunitCase case_of(std::string classname, std::string name,
                  const std::vector<const lint::Finding*>& findings) {
    JunitCase test{std::move(classname), std::move(name), 0, std::nullopt, "", std::nullopt, ""};
    std::size_t errors = 0;
    std::string first;
    for (const auto* finding : findings) {
        if (finding->severity == lint::Severity::Error) {
            if (errors++ == 0) first = finding->id + ": " + finding->message;
            test.failure_text += finding_text(*finding);
        } else {
            test.output += finding_text(*finding);
        }
    }
    if (errors > 0)
        test.failure = errors == 1 ? first : fmt::format("{} (and {} more errors)", first, errors - 1);
    return test;
}

}  // namespace

JunitSuite doctor_to_junit(const lint::Report& report, const std::vector<std::string>& nodes,
                           const std::string& timestamp, double seconds) {
    JunitSuite suite{"pdctl doctor", timestamp, "", seconds, {}, ""};
    std::vector<std::string> static_ids;
    for (const auto& rule : lint::static_rules()) {
        static_ids.emplace_back(rule.id);
        std::vector<const lint::Finding*> mine;
        for (const auto& finding : report.findings)
            if (finding.id == rule.id) mine.push_back(&finding);
        suite.cases.push_back(
            case_of("pdctl.doctor.static", std::string(rule.id) + " " + std::string(rule.title), mine));
    }
    if (!report.live) return suite;
    const auto is_static = [&](const lint::Finding& finding) {
        return std::find(static_ids.begin(), static_ids.end(), finding.id) != static_ids.end();
    };
    for (const auto& node : nodes) {
        std::vector<const lint::Finding*> mine;
        for (const auto& finding : report.findings)
            if (!is_static(finding) && finding.node == node) mine.push_back(&finding);
        suite.cases.push_back(case_of("pdctl.doctor.live", "checks on " + node, mine));
    }
    std::vector<const lint::Finding*> across;
    for (const auto& finding : report.findings)
        if (!is_static(finding) && finding.node.empty()) across.push_back(&finding);
    suite.cases.push_back(case_of("pdctl.doctor.live", "checks across nodes", across));
    return suite;
}

}  // namespace pdctl::report
