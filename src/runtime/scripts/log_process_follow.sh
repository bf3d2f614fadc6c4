# shellcheck shell=sh
# log_process_follow.sh FILE OFFSET MAX: what the log gained after OFFSET, at most MAX bytes. The
# log is rewritten from the start when the unit starts again: a file shorter than the offset.
f=$1 offset=$2 max=$3
size=$(wc -c 2>/dev/null < "$f") || size=0
if [ "$size" -lt "$offset" ]; then offset=0; echo pdctl-log-restarted; fi
end=$size
if [ $((end - offset)) -gt "$max" ]; then end=$((offset + max)); fi
echo "pdctl-log-offset=$end"
if [ "$end" -gt "$offset" ]; then tail -c +$((offset + 1)) "$f" | head -c $((end - offset)); fi
