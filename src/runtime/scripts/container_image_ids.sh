# shellcheck shell=sh
# container_image_ids.sh CLI IMAGE...: one `IMAGE ID` line per image, ID `-` when the node has no such
# image: what a start there would run now, against the ID a running container was started from.
cli=$1
shift
for image do
  id=$("$cli" image inspect --format '{{.Id}}' "$image" 2>/dev/null) || id=-
  printf '%s %s\n' "$image" "${id:--}"
done
