# cmake -P script, run at build time once pdctl is built: the files the package installs beside the
# binaries, written from the binary itself so they cannot drift from it.
#   -DPDCTL=<built pdctl> -DOUT=<dir> -DSOURCE=<src/package> [-DHELP2MAN=<help2man>]
# Writes OUT/pdctl.bash (bash completion), OUT/changelog.gz and, with help2man, OUT/pdctl.1.gz: the
# --help page plus a VERBS section with every verb's own --help.
cmake_minimum_required(VERSION 3.25)

# No colour, whatever the terminal the build runs in.
set(ENV{NO_COLOR} 1)
# help2man writes what it cannot encode in the locale as "?" (the help has arrows and dashes): it
# gets --locale too.
set(ENV{LC_ALL} C.UTF-8)

function(run_pdctl out_var)
    execute_process(COMMAND ${PDCTL} ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE code)
    if(NOT code EQUAL 0)
        message(FATAL_ERROR "pdctl ${ARGN}: exit ${code}")
    endif()
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# The names under "Subcommands:" in a --help text.
function(subcommands_of help out_var)
    string(REGEX MATCH "\nSubcommands:\n(  [^\n]*\n)+" block "${help}")
    string(REGEX MATCHALL "\n  [a-z][a-z-]*" names "${block}")
    list(TRANSFORM names STRIP)
    set(${out_var} ${names} PARENT_SCOPE)
endfunction()

# A --help text as roff between .nf and .fi: backslashes and minus signs escaped, no line taken for a
# request, and the exit-code footer (the EXIT STATUS section has it once) cut off.
function(as_roff help out_var)
    string(FIND "${help}" "\nExit codes:\n" footer)
    if(footer GREATER -1)
        string(SUBSTRING "${help}" 0 ${footer} help)
    endif()
    string(REPLACE "\\" "\\e" help "${help}")
    string(REPLACE "-" "\\-" help "${help}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
    set(${out_var} ".nf\n${help}\n.fi\n" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${OUT})

run_pdctl(script completion bash)
file(WRITE ${OUT}/pdctl.bash "${script}")

# Reproducible gzip (-n: no name or time stamp), as Debian wants for changelogs and man pages.
function(gzip_file input output)
    execute_process(COMMAND gzip -9nc ${input} OUTPUT_FILE ${output} RESULT_VARIABLE code)
    if(NOT code EQUAL 0)
        message(FATAL_ERROR "gzip ${input}: exit ${code}")
    endif()
endfunction()
gzip_file(${SOURCE}/changelog ${OUT}/changelog.gz)

if(NOT HELP2MAN)
    return()
endif()
run_pdctl(main_help --help)
subcommands_of("${main_help}" verbs)
set(verbs_roff "")
foreach(verb IN LISTS verbs)
    run_pdctl(help ${verb} --help)
    as_roff("${help}" roff)
    string(APPEND verbs_roff ".SS \"pdctl ${verb}\"\n${roff}")
    subcommands_of("${help}" subs)
    foreach(sub IN LISTS subs)
        run_pdctl(sub_help ${verb} ${sub} --help)
        as_roff("${sub_help}" roff)
        string(APPEND verbs_roff ".SS \"pdctl ${verb} ${sub}\"\n${roff}")
    endforeach()
endforeach()
file(READ ${SOURCE}/pdctl.h2m static)
file(WRITE ${OUT}/pdctl.h2m "${static}\n[VERBS]\n${verbs_roff}")
execute_process(COMMAND ${HELP2MAN} --no-info --locale C.UTF-8 --section 1 --source "pdctl"
                        --name "deploy prefill/decode-disaggregated LLM serving over SSH"
                        --include ${OUT}/pdctl.h2m --output ${OUT}/pdctl.1 ${PDCTL}
                RESULT_VARIABLE code)
if(NOT code EQUAL 0)
    message(FATAL_ERROR "help2man: exit ${code}")
endif()
gzip_file(${OUT}/pdctl.1 ${OUT}/pdctl.1.gz)
