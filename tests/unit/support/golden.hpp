#pragma once
// Golden files for the unit tests: compare an output with its pinned copy, or rewrite the copy when
// PDCTL_UPDATE_GOLDEN is set (after an intended change).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pdctl::testing {

inline std::string read_text_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// `what` names the output in the failure: "plan changed: <file> ...".
inline void expect_golden(const std::filesystem::path& golden, const std::string& actual,
                          const std::string& what) {
    if (std::getenv("PDCTL_UPDATE_GOLDEN")) {
        std::ofstream(golden) << actual;
        return;
    }
    ASSERT_TRUE(std::filesystem::exists(golden)) << golden << " is missing; run with PDCTL_UPDATE_GOLDEN=1";
    EXPECT_EQ(read_text_file(golden), actual)
        << what << " changed: " << golden << " (PDCTL_UPDATE_GOLDEN=1 rewrites it if the change is intended)";
}

}  // namespace pdctl::testing
