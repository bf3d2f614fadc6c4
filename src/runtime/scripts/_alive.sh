# shellcheck shell=sh
# Piece (read in by the process scripts):
#   alive PID            the process exists and is not a zombie (PID 1 on some hosts never reaps).
#   group_alive PGID     a live (non-zombie) process is still in the group. First its leader, one file:
#                        the unit's supervising sh leads the group and lives as long as the program, so
#                        a running unit costs one read (status on 64 nodes sharing two cores read every
#                        process's stat file per unit before). Only when the leader is gone, a zombie or
#                        its pid now another group's, one awk over /proc/*/stat: the fields after
#                        "(comm) " are state, ppid, pgrp. `cat` reads the files, not awk: a process that
#                        exits between the glob and the read makes mawk abort (and the group look dead),
#                        cat goes on.
#   group_members PGID   "pid (comm, state S), ..." of the group's live processes, for error messages.
alive() { kill -0 "$1" 2>/dev/null && [ "$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
group_alive() {
  if IFS= read -r line 2>/dev/null < "/proc/$1/stat"; then
    # shellcheck disable=SC2086 # split the fields after "(comm) " on purpose: state ppid pgrp ...
    set -- "$1" ${line##*) }
    [ "$2" != Z ] && [ "$4" = "$1" ] && return 0
  fi
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v g="$1" '{ sub(/.*\) /, ""); if ($3 == g && $1 != "Z") f = 1 } END { exit !f }'
}
group_members() { cat /proc/[0-9]*/stat 2>/dev/null | awk -v g="$1" '{ pid = $1; comm = $0; sub(/^[^(]*\(/, "", comm); sub(/\) [^)]*$/, "", comm); sub(/.*\) /, ""); if ($3 == g && $1 != "Z") { printf "%s%s (%s, state %s)", sep, pid, comm, $1; sep = ", " } }'; }
