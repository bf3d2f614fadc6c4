# pdctl_embed_scripts(LAYER), called by pdctl_layer() for every layer with a scripts/ folder: the shell
# scripts pdctl runs on nodes, src/LAYER/scripts/*.sh, as string constants of the layer's sources:
#     #include "embedded/LAYER_scripts.hpp"
#     pdctl::LAYER::scripts::process_stop   // from src/LAYER/scripts/process_stop.sh
#
# The scripts live in .sh files so that shellcheck reads them (tests/analysis/shellcheck.sh) and an
# editor highlights them; what runs on the node stays fixed text, every value a positional parameter.
# Two rules make a file into the text that is sent:
#   - the lines at the top that start with '#' (shebang, shellcheck directives, what the script does
#     and its parameters) are the file's header, not sent: the node sees only the commands;
#   - a line `. ./NAME.sh` is replaced by NAME.sh's text: shared functions are written once and
#     sent inside each script that needs them. A file whose name starts with '_' is such a piece
#     only, never run on its own.
# Every script but the pieces is also written out whole, as sent, for shellcheck:
# build/generated/scripts/LAYER/sh/NAME.sh, headed by the `# shellcheck disable=` lines of its own header
# and of the pieces it reads in (each with its reason).
#
# It runs at configure time, so that a configure-only tree (clang-tidy's) has the header too; editing
# a script re-runs the configure on the next build.

# The text of SCRIPT_DIR/NAME as sent, into OUT_VAR; into OUT_VAR_directives, the `# shellcheck
# disable=` lines of its header and of every piece it reads in (for the whole script: each says why).
function(pdctl_script_text script_dir name out_var)
    file(READ ${script_dir}/${name} content)
    if(NOT content MATCHES "\n$")
        message(FATAL_ERROR "${script_dir}/${name}: the last line has no newline")
    endif()
    set(directives "")
    if(content MATCHES "^(#[^\n]*\n)+")
        string(REGEX MATCHALL "# shellcheck disable=[^\n]*\n" directives "${CMAKE_MATCH_0}")
        string(REPLACE ";" "" directives "${directives}")
    endif()
    string(REGEX REPLACE "^(#[^\n]*\n)+" "" content "${content}")
    # A newline before the text, so that a piece on the first line is matched like any other.
    set(content "\n${content}")
    # One piece at a time: two on consecutive lines share the newline between them.
    while(content MATCHES "\n\\. \\./([A-Za-z0-9_]+\\.sh)\n")
        set(line "${CMAKE_MATCH_0}")
        set(piece "${CMAKE_MATCH_1}")
        if(NOT EXISTS ${script_dir}/${piece})
            message(FATAL_ERROR "${script_dir}/${name}: no ${piece} beside it to read in")
        endif()
        pdctl_script_text(${script_dir} ${piece} piece_text)
        string(REPLACE "${line}" "\n${piece_text}" content "${content}")
        string(APPEND directives "${piece_text_directives}")
    endwhile()
    string(SUBSTRING "${content}" 1 -1 content)
    set(${out_var} "${content}" PARENT_SCOPE)
    set(${out_var}_directives "${directives}" PARENT_SCOPE)
endfunction()

function(pdctl_embed_scripts layer)
    set(script_dir ${PROJECT_SOURCE_DIR}/src/${layer}/scripts)
    set(root ${CMAKE_BINARY_DIR}/generated/scripts/${layer})
    file(GLOB names RELATIVE ${script_dir} CONFIGURE_DEPENDS ${script_dir}/*.sh)
    list(SORT names)
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 ${PROJECT_SOURCE_DIR}/src/embed_scripts.cmake)
    set(out "// Generated from src/${layer}/scripts/*.sh by src/embed_scripts.cmake. Do not edit.\n")
    string(APPEND out "#pragma once\n\n#include <string_view>\n\nnamespace pdctl::${layer}::scripts {\n\n")
    file(REMOVE_RECURSE ${root}/sh)  # a script deleted from src/ must not stay to be checked
    foreach(name IN LISTS names)
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${script_dir}/${name})
        pdctl_script_text(${script_dir} ${name} text)
        if(text MATCHES "\\)pdctl_sh\"")
            message(FATAL_ERROR "${script_dir}/${name}: holds the text that ends the C++ raw string")
        endif()
        string(REGEX REPLACE "\\.sh$" "" constant ${name})
        string(REGEX REPLACE "^_" "" constant ${constant})
        string(APPEND out "inline constexpr std::string_view ${constant} = R\"pdctl_sh(${text})pdctl_sh\";\n")
        if(NOT name MATCHES "^_")
            file(WRITE ${root}/sh/${name} "#!/bin/sh\n${text_directives}# Generated from src/${layer}/scripts/${name}: the text sent to the node.\n${text}")
        endif()
    endforeach()
    string(APPEND out "\n}  // namespace pdctl::${layer}::scripts\n")
    file(WRITE ${root}/include/embedded/${layer}_scripts.hpp.tmp "${out}")
    file(COPY_FILE ${root}/include/embedded/${layer}_scripts.hpp.tmp ${root}/include/embedded/${layer}_scripts.hpp
         ONLY_IF_DIFFERENT)
    target_include_directories(pdctl_${layer} PRIVATE ${root}/include)
endfunction()
