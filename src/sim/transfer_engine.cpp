#include "sim/transfer_engine.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "sim/log.hpp"
#include "sim/net.hpp"

namespace pdsim {
namespace {

std::vector<std::string> split_devices(const std::string& list) {
    std::vector<std::string> devices;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) {
            devices.push_back(list.substr(start, comma - start));
        }
        start = comma + 1;
    }
    return devices;
}

}  // namespace

std::string local_ip(const ServerArgs& args) {
    for (const char* name : {"SGLANG_HOST_IP", "HOST_IP"}) {
        const char* value = std::getenv(name);
        if (value != nullptr && *value != '\0') {
            return value;
        }
    }
    return connect_host(args.host);
}

int zmq_port(int tp_rank) {
    return 20000 + static_cast<int>(getpid() % 10000) + tp_rank;
}

void log_transfer_engine_init(const ServerArgs& args, int hcas) {
    constexpr std::string_view kEngineSource = "transfer_engine_impl.cpp";
    const std::string ip = local_ip(args);
    const int rpc_port = 15000 + static_cast<int>(getpid() % 2000);  // inside MC_MIN/MAX_RPC_PORT
    log_glog('I', kEngineSource,
             fmt::format("Transfer Engine RPC using P2P handshake, listening on {}:{}", ip, rpc_port));
    if (args.transfer_backend == "mooncake_tcp" || std::getenv("MC_FORCE_TCP") != nullptr) {
        log_glog('I', kEngineSource, "MC_FORCE_TCP is set, using TCP transport only");
        return;
    }
    std::vector<std::string> devices = split_devices(args.ib_device);
    if (devices.empty()) {
        devices.push_back("mlx5_0");
    }
    const int found = hcas >= 0 ? hcas : static_cast<int>(devices.size());
    log_glog('I', kEngineSource, "Auto-discovering topology...");
    log_glog('I', kEngineSource, fmt::format("Topology discovery complete. Found {} HCAs.", found));
    for (int i = 0; i < found; ++i) {
        std::string name = static_cast<std::size_t>(i) < devices.size() ? devices[static_cast<std::size_t>(i)]
                                                                        : fmt::format("mlx5_{}", i);
        log_glog(
            'I', "rdma_context.cpp",
            fmt::format("RDMA device: {}, LID: 0, GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:"
                        "7f:00:00:01",
                        name));
    }
    if (found == 0) {
        log_glog('I', "tcp_transport.cpp", fmt::format("TcpTransport: listen on port {}", rpc_port + 1));
    }
}

}  // namespace pdsim
