# shellcheck shell=sh
# log_process_read.sh FILE TAIL CURSOR MODE VALUE
# Filters a process log by the node's clock. The cutoff is computed on the node (relative --since), so a
# skewed or differently zoned operator machine changes nothing. Lines before the first stamp are held
# until it shows their age; a file without any stamp goes by its modification time. glog stamps have no
# year: this year's, or last year's if that would put the line in the future.
f=$1 tail=$2 cursor=$3 mode=$4 value=$5
if [ ! -f "$f" ]; then echo "pdctl: no log file $f on this node" >&2; exit 1; fi
size=$(wc -c < "$f")
if [ "$cursor" = 1 ]; then echo "pdctl-log-offset=$size"; fi
cutoff=
case $mode in
  ago) cutoff=$(date -d "@$(( $(date +%s) - value ))" '+%Y-%m-%d %H:%M:%S') || exit 1 ;;
  at) cutoff=$value ;;
esac
changed=$(date -r "$f" '+%Y-%m-%d %H:%M:%S') now=$(date '+%Y-%m-%d %H:%M:%S')
head -c "$size" "$f" | awk -v cutoff="$cutoff" -v changed="$changed" -v now="$now" '
function stamp(line,  s) {
  if (line ~ /^\[[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]/)
    return substr(line, 2, 19)
  if (line ~ /^[IWEF][0-9][0-9][0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]/) {
    s = "-" substr(line, 2, 2) "-" substr(line, 4, 2) " " substr(line, 7, 8)
    if (substr(now, 1, 4) s > now) return (substr(now, 1, 4) - 1) s
    return substr(now, 1, 4) s
  }
  return ""
}
cutoff == "" { print; next }
{
  s = stamp($0)
  if (s != "") {
    current = s
    if (n > 0 && s >= cutoff) for (i = 1; i <= n; i++) print held[i]
    n = 0
  }
  if (current == "") { held[++n] = $0; next }
  if (current >= cutoff) print
}
END { if (current == "" && changed >= cutoff) for (i = 1; i <= n; i++) print held[i] }
' | if [ "$tail" -ge 0 ]; then tail -n "$tail"; else cat; fi
