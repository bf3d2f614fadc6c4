#include "pdctl/exec/openssh_config_reading.hpp"

#include <glob.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "pdctl/exec/ssh_config.hpp"
#include "pdctl/util/strings.hpp"
#include "pdctl/util/text_file.hpp"

namespace pdctl::exec {
namespace {

constexpr int kMaxOpenSshIncludeDepth = 16;  // OpenSSH's READCONF_MAX_DEPTH

// Keywords that change none of the facts the transport choice reads (destination, user, port, keys,
// certificates, proxies, GSSAPI) nor which blocks apply. A keyword not listed here, in a block that
// applies to a node, sends that node to `ssh -G`: ControlMaster, CanonicalizeHostname, HostKeyAlias,
// PKCS11Provider, LocalCommand, Tag, IgnoreUnknown and every keyword a newer OpenSSH may add.
const std::set<std::string>& neutral_keywords() {
    static const std::set<std::string> keywords = {
        "addkeystoagent",
        "addressfamily",
        "batchmode",
        "casignaturealgorithms",
        "challengeresponseauthentication",
        "checkhostip",
        "ciphers",
        "clearallforwardings",
        "compression",
        "connectionattempts",
        "connecttimeout",
        "dynamicforward",
        "escapechar",
        "exitonforwardfailure",
        "fingerprinthash",
        "forwardagent",
        "forwardx11",
        "forwardx11timeout",
        "forwardx11trusted",
        "gatewayports",
        "globalknownhostsfile",
        "gssapidelegatecredentials",
        "hashknownhosts",
        "hostbasedauthentication",
        "hostkeyalgorithms",
        "identitiesonly",
        "ipqos",
        "kbdinteractiveauthentication",
        "kexalgorithms",
        "localforward",
        "loglevel",
        "macs",
        "numberofpasswordprompts",
        "passwordauthentication",
        "preferredauthentications",
        "pubkeyacceptedalgorithms",
        "pubkeyacceptedkeytypes",
        "pubkeyauthentication",
        "rekeylimit",
        "remoteforward",
        "requesttty",
        "sendenv",
        "serveralivecountmax",
        "serveraliveinterval",
        "setenv",
        "stricthostkeychecking",
        "tcpkeepalive",
        "updatehostkeys",
        "userknownhostsfile",
        "verifyhostkeydns",
        "visualhostkey",
    };
    return keywords;
}

bool has_upper(std::string_view text) {
    return std::any_of(text.begin(), text.end(), [](unsigned char c) { return std::isupper(c); });
}

// A value OpenSSH would expand (%-tokens, ${VAR}) where this reader does not.
bool has_expansion(std::string_view value) {
    return value.find('%') != std::string_view::npos || value.find("${") != std::string_view::npos;
}

// HostName: %h is the alias, %% a percent sign; any other token is OpenSSH's to expand.
std::optional<std::string> expand_hostname(std::string_view value, const std::string& alias) {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] != '%') {
            out += value[i];
        } else if (i + 1 < value.size() && value[i + 1] == 'h') {
            out += alias;
            ++i;
        } else if (i + 1 < value.size() && value[i + 1] == '%') {
            out += '%';
            ++i;
        } else {
            return std::nullopt;
        }
    }
    return out;
}

// OpenSSH 9's default identities, listed by `ssh -G` when neither -i nor IdentityFile gives one.
const std::vector<std::string> kDefaultIdentities = {
    "~/.ssh/id_rsa",        "~/.ssh/id_ecdsa", "~/.ssh/id_ecdsa_sk", "~/.ssh/id_ed25519",
    "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",  "~/.ssh/id_dsa",
};

std::optional<OpenSshView> no_view(std::string* why, std::string reason) {
    if (why) *why = std::move(reason);
    return std::nullopt;
}

}  // namespace

