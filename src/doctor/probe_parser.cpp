// Reads the probe's answer (format in probe.hpp). Unknown kinds are ignored so that a newer probe can
// add facts; a missing `probe 1` or `end` line means the answer is cut off or not the probe's.

#include <algorithm>
#include <charconv>
#include <optional>

#include "checks.hpp"
#include "pdctl/doctor/facts.hpp"
#include "text.hpp"

namespace pdctl::doctor {

bool IbPort::active() const {
    // sysfs: "4: ACTIVE"; the number is the IB port state enum (4 = active).
    return state.find("ACTIVE") != std::string::npos && state.find("ACTIVE_DEFER") == std::string::npos;
}

bool NetInterface::up() const {
    constexpr unsigned kIffUp = 0x1;
    return operstate == "up" || (operstate == "unknown" && (flags & kIffUp) != 0);
}

const ContainerCli* NodeFacts::find_cli(std::string_view cli) const {
    for (const auto& entry : clis)
        if (entry.cli == cli) return &entry;
    return nullptr;
}

const NetInterface* NodeFacts::find_interface(std::string_view name) const {
    for (const auto& entry : interfaces)
        if (entry.name == name) return &entry;
    return nullptr;
}

std::optional<std::pair<int, int>> kernel_version(std::string_view release) {
    int major = 0, minor = 0;
    const auto* end = release.data() + release.size();
    auto [p1, e1] = std::from_chars(release.data(), end, major);
    if (e1 != std::errc() || p1 == end || *p1 != '.') return std::nullopt;
    auto [p2, e2] = std::from_chars(p1 + 1, end, minor);
    if (e2 != std::errc()) return std::nullopt;
    return std::pair{major, minor};
}

namespace {

unsigned parse_flags(const std::string& text) {
    unsigned value = 0;
    std::string_view digits = text;
    if (digits.starts_with("0x")) digits.remove_prefix(2);
    std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    return value;
}

int parse_status(const std::string& text) {
    int value = -1;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

long long parse_kib(const std::string& text) {
    long long value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

// ss's process column: users:(("python3",pid=432,fd=3),...) → "python3 pid 432" (the first one).
std::string parse_listen_holder(std::string_view process) {
    const auto open = process.find("((\"");
    if (open == std::string_view::npos) return {};
    const auto name_end = process.find('"', open + 3);
    const auto pid_at = process.find("pid=", open);
    if (name_end == std::string_view::npos || pid_at == std::string_view::npos) return {};
    const auto pid_end = process.find_first_not_of("0123456789", pid_at + 4);
    return std::string(process.substr(open + 3, name_end - open - 3)) + " pid " +
           std::string(process.substr(pid_at + 4, pid_end - pid_at - 4));
}

}  // namespace

ParsedProbe parse_probe_output(std::string_view output) {
    ParsedProbe parsed;
    auto& facts = parsed.facts;
    bool started = false, ended = false;
    for (const auto& line : detail::lines(output)) {
        const auto fields = detail::split(line, '\t');
        const auto& kind = fields[0];
        const auto field = [&](std::size_t i) { return i < fields.size() ? fields[i] : std::string(); };
        // The rest of the line from field i on, for free text that might itself hold a tab.
        const auto rest = [&](std::size_t i) {
            std::string text;
            for (std::size_t j = i; j < fields.size(); ++j) text += (j > i ? "\t" : "") + fields[j];
            return text;
        };
        if (kind == "probe") {
            started = field(1) == "1";
        } else if (kind == "kernel") {
            facts.kernel = field(1);
        } else if (kind == "memlock") {
            facts.memlock = field(1);
        } else if (kind == "peermem") {
            facts.peermem_loaded = field(1) == "1";
        } else if (kind == "ib-class") {
            facts.infiniband_class = field(1) == "1";
        } else if (kind == "ib-device") {
            facts.ib_devices.push_back(field(1));
        } else if (kind == "ib-port") {
            facts.ib_ports.push_back({field(1), field(2), rest(3)});
        } else if (kind == "net") {
            facts.interfaces.push_back({field(1), field(2), parse_flags(field(3)), {}});
        } else if (kind == "listen-query") {
            facts.listeners_probed = true;
            facts.listeners_known = field(1) == "ok";
        } else if (kind == "listen") {
            if (auto listener = detail::parse_listen_address(field(1))) {
                listener->holder = parse_listen_holder(field(2));
                facts.listeners.push_back(std::move(*listener));
            }
        } else if (kind == "addr-query") {
            facts.addresses_known = field(1) == "ok";
        } else if (kind == "addr") {
            // `ip -o addr` names a NIC as sysfs does (the probe lists sysfs first); sysfs is the
            // inventory, so an address of a NIC it did not list is not kept.
            const auto nic = std::find_if(facts.interfaces.begin(), facts.interfaces.end(),
                                          [&](const NetInterface& known) { return known.name == field(1); });
            if (nic != facts.interfaces.end()) nic->addresses.push_back(field(2));
        } else if (kind == "gpu-query") {
            facts.gpu_probed = true;
            facts.nvidia_smi_found = field(1) != "missing";
            if (facts.nvidia_smi_found) facts.gpu_query_status = parse_status(field(1));
        } else if (kind == "gpu") {
            facts.gpu_query_text += rest(1) + "\n";
        } else if (kind == "apps-query") {
            facts.apps_query_status = parse_status(field(1));
        } else if (kind == "app") {
            facts.apps_query_text += rest(1) + "\n";
        } else if (kind == "cli") {
            ContainerCli cli;
            cli.cli = field(1);
            const auto state = field(2);
            cli.state = state == "ok"        ? ContainerCli::State::Ok
                        : state == "missing" ? ContainerCli::State::Missing
                                             : ContainerCli::State::Failing;
            (cli.state == ContainerCli::State::Ok ? cli.storage_root : cli.error) = rest(3);
            facts.clis.push_back(std::move(cli));
        } else if (kind == "image") {
            ImageOnNode image{field(1), field(2), {}, {}};
            (field(3) == "ok" ? image.id : image.error) = rest(4);
            facts.images.push_back(std::move(image));
        } else if (kind == "program") {
            facts.programs.push_back({field(1), field(2), field(3), field(4), rest(5)});
        } else if (kind == "df") {
            facts.disks.push_back({field(1), parse_kib(field(2)), field(3)});
        } else if (kind == "end") {
            ended = true;
        }
    }
    if (!started)
        parsed.error = "the answer is not the probe's (no `probe 1` line)";
    else if (!ended)
        parsed.error = "the answer stops before its end (cut off)";
    return parsed;
}

namespace detail {

// ss's local address column: "0.0.0.0:30000", "[::]:30000", "127.0.0.53%lo:53", "*:22".
std::optional<TcpListener> parse_listen_address(std::string_view local) {
    const auto colon = local.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    TcpListener listener;
    const auto port = local.substr(colon + 1);
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), listener.port);
    if (ec != std::errc() || end != port.data() + port.size()) return std::nullopt;
    std::string_view host = local.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (const auto percent = host.find('%'); percent != std::string_view::npos)
        host = host.substr(0, percent);
    listener.host = host == "*" ? "0.0.0.0" : std::string(host);
    return listener;
}

}  // namespace detail

}  // namespace pdctl::doctor
