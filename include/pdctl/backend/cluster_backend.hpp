#pragma once
// A backend as the use cases see it (ops/): what the engine asks of it (engine/backend.hpp), its name,
// and which verbs it can serve.

#include <optional>
#include <string>
#include <string_view>

#include "pdctl/engine/backend.hpp"

namespace pdctl::backend {

// Why a verb cannot run on a backend, and what works instead.
struct Refusal {
    std::string message;
    std::string hint;
};

class ClusterBackend : public engine::Backend {
  public:
    // "ssh", "local", "slurm": the config's `executor:`.
    virtual std::string_view name() const = 0;
    // Why `pdctl <verb>` cannot run on this backend, nullopt when it can. Asked for the verbs that run
    // commands of their own on the nodes (exec, push, pull, stack, the live doctor).
    virtual std::optional<Refusal> refusal(const std::string& verb) const = 0;
};

}  // namespace pdctl::backend
