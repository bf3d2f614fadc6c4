#include "sim/bootstrap_server.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>

#include "sim/http_util.hpp"

namespace pdsim {
namespace {

constexpr std::size_t kMaxRooms = 100000;
constexpr long long kMaxWaitMs = 10000;

std::optional<long long> query_int(const httplib::Request& req, const char* name) {
    if (!req.has_param(name)) {
        return std::nullopt;
    }
    std::string value = req.get_param_value(name);
    char* end = nullptr;
    long long parsed = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') {
        return std::nullopt;
    }
    return parsed;
}

std::optional<std::uint64_t> query_room(const httplib::Request& req) {
    if (!req.has_param("room")) {
        return std::nullopt;
    }
    std::string value = req.get_param_value("room");
    char* end = nullptr;
    unsigned long long parsed = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') {
        return std::nullopt;
    }
    return parsed;
}

// 64 random bits in hex: a restarted prefill's bootstrap server is told apart from the one before.
std::string random_instance() {
    std::random_device random;
    return fmt::format("{:08x}{:08x}", random(), random());
}

}  // namespace

BootstrapServer::BootstrapServer(PrefillParallelInfo info) : info_(info), instance_(random_instance()) {
    setup_routes();
}

bool BootstrapServer::start(const std::string& host, int port, std::string& error) {
    return serve_in_background(server_, host, port, error, serving_threads());
}

void BootstrapServer::record_room(std::uint64_t room, nlohmann::json meta) {
    std::lock_guard lock(mutex_);
    room_recorded_.notify_all();
    if (rooms_.emplace(room, std::move(meta)).second) {
        room_order_.push_back(room);
    }
    while (room_order_.size() > kMaxRooms) {
        rooms_.erase(room_order_.front());
        room_order_.pop_front();
    }
}

void BootstrapServer::setup_routes() {
    server_.Get("/health",
                [](const httplib::Request&, httplib::Response& res) { reply_text(res, 200, "OK"); });

    server_.Put("/route", [this](const httplib::Request& req, httplib::Response& res) {
        nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
        if (!body.is_object() || !body.contains("rank_ip") || !body.contains("rank_port")) {
            reply_text(res, 400, "Missing rank_ip or rank_port");
            return;
        }
        int engine_rank = body.value("engine_rank", 0);
        {
            std::lock_guard lock(mutex_);
            ranks_[engine_rank] = body;
        }
        reply_text(res, 200, "OK");
    });

    server_.Get("/route",
                [this](const httplib::Request& req, httplib::Response& res) { handle_route_get(req, res); });

    server_.Put("/kv", [this](const httplib::Request& req, httplib::Response& res) {
        auto room = query_room(req);
        if (!room) {
            reply_text(res, 400, "Missing or invalid room");
            return;
        }
        nlohmann::json meta = nlohmann::json::parse(req.body, nullptr, false);
        record_room(*room, meta.is_discarded() ? nlohmann::json::object() : meta);
        reply_text(res, 200, "OK");
    });

    server_.Get("/kv", [this](const httplib::Request& req, httplib::Response& res) {
        auto room = query_room(req);
        if (!room) {
            reply_text(res, 400, "Missing or invalid room");
            return;
        }
        // A decode connected to an earlier process of this prefill: its session is gone.
        if (req.has_param("instance") && req.get_param_value("instance") != instance_) {
            reply_json(res, 410, {{"room", *room}, {"error", "unknown peer session"}});
            return;
        }
        // ?wait_ms=N: a long poll, answered as soon as the room is recorded (no polling delay in the
        // measured time to first token), or 404 after N ms.
        const long long wait = std::clamp(query_int(req, "wait_ms").value_or(0), 0LL, kMaxWaitMs);
        std::unique_lock lock(mutex_);
        room_recorded_.wait_for(lock, std::chrono::milliseconds(wait),
                                [&] { return rooms_.count(*room) != 0; });
        auto it = rooms_.find(*room);
        if (it == rooms_.end()) {
            reply_json(res, 404, {{"room", *room}, {"ready", false}});
            return;
        }
        reply_json(res, 200, {{"room", *room}, {"ready", true}, {"meta", it->second}});
    });
}

void BootstrapServer::handle_route_get(const httplib::Request& req, httplib::Response& res) {
    auto engine_rank = query_int(req, "engine_rank");
    auto dp_group = query_int(req, "target_dp_group");
    auto pp_rank = query_int(req, "target_pp_rank");
    if (!engine_rank || !dp_group || !pp_rank) {
        reply_text(res, 400, "Missing inputs for bootstrap server.");
        return;
    }
    std::lock_guard lock(mutex_);
    if (*engine_rank == -1 && *dp_group == -1 && *pp_rank == -1) {
        // The lookup decode makes before its first transfer from this prefill.
        int attn_tp = info_.tp_size / std::max(1, info_.dp_size);
        reply_json(res, 200,
                   {{"prefill_attn_tp_size", std::max(1, attn_tp)},
                    {"prefill_dp_size", info_.dp_size},
                    {"prefill_pp_size", info_.pp_size},
                    {"prefill_page_size", 1},
                    {"tp_size", info_.tp_size},
                    {"dp_size", info_.dp_size},
                    {"pp_size", info_.pp_size},
                    {"registered_ranks", ranks_.size()},
                    {"pdsim_instance", instance_}});
        return;
    }
    auto it = ranks_.find(static_cast<int>(*engine_rank));
    if (it == ranks_.end()) {
        reply_text(res, 404, fmt::format("Bootstrap info not found for engine_rank={}", *engine_rank));
        return;
    }
    reply_json(res, 200, it->second);
}

std::optional<std::string> register_to_bootstrap(const std::string& host, int port,
                                                 const nlohmann::json& rank) {
    std::string last_error;
    Millis backoff{1000};
    for (int attempt = 1; attempt <= 5; ++attempt) {
        auto client = make_client(host, port, Millis{2000}, Millis{5000});
        auto result = client->Put("/route", rank.dump(), "application/json");
        if (result && result->status == 200) {
            return std::nullopt;
        }
        last_error = describe_failure(result, host, port);
        if (attempt < 5) {
            sleep_ms(backoff);
            backoff = std::min(backoff * 2, Millis{30000});
        }
    }
    return fmt::format("Failed to register to bootstrap server {}:{} after 5 attempts: {}", host, port,
                       last_error);
}

}  // namespace pdsim
