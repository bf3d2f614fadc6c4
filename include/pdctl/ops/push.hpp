#pragma once
// `pdctl push`: the runbook's "copy 3 files to all 8 nodes, then check 3/3" step, in parallel and
// verified. Every source is read and hashed before any node is touched; the run holds the deploy lock
// (a start must not pip-install a wheel that is being replaced) and is journaled like start/stop.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/push/pusher.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

// What shows a push as it runs (report::PushPrinter).
class PushView : public push::PushObserver {
  public:
    virtual void begin(std::size_t files, std::size_t nodes, std::uint64_t bytes_at_most) = 0;
    virtual void end(const push::PushResult& result) = 0;
    // The run in one line, for the journal ("1.2 MB sent to 8 nodes").
    virtual std::string summary(const push::PushResult& result) const = 0;
};

// Throws Failure (usage) naming the config line of a source that cannot be read, before any node is
// touched. The config must declare `files:`. `nodes`: only these (nullopt: every node that gets a file).
// `relay`: each file streams once through a chain of the nodes that lack it (push/relay.hpp).
ExitCode run_push(const Deployment& deployment, PushView& view,
                  const std::optional<std::vector<std::string>>& nodes = std::nullopt,
                  std::optional<push::RelayOptions> relay = std::nullopt);

}  // namespace pdctl::ops
