# shellcheck shell=sh
# bootstrap.sh BOOTSTRAP PROGRAM [ARG...]: runs the role's BOOTSTRAP (shell text from the operator's
# env file: installs, patches, exports) and then PROGRAM in its place. A BOOTSTRAP that fails, or does
# not parse, stops the unit with exit 97 instead of starting a server on a half-prepared node. It runs
# in this shell (eval, not a subshell), so what it exports reaches the server; `command` keeps a
# syntax error in it from ending this shell before it can say so (POSIX: a special built-in's error).
bootstrap=$1
shift
command eval "$bootstrap" || { echo "pdctl: BOOTSTRAP failed (exit $?)" >&2; exit 97; }
exec "$@"
