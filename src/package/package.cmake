# Installing pdctl, and the Debian package made from the install (cpack -G DEB in a build of the
# `package` preset; docs/packaging.md):
#   bin/pdctl                                   the deployer
#   libexec/pdctl/pdsim                         the simulator the embedded local cluster runs; only pdctl
#                                               needs it, so it stays off PATH (exec::local_tools_path)
#   share/man/man1/pdctl.1.gz                   help2man over --help and every verb's --help
#   share/bash-completion/completions/pdctl     from `pdctl completion bash`
#   share/doc/pdctl/                            README, docs/*.md, copyright, changelog.gz
#   /lib/systemd/system/pdctl-heal.{service,timer}  `pdctl heal` on a timer, disabled until an operator
#                                               enables it (no maintainer script does; docs/heal.md)
include(GNUInstallDirs)

install(TARGETS pdctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS pdsim RUNTIME DESTINATION ${PDCTL_PRIVATE_DIR})
# A stripped install (cpack with CPACK_STRIP_FILES, cmake --install --strip) also drops the compiler's
# .comment and .note sections, as dh_strip does.
install(CODE "
    if(CMAKE_INSTALL_DO_STRIP)
        foreach(program ${CMAKE_INSTALL_BINDIR}/pdctl ${PDCTL_PRIVATE_DIR}/pdsim)
            execute_process(COMMAND ${CMAKE_STRIP} --remove-section=.comment --remove-section=.note
                                    \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/\${program}
                            COMMAND_ERROR_IS_FATAL ANY)
        endforeach()
    endif()")

find_program(PDCTL_HELP2MAN help2man)
if(NOT PDCTL_HELP2MAN)
    message(STATUS "help2man not found: no man page (apt-get install help2man)")
endif()
set(package_dir ${CMAKE_BINARY_DIR}/package)
set(package_outputs ${package_dir}/pdctl.bash ${package_dir}/changelog.gz)
if(PDCTL_HELP2MAN)
    list(APPEND package_outputs ${package_dir}/pdctl.1.gz)
endif()
add_custom_command(
    OUTPUT ${package_outputs}
    COMMAND ${CMAKE_COMMAND} -DPDCTL=$<TARGET_FILE:pdctl> -DOUT=${package_dir}
            -DSOURCE=${CMAKE_CURRENT_LIST_DIR} -DHELP2MAN=${PDCTL_HELP2MAN}
            -P ${CMAKE_CURRENT_LIST_DIR}/package_files.cmake
    DEPENDS pdctl ${CMAKE_CURRENT_LIST_DIR}/package_files.cmake ${CMAKE_CURRENT_LIST_DIR}/pdctl.h2m
            ${CMAKE_CURRENT_LIST_DIR}/changelog
    COMMENT "Man page, bash completion and changelog for the package"
    VERBATIM)
add_custom_target(pdctl_package_files ALL DEPENDS ${package_outputs})

if(PDCTL_HELP2MAN)
    install(FILES ${package_dir}/pdctl.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES ${package_dir}/pdctl.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME pdctl)
# Debian 12 units live in /lib/systemd/system (dh_installsystemd's place); nothing enables them.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/systemd/pdctl-heal.service ${CMAKE_CURRENT_LIST_DIR}/systemd/pdctl-heal.timer
        DESTINATION /lib/systemd/system)
file(GLOB pdctl_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${pdctl_docs} ${CMAKE_CURRENT_LIST_DIR}/copyright
              ${package_dir}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The package. Version as the project's: a native package (no Debian revision), hence changelog.gz.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pdctl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # pdctl_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # Depends: from dpkg-shlibdeps over the installed binaries
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openssh-client")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
if(NOT CPACK_DEBIAN_PACKAGE_MAINTAINER)
    set(CPACK_DEBIAN_PACKAGE_MAINTAINER "pdctl developers <pdctl@example.org>")
endif()
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "deployer for prefill/decode-disaggregated LLM serving")
# Lines under 80 columns with the space dpkg puts before each (lintian).
set(CPACK_PACKAGE_DESCRIPTION
    "pdctl starts a prefill/decode-disaggregated SGLang deployment from one\n"
    "cluster file: the Mooncake master, the prefill groups, the decode groups\n"
    "and the router, in that order over SSH (in Docker or Podman), with an HTTP\n"
    "health gate after each stage, and stops them in reverse order. Also:\n"
    "preflight and doctor checks, file push, image pull, logs, status, an\n"
    "end-to-end smoke request, a dry-run plan and start-up timelines.\n"
    "\n"
    "It keeps no daemon. A simulated local cluster is built in (pdsim), so it\n"
    "runs without GPUs.")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
include(CPack)
