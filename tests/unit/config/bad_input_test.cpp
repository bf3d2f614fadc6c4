// Bad input never crashes the loader: every broken config is one ConfigError that says what is wrong
// and where (file:line:col). The second half is a deterministic mini-fuzz over the shipped local profile.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "config_test_util.hpp"
#include "unit/support/build_paths.hpp"
#include "unit/support/sanitized_build.hpp"

namespace pdctl::config {
namespace {

using ::testing::HasSubstr;
using testing::kMinimalCluster;
using testing::load_error;
using ::testing::MatchesRegex;

std::string with_role_lines(const std::string& role, const std::string& lines) {
    std::string yaml = kMinimalCluster;
    const std::string header = "  " + role + ":\n";
    yaml.insert(yaml.find(header) + header.size(), lines);
    return yaml;
}

TEST(BadConfigInput, UnknownKeyNamesTheKeyItsPlaceAndTheNearestKnownOne) {
    const auto error = load_error(with_role_lines("prefill", "    prot: 30000\n"));
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:12:5: error: roles.prefill.prot: unknown key"));
    EXPECT_THAT(error, HasSubstr("did you mean `port`?"));
}

TEST(BadConfigInput, DuplicateNodeIsReportedAtTheSecondDefinition) {
    std::string yaml = kMinimalCluster;
    yaml.insert(yaml.find("roles:"), "  - {name: n1, address: 10.0.0.3}\n");
    const auto error = load_error(yaml);
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:7:"));
    EXPECT_THAT(error, HasSubstr("duplicate"));
}

TEST(BadConfigInput, AnEmptyComputeAddressIsAnErrorAtItsValue) {
    std::string yaml = kMinimalCluster;
    yaml.insert(yaml.find("roles:"), "  - {name: n9, address: 10.0.0.9, compute_address: ''}\n");
    const auto error = load_error(yaml);
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:7:52: error: nodes[2].compute_address: must not be empty"));
    EXPECT_THAT(error, HasSubstr("leave it out when the node has one address"));
}

TEST(BadConfigInput, RoleWithoutNodesIsAnError) {
    std::string yaml = kMinimalCluster;
    const std::string nodes = "    nodes: [n2]\n";
    yaml.replace(yaml.rfind(nodes), nodes.size(), "    nodes: []\n");
    const auto error = load_error(yaml);
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:21:12: error: roles.router.nodes: needs at least one node"));
    EXPECT_THAT(error, HasSubstr("roles.router.nodes"));
}

TEST(BadConfigInput, EmptyRolesMapIsAnError) {
    std::string yaml = kMinimalCluster;
    yaml = yaml.substr(0, yaml.find("roles:")) + "roles: {}\n";
    const auto error = load_error(yaml);
    EXPECT_THAT(error, MatchesRegex("/c/pdctl\\.yaml:7:8: error: roles: needs at least one role(.|\n)*"));
}

TEST(BadConfigInput, DependencyCycleNamesTheRolesInTheCycle) {
    std::string yaml = with_role_lines("prefill", "    depends_on: [decode]\n");
    const auto error = load_error(yaml);
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:11:3: error: roles.prefill.depends_on: dependency cycle: "
                                 "prefill -> decode -> prefill"));
}

TEST(BadConfigInput, PortsOutOfRange) {
    for (const std::string port : {"0", "65536", "-1", "99999999999999999999", "8080.5", "http"}) {
        SCOPED_TRACE(port);
        const auto error = load_error(with_role_lines("prefill", "    port: " + port + "\n"));
        EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:12:11: error: roles.prefill.port"));
    }
}

TEST(BadConfigInput, TruncatedYamlPointsAtTheBreak) {
    const auto error = load_error("cluster: x\nnodes:\n  - {name: n1, addr");
    EXPECT_THAT(error, MatchesRegex("(.|\n)*/c/pdctl\\.yaml:3:[0-9]+: error:(.|\n)*"));
}

TEST(BadConfigInput, BinaryGarbageIsAConfigError) {
    std::string garbage =
        "\x7f"
        "ELF\x02\x01\x01";
    garbage += std::string("\0\0\xff\xfe\x89PNG\r\n\x1a\n", 12);  // 12 bytes: NULs are data here
    const auto error = load_error(garbage);
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml"));
}

TEST(BadConfigInput, ProfileWithBinaryGarbageIsAConfigErrorWithItsLocation) {
    std::string yaml = with_role_lines("prefill", "    profile: prefill.env\n");
    const auto error = load_error(yaml, {{"/c/prefill.env", std::string("A=1\nB\x01\xff=2\n", 11)}});
    EXPECT_THAT(error, HasSubstr("/c/prefill.env:2:1: error:"));
}

// ---- mini-fuzz ----------------------------------------------------------------------------------

// The shipped local profile, in memory under its real names.
std::map<std::string, std::string> local_profile() {
    std::map<std::string, std::string> files;
    const std::filesystem::path dir =
        std::filesystem::path(pdctl::testing::source_dir()) / "profiles" / "local";
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(entry.path(), std::ios::binary);
        files["/p/" + entry.path().filename().string()] = {std::istreambuf_iterator<char>(in), {}};
    }
    return files;
}

