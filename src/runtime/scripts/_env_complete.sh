# shellcheck shell=sh
# Piece: env_complete FILE UNIT, and env_ended LAST_LINE FILE UNIT for a caller that has the file's last
# line already. The env file arrives on stdin and ends with runtime.hpp's kEnvEndMarker; a pdctl that
# dies while sending it closes stdin early, and a unit started from half an environment would run with
# defaults nobody chose: the file goes and nothing starts.
env_ended() { [ "$1" = '# pdctl: end of environment' ] || { rm -f "$2"; echo "pdctl: the environment for $3 arrived incomplete (its sender went away); nothing started" >&2; exit 1; }; }
env_complete() { env_ended "$(tail -n 1 "$1")" "$1" "$2"; }
