#include "pdctl/util/redactor.hpp"

#include <algorithm>

namespace pdctl::util {

void Redactor::add_secret(std::string value) {
    if (value.size() < 4) return;
    if (std::find(secrets_.begin(), secrets_.end(), value) != secrets_.end()) return;
    secrets_.push_back(std::move(value));
    std::stable_sort(secrets_.begin(), secrets_.end(),
                     [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void Redactor::add_secrets_of(const Redactor& other) {
    for (const auto& secret : other.secrets_) add_secret(secret);
}

std::string Redactor::redact(std::string_view text) const {
    std::string out(text);
    for (const auto& secret : secrets_) {
        std::string::size_type pos = 0;
        while ((pos = out.find(secret, pos)) != std::string::npos) {
            out.replace(pos, secret.size(), kRedacted);
            pos += std::char_traits<char>::length(kRedacted);
        }
    }
    return out;
}

}  // namespace pdctl::util
