#include "log_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>

#include "pdctl/report/output.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::cli::log_file {
namespace {

std::string utc_stamp() {
    return util::utc_text(util::epoch_ms_now());
}

// spdlog's diagnostics into the log file, each redacted with the config's secrets: a debug line may
// quote a node's answer or an environment value.
class RedactingFileSink : public spdlog::sinks::base_sink<std::mutex> {
  public:
    explicit RedactingFileSink(std::FILE* file) : file_(file) {
        set_formatter_(std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%SZ %l: %v",
                                                                   spdlog::pattern_time_type::utc));
    }
    void use_redactor(const util::Redactor& redactor) {
        std::lock_guard lock(mutex_);
        redactor_ = redactor;
    }

  protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
        spdlog::memory_buf_t formatted;
        formatter_->format(message, formatted);
        report::write_text(file_, redactor_.redact(std::string_view(formatted.data(), formatted.size())));
    }
    void flush_() override { std::fflush(file_); }

  private:
    std::FILE* file_;
    util::Redactor redactor_;
};

struct OpenLog {
    std::FILE* file = nullptr;
    std::shared_ptr<RedactingFileSink> sink;
};

OpenLog& the_log() {
    static OpenLog log;
    return log;
}

}  // namespace

void open(const std::string& path, int argc, char** argv) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    std::FILE* file = fd >= 0 ? ::fdopen(fd, "a") : nullptr;
    if (!file) {
        const std::string reason = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        throw Failure(ExitCode::kUsage, "cannot open the log file " + path + ": " + reason,
                      "--log-file (or $PDCTL_LOG_FILE) needs a writable path; its directory must exist");
    }
    auto& log = the_log();
    log.file = file;
    log.sink = std::make_shared<RedactingFileSink>(file);
    log.sink->set_level(spdlog::level::debug);
    auto logger = spdlog::default_logger();
    logger->sinks().push_back(log.sink);
    logger->set_level(spdlog::level::debug);  // each sink filters by its own level

    std::string command = "pdctl";
    for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
    write(fmt::format("pdctl {} (pid {}): {}", PDCTL_VERSION, ::getpid(), command));
}

std::FILE* stream() {
    return the_log().file;
}

void redact_with(const util::Redactor& redactor) {
    if (the_log().sink) the_log().sink->use_redactor(redactor);
}

void write(std::string_view text) {
    if (!the_log().file) return;
    std::string entry = utc_stamp() + " " + std::string(text);
    if (entry.empty() || entry.back() != '\n') entry += '\n';
    report::write_text(the_log().file, entry);
}

void finish(int exit_code) {
    write(fmt::format("exit {} ({})", exit_code, describe(static_cast<ExitCode>(exit_code))));
}

}  // namespace pdctl::cli::log_file
