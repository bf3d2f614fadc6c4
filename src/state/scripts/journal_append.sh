# shellcheck shell=sh
# journal_append.sh CLUSTER_DIR < LINES: one writer at a time, as mutating verbs append while they
# hold the deploy lock.
dir=$1
mkdir -p "$dir" || exit 1
cat >> "$dir/journal.jsonl"
