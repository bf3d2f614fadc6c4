# shellcheck shell=sh
# shellcheck disable=SC2086 # `set -- $rest` splits the stat fields on purpose
# Piece: program_pid [PGID]: the lowest pid that is not a shell or an init (of the group PGID if
# given), i.e. the program a unit runs. Plain sh, no awk or cat: a slim image has only a shell. Each
# /proc/PID/stat is "PID (COMM) STATE PPID PGRP ...": COMM may hold blanks, so the fields are read after
# ") ". It sets the caller's positional parameters: call it in $( ).
# A process can exit between the glob and the read: it is skipped without a word. The 2>/dev/null
# comes before the < because redirections apply left to right, and the shell reports a failed
# `< FILE` on the stderr it has then. PDCTL_PROC_ROOT (tests only) stands in for /proc.
program_pid() {
  want=${1:-} best=
  for f in "${PDCTL_PROC_ROOT:-/proc}"/[0-9]*/stat; do
    IFS= read -r line 2>/dev/null < "$f" || continue
    pid=${line%% *} comm=${line#*(} rest=${line##*) }
    comm=${comm%)*}
    set -- $rest
    [ "$1" = Z ] && continue
    [ "$pid" = 1 ] && continue
    [ -n "$want" ] && [ "$3" != "$want" ] && continue
    case $comm in sh|dash|bash|tini|catatonit|docker-init) continue;; esac
    if [ -z "$best" ] || [ "$pid" -lt "$best" ]; then best=$pid; fi
  done
  [ -n "$best" ] && echo "$best"
}
