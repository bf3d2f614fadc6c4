#include "pdctl/util/exit_code.hpp"

namespace pdctl {

const char* describe(ExitCode code) {
    switch (code) {
        case ExitCode::kOk:
            return "success";
        case ExitCode::kInternal:
            return "internal error";
        case ExitCode::kUsage:
            return "usage or config error";
        case ExitCode::kUnreachable:
            return "node unreachable";
        case ExitCode::kStageFailed:
            return "stage failed";
        case ExitCode::kGateTimeout:
            return "gate timeout";
        case ExitCode::kLocked:
            return "deploy locked";
        case ExitCode::kDegraded:
            return "degraded";
        case ExitCode::kStopped:
            return "stopped";
        case ExitCode::kSmokeFailed:
            return "smoke failed";
        case ExitCode::kNodeCheckFailed:
            return "node check failed";
        case ExitCode::kStopFailed:
            return "stop failed";
        case ExitCode::kGpusBusy:
            return "GPUs still in use";
        case ExitCode::kCommandFailed:
            return "command failed";
        case ExitCode::kStoppedWithoutLock:
            return "stopped without the lock";
        case ExitCode::kBenchFailed:
            return "bench failed";
        case ExitCode::kBenchRegressed:
            return "bench regressed";
        case ExitCode::kHealGaveUp:
            return "heal gave up";
        case ExitCode::kRolledBack:
            return "rolled back";
        case ExitCode::kInterrupted:
            return "interrupted";
        case ExitCode::kOutputClosed:
            return "output closed";
    }
    return "unknown";
}

}  // namespace pdctl