// Loads or throws ConfigError: anything else (another exception, a crash) fails the test, and a hang
// runs into CTest's timeout. No wall-clock bound here: speed is for benchmarks, and the same cases take
// 3x longer under ASan.
void expect_loads_or_config_error(const std::map<std::string, std::string>& files, const std::string& what) {
    try {
        load_cluster("/p/pdctl.yaml", MemoryFileSource(files));
    } catch (const ConfigError& error) {
        EXPECT_NE(std::string(error.what()).find("/p/"), std::string::npos) << what << ": no file named";
    } catch (const std::exception& error) {
        ADD_FAILURE() << what << ": " << typeid(error).name() << ": " << error.what();
    } catch (...) {
        ADD_FAILURE() << what << ": a non-std exception";
    }
}

TEST(ConfigFuzz, TruncationAtEveryByteOfTheClusterFileAndAProfile) {
    const auto original = local_profile();
    for (const std::string name : {"/p/pdctl.yaml", "/p/prefill.env", "/p/config.env"}) {
        const std::string text = original.at(name);
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
            auto files = original;
            files[name] = text.substr(0, cut);
            expect_loads_or_config_error(files, name + " cut at " + std::to_string(cut));
            if (::testing::Test::HasFailure()) return;
        }
    }
}

TEST(ConfigFuzz, SeededByteFlipsInsertionsAndDeletions) {
    const auto original = local_profile();
    std::mt19937_64 rng(4242);
    const std::vector<std::string> names = {"/p/pdctl.yaml", "/p/prefill.env", "/p/decode.env",
                                            "/p/config.env"};
    for (int round = 0; round < 3000; ++round) {
        auto files = original;
        const std::string& name = names[rng() % names.size()];
        std::string& text = files[name];
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !text.empty(); ++e) {
            const std::size_t at = rng() % text.size();
            switch (rng() % 4) {
                case 0:
                    text[at] = static_cast<char>(rng() % 256);
                    break;
                case 1:
                    text.erase(at, 1 + rng() % 16);
                    break;
                case 2:
                    text.insert(at, std::string(1, "{}[]:-,'\"#&*!|>%@`\n\t $"[rng() % 23]));
                    break;
                default:
                    text.insert(at, text.substr(rng() % text.size(), rng() % 64));
                    break;
            }
        }
        expect_loads_or_config_error(files, name + " round " + std::to_string(round) + " (seed 4242)");
        if (::testing::Test::HasFailure()) return;
    }
}

TEST(ConfigFuzz, BinaryGarbageAndDeepNesting) {
    std::mt19937_64 rng(99);
    auto files = local_profile();
    for (int round = 0; round < 200; ++round) {
        std::string garbage(1 + rng() % 4096, '\0');
        for (auto& c : garbage) c = static_cast<char>(rng() % 256);
        files["/p/pdctl.yaml"] = garbage;
        expect_loads_or_config_error(files, "garbage round " + std::to_string(round));
        files["/p/pdctl.yaml"] = local_profile().at("/p/pdctl.yaml");
        files["/p/prefill.env"] = garbage;
        expect_loads_or_config_error(files, "garbage prefill.env round " + std::to_string(round));
        files["/p/prefill.env"] = local_profile().at("/p/prefill.env");
    }
    // Deeply nested flow collections: a recursive parser must not overflow the stack.
    files["/p/pdctl.yaml"] = "cluster: " + std::string(100000, '[');
    expect_loads_or_config_error(files, "100000 nested [");
    files["/p/pdctl.yaml"] = "cluster:\n" + [] {
        std::string deep;
        for (int i = 0; i < 20000; ++i) deep += std::string(static_cast<std::size_t>(i % 200), ' ') + "- \n";
        return deep;
    }();
    expect_loads_or_config_error(files, "deep block sequence");
}

TEST(ConfigFuzz, TwentyMegabyteFilesAreRejectedOrLoadedQuickly) {
    // 20 MB and 500000 keys; a tenth of that under the sanitizers (see sanitized_build.hpp).
    const std::size_t scale = pdctl::testing::kSanitizedBuild ? 10 : 1;
    const std::size_t megabytes = 20 / scale;
    const int keys = static_cast<int>(500000 / scale);
    auto files = local_profile();
    files["/p/pdctl.yaml"] += "# " + std::string(megabytes << 20, 'x') + "\n";
    expect_loads_or_config_error(files, std::to_string(megabytes) + " MB comment in pdctl.yaml");
    files = local_profile();
    files["/p/prefill.env"] += "X=" + std::string(megabytes << 20, 'y') + "\n";
    expect_loads_or_config_error(files, std::to_string(megabytes) + " MB value in prefill.env");
    files = local_profile();
    std::string many;
    for (int i = 0; i < keys; ++i) many += "K" + std::to_string(i) + "=v\n";
    files["/p/config.env"] = many;
    expect_loads_or_config_error(files, std::to_string(keys) + " keys in config.env");
}

}  // namespace
}  // namespace pdctl::config
