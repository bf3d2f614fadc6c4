#pragma once
// A JUnit file against the schema CI systems read (tests/junit/junit.xsd), checked with xmllint.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

// xmllint's verdict on `file` against the schema: "" when it validates.
inline std::string schema_errors(const std::filesystem::path& file) {
    const std::string schema = std::string(pdctl::testing::source_dir()) + "/tests/junit/junit.xsd";
    if (std::system("command -v xmllint >/dev/null 2>&1") != 0)
        return "xmllint is not installed (libxml2-utils)";
    const auto log = file.string() + ".xmllint";
    const int status = std::system(
        ("xmllint --noout --schema '" + schema + "' '" + file.string() + "' >'" + log + "' 2>&1").c_str());
    return status == 0 ? "" : read_text(log);
}

}  // namespace pdctl::testing
