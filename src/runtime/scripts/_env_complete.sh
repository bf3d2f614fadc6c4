# shellcheck shell=sh
# Piece: env_complete FILE UNIT. The env file arrives on stdin and ends with runtime.hpp's
# kEnvEndMarker; a pdctl that dies while sending it closes stdin early, and a unit started from half an
# environment would run with defaults nobody chose: the file goes and nothing starts.
env_complete() { [ "$(tail -n 1 "$1")" = '# pdctl: end of environment' ] || { rm -f "$1"; echo "pdctl: the environment for $2 arrived incomplete (its sender went away); nothing started" >&2; exit 1; }; }
