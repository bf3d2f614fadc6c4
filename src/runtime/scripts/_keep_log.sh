# shellcheck shell=sh
# Piece (read in by the start and stop scripts):
#   keep_log DIR UNIT LOG     (or: keep_log DIR UNIT < LOG, for a log that is a stream)
#                             keeps a unit's log before pdctl removes or overwrites it: the last 16 MiB
#                             as DIR/previous/UNIT.log (what `pdctl logs --previous` reads), the two
#                             before it as .1 and .2. An empty log keeps what was kept. Given the log's
#                             file, the copy keeps its time of last write: when the unit last said
#                             something (a crash's last line), not when it was stopped. Never fails the
#                             stop or start around it: evidence is worth keeping, not worth a failed stop.
keep_log() {
  kept="$1/previous/$2.log"
  [ -d "$1/previous" ] || mkdir -p "$1/previous" 2>/dev/null || return 0
  if [ -n "${3:-}" ]; then
    tail -c 16777216 -- "$3" > "$kept.new" 2>/dev/null || { rm -f "$kept.new"; return 0; }
  else
    tail -c 16777216 > "$kept.new" 2>/dev/null || { rm -f "$kept.new"; return 0; }
  fi
  if [ ! -s "$kept.new" ]; then rm -f "$kept.new"; return 0; fi
  if [ -f "$kept.1" ]; then mv -f "$kept.1" "$kept.2"; fi
  if [ -f "$kept" ]; then mv -f "$kept" "$kept.1"; fi
  mv -f "$kept.new" "$kept"
  if [ -n "${3:-}" ]; then touch -r "$3" "$kept" 2>/dev/null || :; fi
}
