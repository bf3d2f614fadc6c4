#include "pdctl/health/router_worker_api.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "pdctl/util/strings.hpp"

namespace pdctl::health {
namespace {

using json = nlohmann::json;

std::string text_of(const json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// "HTTP 503: {...}" or the transport error, for messages.
std::string describe_answer(const ProbeResult& answer) {
    if (answer.status == 0) return answer.error;
    auto body = answer.body.substr(0, 200);
    for (auto& c : body)
        if (c == '\n' || c == '\r') c = ' ';
    while (!body.empty() && body.back() == ' ') body.pop_back();
    return fmt::format("HTTP {}{}", answer.status, body.empty() ? "" : ": " + body);
}

// Percent-encodes what may not stand in a path segment (an id is a UUID, but a router that lists
// workers by URL uses the URL as the id).
std::string path_segment(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += fmt::format("%{:02X}", c);
        }
    }
    return out;
}

}  // namespace

std::optional<std::vector<ListedWorker>> parse_worker_list(const std::string& body, std::string& error) {
    const auto parsed = json::parse(body, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("workers") ||
        !parsed["workers"].is_array()) {
        error = "the answer is not a worker list: " + body.substr(0, 200);
        return std::nullopt;
    }
    std::vector<ListedWorker> workers;
    for (const auto& entry : parsed["workers"]) {
        if (!entry.is_object()) continue;
        ListedWorker worker;
        worker.id = text_of(entry, "id");
        worker.url = util::without_trailing_slash(text_of(entry, "url"));
        worker.type = text_of(entry, "worker_type");
        worker.status = text_of(entry, "status");
        const auto healthy = entry.find("is_healthy");
        worker.healthy = healthy != entry.end() && healthy->is_boolean() && healthy->get<bool>();
        if (worker.id.empty()) worker.id = worker.url;  // routers that name workers by URL
        workers.push_back(std::move(worker));
    }
    return workers;
}

const ListedWorker* find_worker(const std::vector<ListedWorker>& workers, const std::string& url) {
    const auto wanted = util::without_trailing_slash(url);
    for (const auto& worker : workers)
        if (worker.url == wanted) return &worker;
    return nullptr;
}

RouterWorkerApi::RouterWorkerApi(HttpProber& prober, const std::string& base_url,
                                 std::chrono::milliseconds timeout)
    : prober_(prober), base_url_(util::without_trailing_slash(base_url)), timeout_(timeout) {}

std::optional<std::vector<ListedWorker>> RouterWorkerApi::list(std::string& error) {
    const auto answer = prober_.get(base_url_ + "/workers", timeout_);
    if (answer.status != 200) {
        error = "GET " + base_url_ + "/workers: " + describe_answer(answer);
        return std::nullopt;
    }
    return parse_worker_list(answer.body, error);
}

std::string RouterWorkerApi::remove(const std::string& id) {
    const auto url = base_url_ + "/workers/" + path_segment(id);
    const auto answer = prober_.remove(url, timeout_);
    if (answer.status == 200 || answer.status == 202 || answer.status == 204 || answer.status == 404)
        return "";
    return "DELETE " + url + ": " + describe_answer(answer);
}

std::string RouterWorkerApi::add(const std::string& url, const std::string& type,
                                 std::optional<int> bootstrap_port) {
    json body = {{"url", url}, {"worker_type", type}};
    if (bootstrap_port) body["bootstrap_port"] = *bootstrap_port;
    const auto answer = prober_.post(base_url_ + "/workers", body.dump(), "application/json",
                                     PostTimeouts{timeout_, timeout_});
    if (answer.status == 200 || answer.status == 201 || answer.status == 202 || answer.status == 409)
        return "";
    return "POST " + base_url_ + "/workers " + body.dump() + ": " + describe_answer(answer);
}

}  // namespace pdctl::health
