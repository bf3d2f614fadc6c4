# shellcheck shell=sh
# intent_write.sh CLUSTER_DIR < DOCUMENT: replaces intent.json whole (a rename, so a reader sees the old
# document or the new one, never half of one). Run under the deploy lock.
dir=$1
mkdir -p "$dir" || exit 1
cat > "$dir/intent.json.new" && mv -f "$dir/intent.json.new" "$dir/intent.json"
