# shellcheck shell=sh
# foreign_stop.sh DIR GRACE container CLI ID NAME | foreign_stop.sh DIR GRACE process PID
# `pdctl start --take-over`: stops a container or process that pdctl did not start but that holds what
# its units need. A container is stopped, not removed: `CLI start NAME` (or the old script) brings it
# back, and its log is kept first as DIR/previous/takeover-NAME.log. A process gets SIGTERM, then
# SIGKILL after GRACE seconds. Exit 70, naming it, when it is still there.
. ./_alive.sh
. ./_keep_log.sh
dir=$1 grace=$2 kind=$3; shift 3
case $kind in
  container)
    cli=$1 id=$2 name=$3
    "$cli" logs --tail 200000 "$id" 2>&1 | keep_log "$dir" "takeover-$name"
    if ! err=$("$cli" stop -t "$grace" "$id" 2>&1 >/dev/null); then
      echo "pdctl: $cli stop -t $grace $name failed: $err" >&2; exit 70
    fi
    if [ "$("$cli" inspect --format '{{.State.Running}}' "$id" 2>/dev/null)" = true ]; then
      echo "pdctl: container $name still runs after $cli stop -t $grace" >&2; exit 70
    fi
    echo "stopped container $name (kept, not removed: $cli start $name brings it back)"
    ;;
  process)
    pid=$1
    if ! alive "$pid"; then echo "process $pid had already exited"; exit 0; fi
    kill -TERM "$pid" 2>/dev/null
    i=0
    while alive "$pid" && [ "$i" -lt "$((grace * 10))" ]; do sleep 0.1; i=$((i + 1)); done
    if alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null
      i=0
      while alive "$pid" && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    fi
    if alive "$pid"; then echo "pdctl: process $pid still runs after SIGTERM, ${grace}s and SIGKILL" >&2; exit 70; fi
    echo "stopped process $pid"
    ;;
  *)
    echo "pdctl: foreign_stop.sh: unknown kind $kind" >&2; exit 2
    ;;
esac
