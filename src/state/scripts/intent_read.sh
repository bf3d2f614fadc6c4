# shellcheck shell=sh
# intent_read.sh CLUSTER_DIR: intent.json, or nothing when no operator has stopped or paused anything.
f=$1/intent.json
[ -f "$f" ] || exit 0
cat "$f"
