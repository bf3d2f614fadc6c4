# shellcheck shell=sh
# journal_read.sh CLUSTER_DIR MAX_BYTES: the journal's last MAX_BYTES.
f=$1/journal.jsonl bytes=$2
[ -f "$f" ] || exit 0
tail -c "$bytes" "$f"
