# Locates the system libraries pdctl builds against. Every dependency is a Debian 12 package;
# nothing is vendored. A missing package stops configure with the package name to install.

function(pdctl_require_config package debian_package)
    find_package(${package} CONFIG QUIET)
    if(NOT ${package}_FOUND)
        message(FATAL_ERROR
            "pdctl: ${package} not found. Install the Debian package: apt-get install -y ${debian_package}")
    endif()
endfunction()

function(pdctl_require_pkgconfig prefix module debian_package)
    pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
    if(NOT ${prefix}_FOUND)
        message(FATAL_ERROR
            "pdctl: ${module} not found by pkg-config. Install the Debian package: apt-get install -y ${debian_package}")
    endif()
endfunction()

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
    message(FATAL_ERROR "pdctl: pkg-config not found. Install the Debian package: apt-get install -y pkg-config")
endif()
find_package(Threads REQUIRED)

pdctl_require_config(CLI11 libcli11-dev)
pdctl_require_config(yaml-cpp libyaml-cpp-dev)
pdctl_require_config(fmt libfmt-dev)
pdctl_require_config(spdlog libspdlog-dev)
pdctl_require_config(nlohmann_json nlohmann-json3-dev)
pdctl_require_pkgconfig(LIBSSH2 libssh2 libssh2-1-dev)
# OpenSSL's libcrypto (libssh2's crypto backend): SHA-256 host-key fingerprints and the checksums of pushed files.
pdctl_require_pkgconfig(LIBCRYPTO libcrypto libssl-dev)
# Debian's cpp-httplib is a compiled library: its pkg-config flags (OpenSSL/zlib/brotli support)
# define the ABI, so they must reach every translation unit that includes httplib.h.
pdctl_require_pkgconfig(HTTPLIB cpp-httplib libcpp-httplib-dev)
# libcurl's multi interface: the load generator of `pdctl bench` holds hundreds of streams on one thread.
pdctl_require_pkgconfig(LIBCURL libcurl libcurl4-openssl-dev)

if(PDCTL_BUILD_TESTS)
    pdctl_require_config(GTest libgtest-dev)
endif()

# yaml-cpp 0.7 exports a plain `yaml-cpp` target; newer releases use `yaml-cpp::yaml-cpp`.
if(TARGET yaml-cpp::yaml-cpp)
    set(PDCTL_YAML_TARGET yaml-cpp::yaml-cpp)
else()
    set(PDCTL_YAML_TARGET yaml-cpp)
endif()
