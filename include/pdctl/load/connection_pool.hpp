#pragma once
// How many idle connections the load runner keeps for reuse: pure, so its sizing is tested on its own.

#include "pdctl/load/load_spec.hpp"

namespace pdctl::load {

// Sockets kept back from the pool's size: the process's own files, libcurl's resolver and the epoll
// descriptor.
inline constexpr long kFdsKeptBack = 64;

// The size of libcurl's connection cache (CURLMOPT_MAXCONNECTS) for `spec`, given the soft open-file
// limit in force (-1: none). Past it a finished request's connection is closed and the next request
// pays a new TCP handshake in its TTFT (and leaves a socket in TIME_WAIT). A closed loop never has
// more than its concurrency in flight. Poisson arrivals without a cap have, by Little's law, rate ×
// request time in flight, and a request lasts at most the timeout: so rate × timeout bounds what the
// pool can ever need, and the open-file limit bounds what it can hold. The size is only a cap:
// libcurl opens no connection because of it.
long connection_pool_size(const LoadSpec& spec, long open_file_limit);

}  // namespace pdctl::load
