#pragma once
// File upload over SFTP on an open session (internal).

#include <string>

#include "pdctl/exec/ssh_executor.hpp"
#include "ssh_session.hpp"

namespace pdctl::exec::detail {

// Streams `local_path` into `remote_path` (created 0600, truncated if present), then sets `mode`; a
// partial file is unlinked on failure. File errors are in the result; a broken connection or the
// deadline throws SshError.
TransferResult sftp_upload(SshSession& session, const std::string& local_path, const std::string& remote_path,
                           int mode, util::SteadyClock::time_point deadline);

}  // namespace pdctl::exec::detail
