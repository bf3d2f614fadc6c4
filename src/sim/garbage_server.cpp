// PDSIM_HEALTH_FAULT=garbage: the API port speaks something that is not HTTP. What pdctl meets when a
// health check points at the wrong service; the gate must keep polling and then report a timeout that
// says what it got, not crash or pass.

#include <thread>

#include "sim/net.hpp"
#include "sim/sglang_api.hpp"

namespace pdsim {

bool serve_garbage(const std::string& host, int port, std::string& error) {
    auto listener = std::make_shared<Socket>(listen_tcp(host, port, error));
    if (!listener->valid()) return false;
    std::thread([listener] {
        for (;;) {
            const Socket client = accept_for(*listener, Millis{1000});
            if (client.valid()) send_all(client, "SSH-2.0-OpenSSH_9.2p1 pdsim\r\n");
        }
    }).detach();
    return true;
}

}  // namespace pdsim
