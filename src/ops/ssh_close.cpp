#include "pdctl/ops/ssh_close.hpp"

#include <stdexcept>

#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

ClosedMasters close_ssh_masters() {
    ClosedMasters answer;
    answer.control_dir = exec::control_dir_from_environment();
    try {
        answer.closed = exec::close_masters_in(answer.control_dir);
    } catch (const std::runtime_error& error) {
        throw Failure(ExitCode::kUsage, error.what());
    }
    return answer;
}

}  // namespace pdctl::ops
