#pragma once
// File upload over SFTP on an open session (internal).

#include <string>

#include "pdctl/exec/ssh_executor.hpp"
#include "ssh_session.hpp"

namespace pdctl::exec::detail {

// Streams `local_path` to `<remote_path>.pdctl-tmp-<random>`, sets `mode`, then renames it over
// `remote_path` with `mv -f` (atomic rename(2); SFTP v3 rename refuses to replace a file). File errors
// are in the result; a broken connection throws SshError.
TransferResult sftp_put(SshSession& session, const std::string& local_path, const std::string& remote_path,
                        int mode, Clock::time_point deadline);

}  // namespace pdctl::exec::detail
