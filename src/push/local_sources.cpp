#include "pdctl/push/local_sources.hpp"

#include <future>
#include <memory>
#include <stdexcept>

#include "pdctl/util/sha256.hpp"

namespace pdctl::push {

LocalSources::LocalSources(const std::vector<SourceFile>& sources) {
    // Promises move into the thread; the futures stay here for the node workers.
    auto pending = std::make_shared<std::vector<std::pair<std::string, std::promise<std::string>>>>();
    for (const auto& source : sources) {
        std::promise<std::string> digest;
        files_[source.path] = {digest.get_future().share(), source.size};
        pending->emplace_back(source.path, std::move(digest));
    }
    hasher_ = std::thread([this, pending] {
        for (auto& [path, digest] : *pending) {
            std::string why;
            if (const auto sha = util::sha256_file_hex(path, &why, &stop_))
                digest.set_value(*sha);
            else
                digest.set_exception(
                    std::make_exception_ptr(std::runtime_error("cannot read " + path + ": " + why)));
        }
    });
}

LocalSources::~LocalSources() {
    stop_ = true;
    if (hasher_.joinable()) hasher_.join();
}

}  // namespace pdctl::push