std::optional<OpenSshDestination> parse_destination_args(const std::vector<std::string>& args) {
    OpenSshDestination out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& arg = args[i];
        const bool has_value = i + 1 < args.size();
        if (arg == "--" && i + 2 == args.size()) {
            out.alias = args[i + 1];
            return out.alias.empty() ? std::nullopt : std::optional(out);
        }
        if (!has_value) return std::nullopt;
        if (arg == "-l") {
            out.user = args[++i];
        } else if (arg == "-p") {
            int port = 0;
            const auto& value = args[++i];
            const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), port);
            if (error != std::errc() || end != value.data() + value.size()) return std::nullopt;
            out.port = port;
        } else if (arg == "-i") {
            out.identities.push_back(args[++i]);
        } else {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

OpenSshConfigReading OpenSshConfigReading::parse(const std::vector<OpenSshConfigSource>& sources,
                                                 const std::string& home, const IncludeReader& read_include) {
    OpenSshConfigReading reading;
    for (const auto& source : sources) reading.parse_into(source, {}, home, read_include, 0);
    return reading;
}

void OpenSshConfigReading::parse_into(const OpenSshConfigSource& source,
                                      const std::vector<std::vector<std::string>>& outer,
                                      const std::string& home, const IncludeReader& read_include, int depth) {
    // Lines before a file's first Host apply wherever the file was included from.
    blocks_.push_back(Block{outer, {}});
    const std::string_view text = source.text;
    int line_number = 0;
    std::size_t start = 0;
    while (start <= text.size() && unsupported_.empty()) {
        const auto end = std::min(text.find('\n', start), text.size());
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        auto split = split_ssh_config_line(line);
        if (split.key.empty()) continue;
        Line parsed;
        parsed.key = std::move(split.key);
        parsed.rest = std::move(split.rest);
        parsed.args = std::move(split.args);
        parsed.where = source.name + ":" + std::to_string(line_number);
        if (parsed.args.empty()) {
            unsupported_ = parsed.where + ": " + parsed.key + " without a value";
        } else if (parsed.key == "host") {
            if (std::any_of(parsed.args.begin(), parsed.args.end(),
                            [](const auto& p) { return has_upper(p); })) {
                unsupported_ = parsed.where + ": a Host pattern in upper case";
                continue;
            }
            auto conditions = outer;
            conditions.push_back(parsed.args);
            blocks_.push_back(Block{std::move(conditions), {}});
        } else if (parsed.key == "match") {
            if (parsed.args.size() != 1 || util::lower(parsed.args[0]) != "all") {
                unsupported_ = parsed.where + ": a Match block";
                continue;
            }
            blocks_.push_back(Block{outer, {}});
        } else if (parsed.key == "include") {
            if (depth + 1 >= kMaxOpenSshIncludeDepth) {
                unsupported_ = parsed.where + ": Include nested too deeply";
                continue;
            }
            const auto here = blocks_.back().conditions;
            for (const auto& arg : parsed.args) {
                std::string pattern = arg;
                if (pattern.rfind("~/", 0) == 0) {
                    pattern = home + pattern.substr(1);
                } else if (pattern.empty() || pattern[0] == '~') {
                    unsupported_ = parsed.where + ": Include of another user's home";
                    break;
                } else if (pattern[0] != '/') {
                    pattern = source.include_dir + "/" + pattern;
                }
                for (auto& [path, included] : read_include(pattern))
                    parse_into({path, std::move(included), source.include_dir}, here, home, read_include,
                               depth + 1);
            }
            // The lines after an Include belong to the block that held it.
            blocks_.push_back(Block{here, {}});
        } else {
            blocks_.back().lines.push_back(std::move(parsed));
        }
    }
}

std::optional<OpenSshView> OpenSshConfigReading::view_for(
    const OpenSshDestination& destination, const std::string& local_user,
    const std::function<bool(const std::string&)>& identity_exists, std::string* why) const {
    if (!unsupported_.empty()) return no_view(why, unsupported_);
    const std::string& alias = destination.alias;
    // OpenSSH matches Host patterns against the alias as given but prints it lower-cased.
    if (has_upper(alias) || alias.find('%') != std::string::npos) return no_view(why, "alias " + alias);
    for (const auto& identity : destination.identities)
        if (!identity_exists(identity)) return no_view(why, "-i " + identity + " does not exist");

    std::optional<std::string> hostname, user, proxy_jump, proxy_command;
    std::optional<int> port;
    std::optional<bool> gssapi;
    std::vector<std::string> identity_files, certificate_files;
    for (const auto& block : blocks_) {
        const bool applies =
            std::all_of(block.conditions.begin(), block.conditions.end(),
                        [&](const auto& patterns) { return ssh_host_patterns_match(patterns, alias); });
        if (!applies) continue;
        for (const auto& line : block.lines) {
            const std::string& value = line.args.front();
            const std::string here = line.where + ": " + line.key;
            if (line.key == "hostname") {
                if (hostname) continue;
                hostname = expand_hostname(value, alias);
                if (!hostname || has_upper(*hostname)) return no_view(why, here + " " + value);
            } else if (line.key == "user") {
                if (user) continue;
                if (has_expansion(value)) return no_view(why, here + " " + value);
                user = value;
            } else if (line.key == "port") {
                if (port) continue;
                int number = 0;
                const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
                if (error != std::errc() || end != value.data() + value.size() || number < 1 ||
                    number > 65535)
                    return no_view(why, here + " " + value);
                port = number;
            } else if (line.key == "identityfile" || line.key == "certificatefile") {
                if (has_expansion(value) || (value[0] == '~' && value.rfind("~/", 0) != 0))
                    return no_view(why, here + " " + value);
                (line.key == "identityfile" ? identity_files : certificate_files).push_back(value);
            } else if (line.key == "proxyjump") {
                if (!proxy_jump && !proxy_command) proxy_jump = value;
            } else if (line.key == "proxycommand") {
                if (!proxy_jump && !proxy_command) proxy_command = line.rest;
            } else if (line.key == "gssapiauthentication") {
                const std::string answer = util::lower(value);
                if (answer != "yes" && answer != "no") return no_view(why, here + " " + value);
                if (!gssapi) gssapi = answer == "yes";
            } else if (!neutral_keywords().count(line.key)) {
                return no_view(why, here);
            }
        }
    }

    OpenSshView view;
    view.hostname = hostname.value_or(alias);
    view.user = !destination.user.empty() ? destination.user : user.value_or(local_user);
    view.port = destination.port.value_or(port.value_or(22));
    view.identity_files = destination.identities;
    view.identity_files.insert(view.identity_files.end(), identity_files.begin(), identity_files.end());
    if (view.identity_files.empty()) view.identity_files = kDefaultIdentities;
    view.certificate_files = certificate_files;
    if (proxy_jump && util::lower(*proxy_jump) != "none") view.proxy_jump = *proxy_jump;
    if (proxy_command && util::lower(*proxy_command) != "none") view.proxy_command = *proxy_command;
    view.gssapi = gssapi.value_or(false);
    return view;
}

OpenSshConfigReading load_openssh_config_reading(const std::string& config_file) {
    const passwd* entry = ::getpwuid(::geteuid());
    const std::string home = entry && entry->pw_dir ? entry->pw_dir : "/";
    // A missing file is an empty config, as for OpenSSH.
    const auto read = [](const std::string& path) { return util::read_text_file(path); };
    std::vector<OpenSshConfigSource> sources;
    if (!config_file.empty()) {
        sources.push_back({config_file, read(config_file), home + "/.ssh"});
    } else {
        sources.push_back({home + "/.ssh/config", read(home + "/.ssh/config"), home + "/.ssh"});
        sources.push_back({"/etc/ssh/ssh_config", read("/etc/ssh/ssh_config"), "/etc/ssh"});
    }
    const IncludeReader read_include = [&read](const std::string& pattern) {
        std::vector<std::pair<std::string, std::string>> files;
        glob_t found{};
        if (::glob(pattern.c_str(), 0, nullptr, &found) == 0)
            for (std::size_t n = 0; n < found.gl_pathc; ++n)
                files.emplace_back(found.gl_pathv[n], read(found.gl_pathv[n]));
        ::globfree(&found);
        return files;
    };
    return OpenSshConfigReading::parse(sources, home, read_include);
}

}  // namespace pdctl::exec
