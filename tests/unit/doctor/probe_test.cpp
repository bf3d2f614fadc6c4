// The probe script run for real by `sh -c` (as sshd runs it) against a fake sysfs tree and fake
// nvidia-smi and container CLI, then read back by the parser. The sandbox path holds a space and a
// quote, and the image name shell syntax: user values must arrive as data, never as script.
#include "pdctl/doctor/probe.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "doctor_test_util.hpp"
#include "pdctl/doctor/facts.hpp"
#include "unit/support/script_sandbox.hpp"

namespace pdctl::doctor::testing {
namespace {

using pdctl::testing::ScriptSandbox;

void make_executable(const std::filesystem::path& path) {
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

class DoctorProbe : public ::testing::Test {
  protected:
    DoctorProbe() : sandbox("doctor probe") {
        const auto sys = sandbox.dir() / "sys";
        std::filesystem::create_directories(sys / "class/infiniband/mlx5_0/ports/1");
        std::filesystem::create_directories(sys / "class/infiniband/mlx5_1/ports/1");
        sandbox.write(sys / "class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
        sandbox.write(sys / "class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");
        std::filesystem::create_directories(sys / "class/net/bond1");
        sandbox.write(sys / "class/net/bond1/operstate", "up\n");
        sandbox.write(sys / "class/net/bond1/flags", "0x1003\n");
        std::filesystem::create_directories(sys / "module/nvidia_peermem");
        bin = sandbox.dir() / "bin";
        std::filesystem::create_directories(bin);
    }

    // A fake nvidia-smi printing the busy H200 fixture sections.
    void fake_nvidia_smi() {
        sandbox.write(sandbox.dir() / "query.csv", fixture("nvidia-smi-h200-busy.query-gpu.csv"));
        sandbox.write(sandbox.dir() / "apps.csv", fixture("nvidia-smi-h200-busy.compute-apps.csv"));
        sandbox.write(bin / "nvidia-smi",
                      "#!/bin/sh\ndir=$(dirname \"$0\")/..\ncase \"$1\" in\n"
                      "  --query-gpu=*) cat \"$dir/query.csv\" ;;\n"
                      "  --query-compute-apps=*) cat \"$dir/apps.csv\" ;;\n"
                      "  *) exit 9 ;;\nesac\n");
        make_executable(bin / "nvidia-smi");
    }

    // A fake container CLI: podman-style info, and an image id only for `good:1`.
    std::string fake_cli() {
        const auto path = bin / "fake podman";
        sandbox.write(
            path,
            "#!/bin/sh\n"
            "if [ \"$1\" = info ]; then\n"
            "  [ \"$3\" = '{{.Store.GraphRoot}}' ] && { echo /var/lib/containers/storage; exit 0; }\n"
            "  echo 'template: no such field' >&2; exit 125\n"
            "fi\n"
            "if [ \"$1 $2\" = 'image inspect' ]; then\n"
            "  [ \"$5\" = good:1 ] && { echo sha256:abc123; exit 0; }\n"
            "  echo \"Error: $5: image not known\" >&2; exit 125\n"
            "fi\n"
            "exit 3\n");
        make_executable(path);
        return path.string();
    }

    ParsedProbe run(const ProbeRequest& request) {
        auto command = probe_command(request);
        command.argv.insert(command.argv.begin(),
                            {"env", "PDCTL_SYSFS_ROOT=" + (sandbox.dir() / "sys").string(),
                             "PATH=" + bin.string() + ":/usr/bin:/bin"});
        const auto result = sandbox.run(command);
        EXPECT_TRUE(result.ok()) << result.err;
        return parse_probe_output(result.out);
    }

    ScriptSandbox sandbox;
    std::filesystem::path bin;
};

TEST_F(DoctorProbe, ReadsTheFakeSysfsTree) {
    const auto parsed = run({});
    ASSERT_TRUE(parsed.error.empty()) << parsed.error;
    const auto& facts = parsed.facts;
    EXPECT_TRUE(facts.infiniband_class);
    EXPECT_EQ(facts.ib_devices, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
    ASSERT_EQ(facts.ib_ports.size(), 2u);
    EXPECT_EQ(facts.ib_ports[0].state, "4: ACTIVE");
    EXPECT_TRUE(facts.ib_ports[0].active());
    EXPECT_FALSE(facts.ib_ports[1].active());
    ASSERT_EQ(facts.interfaces.size(), 1u);
    EXPECT_TRUE(facts.interfaces[0].up());
    EXPECT_EQ(facts.interfaces[0].flags, 0x1003u);
    EXPECT_TRUE(facts.peermem_loaded);
    EXPECT_FALSE(facts.kernel.empty());
    EXPECT_FALSE(facts.memlock.empty());
    EXPECT_FALSE(facts.gpu_probed) << "nvidia-smi runs only when asked";
}

TEST_F(DoctorProbe, GpuWithoutNvidiaSmiSaysMissing) {
    ProbeRequest request;
    request.gpu = true;
    const auto parsed = run(request);
    ASSERT_TRUE(parsed.error.empty()) << parsed.error;
    EXPECT_TRUE(parsed.facts.gpu_probed);
    EXPECT_FALSE(parsed.facts.nvidia_smi_found);
}

TEST_F(DoctorProbe, NvidiaSmiAnswersReachTheParsersUnchanged) {
    fake_nvidia_smi();
    ProbeRequest request;
    request.gpu = true;
    const auto facts = run(request).facts;
    ASSERT_TRUE(facts.nvidia_smi_found);
    EXPECT_EQ(facts.gpu_query_status, 0);
    const auto gpus = parse_gpu_query(facts.gpu_query_text);
    ASSERT_EQ(gpus.gpus.size(), 1u) << gpus.error;
    EXPECT_EQ(gpus.gpus[0].used_mib, 19601);
    const auto apps = parse_compute_apps(facts.apps_query_text);
    ASSERT_EQ(apps.apps.size(), 1u) << apps.error;
    EXPECT_EQ(apps.apps[0].pid, "432");
}

TEST_F(DoctorProbe, ContainerCliImagesAndDiskWithHostileValues) {
    const auto cli = fake_cli();
    const auto marker = sandbox.dir() / "injected";
    const std::string hostile = "x'; touch '" + marker.string() + "'; echo '";
    ProbeRequest request;
    request.clis = {cli, "no-such-cli"};
    request.images = {{cli, "good:1"}, {cli, hostile}};
    request.disk_paths = {(sandbox.dir() / "state dir/not yet").string()};
    const auto parsed = run(request);
    ASSERT_TRUE(parsed.error.empty()) << parsed.error;
    const auto& facts = parsed.facts;
    EXPECT_FALSE(std::filesystem::exists(marker)) << "an image name ran as shell";
    ASSERT_NE(facts.find_cli(cli), nullptr);
    EXPECT_EQ(facts.find_cli(cli)->state, ContainerCli::State::Ok);
    EXPECT_EQ(facts.find_cli(cli)->storage_root, "/var/lib/containers/storage");
    ASSERT_NE(facts.find_cli("no-such-cli"), nullptr);
    EXPECT_EQ(facts.find_cli("no-such-cli")->state, ContainerCli::State::Missing);
    ASSERT_EQ(facts.images.size(), 2u);
    EXPECT_EQ(facts.images[0].id, "sha256:abc123");
    EXPECT_EQ(facts.images[1].image, hostile);
    EXPECT_TRUE(facts.images[1].id.empty());
    EXPECT_NE(facts.images[1].error.find("image not known"), std::string::npos);
    // df of the storage root and of the state dir's nearest existing parent.
    ASSERT_EQ(facts.disks.size(), 2u);
    EXPECT_EQ(facts.disks[1].path, (sandbox.dir() / "state dir/not yet").string());
    EXPECT_GT(facts.disks[1].available_kib, 0);
    EXPECT_FALSE(facts.disks[1].mount.empty());
}

TEST(DoctorProbeParser, CutOffOrForeignOutputIsAnError) {
    EXPECT_EQ(parse_probe_output("").error, "the answer is not the probe's (no `probe 1` line)");
    EXPECT_EQ(parse_probe_output("probe\t1\nkernel\t6.1\n").error,
              "the answer stops before its end (cut off)");
    EXPECT_TRUE(parse_probe_output("probe\t1\nsomething-new\tx\nend\n").error.empty())
        << "unknown kinds are skipped";
}

TEST(DoctorProbeParser, LoopbackIsUpAlthoughItsOperstateIsUnknown) {
    const auto facts =
        parse_probe_output("probe\t1\nnet\tlo\tunknown\t0x9\nnet\tdummy0\tunknown\t0x82\nend\n").facts;
    ASSERT_EQ(facts.interfaces.size(), 2u);
    EXPECT_TRUE(facts.interfaces[0].up());
    EXPECT_FALSE(facts.interfaces[1].up());
}

TEST(DoctorProbeParser, KernelVersion) {
    EXPECT_EQ(kernel_version("6.1.0-18-amd64"), (std::pair{6, 1}));
    EXPECT_EQ(kernel_version("5.4.0"), (std::pair{5, 4}));
    EXPECT_FALSE(kernel_version("unknown"));
}

}  // namespace
}  // namespace pdctl::doctor::testing
