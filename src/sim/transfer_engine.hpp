#pragma once
// What a prefill/decode rank tells others about itself for KV transfer: its IP (chosen the way
// SGLang's get_local_ip_auto does), its ZMQ port, and the Mooncake transfer-engine start-up lines.

#include <string>

#include "sim/program_args.hpp"

namespace pdsim {

// SGLANG_HOST_IP, else HOST_IP, else the --host address (0.0.0.0 -> 127.0.0.1: pdsim cannot
// know the default-route IP the real code would pick, and loopback keeps tests local).
std::string local_ip(const ServerArgs& args);

// A stable fake ZMQ port for a TP rank (only ever reported, never opened).
int zmq_port(int tp_rank);

// The Mooncake TE lines (glog format) pdctl watches for, e.g. "Found 0 HCAs" = TCP fallback.
// `hcas` < 0: one HCA per --disaggregation-ib-device entry, or 1 when auto-detected.
void log_transfer_engine_init(const ServerArgs& args, int hcas);

}  // namespace pdsim
