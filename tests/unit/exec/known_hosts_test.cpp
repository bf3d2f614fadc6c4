#include "pdctl/exec/known_hosts.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pdctl/exec/ssh_key_file.hpp"

namespace pdctl::exec {
namespace {

std::string run(const std::string& command) {
    std::string out;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[4096];
        std::size_t n;
        while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
        ::pclose(pipe);
    }
    return out;
}

std::string read(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

class KeyFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        if (run("command -v ssh-keygen").empty())
            GTEST_SKIP() << "ssh-keygen (openssh-client) is not installed";
        dir = std::filesystem::temp_directory_path() / ("pdctl-keys-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
    }
    void TearDown() override {
        if (!dir.empty()) std::filesystem::remove_all(dir);
    }
    std::string keygen(const std::string& name, const std::string& args) {
        const auto path = (dir / name).string();
        run("ssh-keygen -q " + args + " -C test -f " + path + " </dev/null >/dev/null 2>&1");
        return path;
    }
    std::filesystem::path dir;
};

TEST(Base64, RoundTripsAndMatchesTheStandard) {
    EXPECT_EQ(base64_encode(""), "");
    EXPECT_EQ(base64_encode("f"), "Zg==");
    EXPECT_EQ(base64_encode("fo"), "Zm8=");
    EXPECT_EQ(base64_encode("foo"), "Zm9v");
    EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
    EXPECT_EQ(base64_decode("Zm9vYmE="), "fooba");
    EXPECT_EQ(base64_decode("Zm9v\nYmFy"), "foobar");
    EXPECT_EQ(base64_decode("Zg"), "f");  // padding optional
    EXPECT_FALSE(base64_decode("Zm9v!"));
    std::string all;
    for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
    EXPECT_EQ(base64_decode(base64_encode(all)), all);
}

TEST(KnownHosts, NamesAndLinesUseOpenSshFormat) {
    EXPECT_EQ(known_hosts_name("10.0.0.1", 22), "10.0.0.1");
    EXPECT_EQ(known_hosts_name("10.0.0.1", 2222), "[10.0.0.1]:2222");
    EXPECT_EQ(known_hosts_line("h", 2222, "ssh-ed25519", "foo"), "[h]:2222 ssh-ed25519 Zm9v\n");
}

TEST(KnownHosts, AppendCreatesPrivateFileAndEndsThePreviousLine) {
    const auto dir = std::filesystem::temp_directory_path() / ("pdctl-kh-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const auto file = dir / "sub" / "known_hosts";
    EXPECT_EQ(append_known_host(file.string(), "a ssh-ed25519 AAAA\n"), "");
    struct stat info {};
    ASSERT_EQ(::stat(file.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    std::ofstream(file, std::ios::app) << "b ssh-ed25519 BBBB";  // no final newline
    EXPECT_EQ(append_known_host(file.string(), "c ssh-ed25519 CCCC\n"), "");
    EXPECT_EQ(read(file), "a ssh-ed25519 AAAA\nb ssh-ed25519 BBBB\nc ssh-ed25519 CCCC\n");
    std::filesystem::remove_all(dir);
}

TEST_F(KeyFiles, FingerprintMatchesSshKeygen) {
    const auto key = keygen("host", "-t ed25519 -N ''");
    std::istringstream pub(read(key + ".pub"));
    std::string type, blob;
    pub >> type >> blob;
    const auto decoded = base64_decode(blob);
    ASSERT_TRUE(decoded);
    std::istringstream listed(run("ssh-keygen -l -E sha256 -f " + key + ".pub"));
    std::string bits, expected;
    listed >> bits >> expected;
    EXPECT_EQ(sha256_fingerprint(*decoded), expected);
}

TEST_F(KeyFiles, KeyKindsAreReadWithoutThePassphrase) {
    const auto ed25519 = inspect_key_file(keygen("ed", "-t ed25519 -N ''"));
    EXPECT_TRUE(ed25519.error.empty()) << ed25519.error;
    EXPECT_EQ(ed25519.kind, KeyKind::Ed25519);
    EXPECT_EQ(ed25519.type_name, "ssh-ed25519");
    EXPECT_FALSE(ed25519.encrypted);

    const auto ecdsa = inspect_key_file(keygen("ec", "-t ecdsa -b 384 -N 'secret words'"));
    EXPECT_EQ(ecdsa.kind, KeyKind::Ecdsa);
    EXPECT_EQ(ecdsa.type_name, "ecdsa-sha2-nistp384");
    EXPECT_TRUE(ecdsa.encrypted);

    const auto rsa = inspect_key_file(keygen("rsa", "-t rsa -b 1024 -N ''"));
    EXPECT_EQ(rsa.kind, KeyKind::Rsa);

    const auto pem = inspect_key_file(keygen("pem", "-t rsa -b 1024 -m PEM -N ''"));
    EXPECT_EQ(pem.kind, KeyKind::Rsa);
    EXPECT_FALSE(pem.encrypted);

    const auto pub = inspect_key_file((dir / "ed.pub").string());
    EXPECT_NE(pub.error.find("public key"), std::string::npos);
    EXPECT_EQ(inspect_key_file((dir / "missing").string()).error, "cannot read the key file");
    EXPECT_EQ(inspect_key_text("hello").error, "not a private key file");
    EXPECT_FALSE(
        inspect_key_text("-----BEGIN OPENSSH PRIVATE KEY-----\n!!!\n-----END OPENSSH PRIVATE KEY-----\n")
            .error.empty());
}

TEST(RsaKeys, ExplanationSaysWhatToDo) {
    const auto text = rsa_key_explanation("/k/id_rsa");
    EXPECT_NE(text.find("/k/id_rsa is an RSA key"), std::string::npos);
    EXPECT_NE(text.find("OpenSSH 8.8"), std::string::npos);
    EXPECT_NE(text.find("ssh-keygen -t ed25519"), std::string::npos);
}

constexpr const char* kKey =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGJ0IWtA0Qw1d9mM4w0cFf0nF4n1ZtHcWb3aH5gHHq3Q";

TEST(KnownHostsTrust, PlainPatternAndPortEntriesTrustByKey) {
    const std::string text = std::string("# comment\n10.77.0.5 ") + kKey + "\n10.77.0.* " + kKey +
                             "\n[10.77.0.6]:2022 " + kKey + "\n!10.77.0.9,10.77.0.? " + kKey + "\n";
    EXPECT_TRUE(known_hosts_trust(text, "10.77.0.5", 22).key);
    EXPECT_TRUE(known_hosts_trust(text, "10.77.0.7", 22).key);     // the pattern
    EXPECT_TRUE(known_hosts_trust(text, "10.77.0.6", 2022).key);   // [host]:port
    EXPECT_FALSE(known_hosts_trust(text, "10.77.0.7", 2022).key);  // no [10.77.0.7]:2022 line
    EXPECT_FALSE(known_hosts_trust(text, "10.77.1.9", 22).key);
    EXPECT_FALSE(known_hosts_trust(text, "10.77.0.5", 22).certificate_authority);
}

TEST(KnownHostsTrust, CertificateAuthorityLinesAreTrustByCaAndRevokedIsNeither) {
    const std::string text = std::string("@cert-authority 10.77.0.*,[10.77.0.*]:2022 ") + kKey +
                             "\n@revoked 10.77.0.8 " + kKey + "\n";
    const auto direct = known_hosts_trust(text, "10.77.0.5", 22);
    EXPECT_TRUE(direct.certificate_authority);
    EXPECT_FALSE(direct.key);
    EXPECT_TRUE(known_hosts_trust(text, "10.77.0.5", 2022).certificate_authority);
    EXPECT_FALSE(known_hosts_trust(text, "10.78.0.5", 22).certificate_authority);
    EXPECT_FALSE(known_hosts_trust(text, "10.77.0.8", 22).key);
}

// The hashed form is what `ssh-keygen -H` writes (HashKnownHosts yes): checked against the real tool.
TEST(KnownHostsTrust, HashedEntriesMatchOnlyTheirHost) {
    if (run("command -v ssh-keygen").empty()) GTEST_SKIP() << "ssh-keygen (openssh-client) is not installed";
    const auto dir = std::filesystem::temp_directory_path() / ("pdctl-kh-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = (dir / "known_hosts").string();
    std::ofstream(file) << "10.77.0.5 " << kKey << "\n[10.77.0.6]:2022 " << kKey << "\n";
    run("ssh-keygen -q -H -f " + file + " >/dev/null 2>&1");
    std::ifstream in(file);
    const std::string hashed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove_all(dir);
    ASSERT_EQ(hashed.find("10.77.0.5"), std::string::npos) << hashed;
    ASSERT_NE(hashed.find("|1|"), std::string::npos) << hashed;
    EXPECT_TRUE(known_hosts_trust(hashed, "10.77.0.5", 22).key);
    EXPECT_TRUE(known_hosts_trust(hashed, "10.77.0.6", 2022).key);
    EXPECT_FALSE(known_hosts_trust(hashed, "10.77.0.6", 22).key);
    EXPECT_FALSE(known_hosts_trust(hashed, "10.77.0.7", 22).key);
}

}  // namespace
}  // namespace pdctl::exec
