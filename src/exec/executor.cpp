#include "pdctl/exec/executor.hpp"

namespace pdctl::exec {

TransferResult Executor::upload(const config::Node& node, const std::string& /*local_path*/,
                                const std::string& /*remote_path*/, int /*mode*/,
                                std::chrono::milliseconds /*timeout*/) {
    TransferResult result;
    result.error = node.name + ": this executor cannot transfer files";
    return result;
}

}  // namespace pdctl::exec
