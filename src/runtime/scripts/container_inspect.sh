# shellcheck shell=sh
# shellcheck disable=SC2086 # $ids splits on purpose: one argument per container id
# container_inspect.sh CLI CLUSTER
# One block per unit, as key=value lines like the process runtime prints, so one parser reads both.
# Fields docker and podman both have. They differ in .Name (docker's starts with '/', removed here) and
# in the format of .State.StartedAt (parse_utc_timestamp reads both). pdctl.gated-launch: the ports of a
# gated start (plan/gated_launch.hpp), empty for the others. pdctl.config comes last: it ends a block.
cli=$1 cluster=$2
ids=$("$cli" ps -aq --filter "label=pdctl.cluster=$cluster") || exit 1
[ -n "$ids" ] || exit 0
now=$(date +%s)
"$cli" container inspect --format 'unit={{.Name}}
state={{.State.Status}}
pid={{.State.Pid}}
exit_code={{.State.ExitCode}}
started_at={{.State.StartedAt}}
finished_at={{.State.FinishedAt}}
image_id={{.Image}}
pdctl.cluster={{index .Config.Labels "pdctl.cluster"}}
pdctl.role={{index .Config.Labels "pdctl.role"}}
pdctl.rank={{index .Config.Labels "pdctl.rank"}}
pdctl.node={{index .Config.Labels "pdctl.node"}}
pdctl.gated-launch={{index .Config.Labels "pdctl.gated-launch"}}
pdctl.config={{index .Config.Labels "pdctl.config"}}
' $ids | while IFS= read -r line; do
  case $line in unit=/*) line=unit=${line#unit=/};; esac
  printf '%s\n' "$line"
  case $line in pdctl.config=*) printf 'now=%s\n\n' "$now";; esac
done
