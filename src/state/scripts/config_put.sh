# shellcheck shell=sh
# config_put.sh CLUSTER_DIR ID < DOCUMENT: keeps one run's config as CLUSTER_DIR/configs/ID.json, where
# ID is the document's sha256: a config that ran before is already there and is left as it is. Readable
# by its owner only, as the env files on the nodes: a config holds its secrets. A rename, so a reader
# sees a whole document or none.
dir=$1/configs id=$2
umask 077
mkdir -p "$dir" || exit 1
if [ -s "$dir/$id.json" ]; then
  cat > /dev/null
  exit 0
fi
cat > "$dir/$id.json.new" && mv -f "$dir/$id.json.new" "$dir/$id.json"
