#pragma once
// docs/doctor.md as the reference tests read it: the anchors of its headings and the sections named
// by an ID alone ("### PD001", "### NET003"), and the form every printed reference must have.

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

// The separator between a reference's parts: " · ".
inline constexpr std::string_view kReferenceSeparator = " \u00b7 ";
inline constexpr std::string_view kDoctorDocPrefix = "docs/doctor.md#";

// GitHub's anchor for a heading: lower case; letters, digits, '-' and '_' kept; spaces become '-'.
inline std::string heading_anchor(std::string_view heading) {
    std::string anchor;
    for (const char c : heading) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '_')
            anchor += static_cast<char>(std::tolower(u));
        else if (c == ' ')
            anchor += '-';
    }
    return anchor;
}

struct DoctorDoc {
    std::set<std::string> anchors;      // of every heading outside code blocks
    std::set<std::string> id_headings;  // headings that are an ID alone, as written ("PD001")
};

inline bool is_check_id(std::string_view text) {
    std::size_t letters = 0;
    while (letters < text.size() && std::isupper(static_cast<unsigned char>(text[letters]))) ++letters;
    if (letters == 0 || text.size() != letters + 3) return false;
    for (std::size_t i = letters; i < text.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    return true;
}

inline DoctorDoc read_doctor_doc() {
    const auto path = std::filesystem::path(pdctl::testing::source_dir()) / "docs" / "doctor.md";
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot read " << path;
    DoctorDoc doc;
    bool in_code = false;
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("```")) in_code = !in_code;
        if (in_code || !line.starts_with("#")) continue;
        const auto text_at = line.find_first_not_of('#');
        if (text_at == std::string::npos || line[text_at] != ' ') continue;
        const auto text = line.substr(text_at + 1);
        doc.anchors.insert(heading_anchor(text));
        if (is_check_id(text)) doc.id_headings.insert(text);
    }
    return doc;
}

inline std::vector<std::string> reference_parts(std::string_view reference) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto end = reference.find(kReferenceSeparator, start);
        parts.emplace_back(reference.substr(start, end == std::string_view::npos ? end : end - start));
        if (end == std::string_view::npos) return parts;
        start = end + kReferenceSeparator.size();
    }
}

// What is wrong with the reference of rule or check `id` ("" = nothing): it is
// "docs/doctor.md#<id in lower case>", an anchor the doc has, then only https URLs, joined by " · ".
inline std::string reference_problem(std::string_view id, std::string_view reference, const DoctorDoc& doc) {
    const auto parts = reference_parts(reference);
    const auto anchor = heading_anchor(id);
    if (parts.front() != std::string(kDoctorDocPrefix) + anchor)
        return "does not start with " + std::string(kDoctorDocPrefix) + anchor;
    if (!doc.anchors.contains(anchor)) return "docs/doctor.md has no section #" + anchor;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const auto& url = parts[i];
        if (!url.starts_with("https://") || url.size() <= 8) return "part '" + url + "' is not an https URL";
        for (const char c : url)
            if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == ';' || c == ',')
                return "URL '" + url + "' holds a space or punctuation";
    }
    return "";
}

}  // namespace pdctl::testing
