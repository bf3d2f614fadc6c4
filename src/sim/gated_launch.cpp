#include "sim/gated_launch.hpp"

#include "sim/http_util.hpp"
#include "sim/log.hpp"
#include "sim/process.hpp"

namespace pdsim {

void GatedLaunch::serve(const std::string& host, int port, int tp_rank) {
    server_.Get("/health",
                [](const httplib::Request&, httplib::Response& res) { reply_text(res, 200, "OK"); });
    server_.Post("/gate/activate", [this](const httplib::Request&, httplib::Response& res) {
        activated_ = true;
        reply_text(res, 200, "OK");
    });
    std::string error;
    if (!serve_in_background(server_, host, port, error)) {
        // uvicorn in upstream's daemon thread logs this and ends; the ranks keep waiting.
        log_schedf(tp_rank, "ERROR:    [Errno 98] error while attempting to bind on address ('{}', {}): {}",
                   host, port, error);
        return;
    }
    log_schedf(tp_rank, "Gated launch control server started on {}:{}", host, port);
}

void GatedLaunch::wait_until_activated() const {
    while (!activated_) {
        sleep_ms(Millis{1000});  // upstream's POLL_INTERVAL_SECONDS
    }
}

}  // namespace pdsim
