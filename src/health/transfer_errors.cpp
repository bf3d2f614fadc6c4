#include "pdctl/health/transfer_errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace pdctl::health {
namespace {

// Lower-case fragments, each from a message of the KV path: SGLang's disaggregation code
// (KVTransferError, "Error fetching prefill parallel info from bootstrap", KVPoll.Bootstrapping
// timeouts, "Failed to get kvcache from prefill instance") and Mooncake's ("mooncake session ... is
// not alive", "Failed to send kv chunk").
constexpr std::array kMarkers{
    std::string_view("kvtransfererror"),       std::string_view("kv transfer"),
    std::string_view("prefill parallel info"), std::string_view("kvpoll"),
    std::string_view("get kvcache"),           std::string_view("send kv chunk"),
    std::string_view("mooncake session"),      std::string_view("transfer failed"),
};

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace

bool names_kv_path_failure(std::string_view text) {
    const auto lowered = lower(text);
    return std::any_of(kMarkers.begin(), kMarkers.end(),
                       [&](std::string_view marker) { return lowered.find(marker) != std::string::npos; });
}

std::string without_request_ids(std::string_view text) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t end = i;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        if (end - i >= 5) {
            out += '#';
            i = end;
        } else if (end > i) {
            out.append(text.substr(i, end - i));
            i = end;
        } else {
            out += text[i++];
        }
    }
    return out;
}

}  // namespace pdctl::health
