#!/usr/bin/env bash
# The plan of tests/profiles/slurm against the real scheduler: every group's planned sbatch line, as
# `pdctl plan --json` gives it, is accepted by `sbatch --test-only` (options, partition, gres, node
# list), which places it on exactly the group's configured nodes, and submits nothing.
#   tests/slurm/plan_test.sh BUILD_DIR        (the cluster of tests/slurm/cluster.sh up)
set -euo pipefail
build=$(realpath "${1:?usage: plan_test.sh BUILD_DIR}")
source_dir=$(realpath "$(dirname "$0")/../..")
# shellcheck disable=SC1091
source /tmp/slurm-test-pds/env
work=$(mktemp -d /tmp/pdctl-slurm-plan.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$build/pdctl" -c "$source_dir/tests/profiles/slurm/pdctl.yaml" --json plan start >"$work/plan.json"
groups=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["stages"]))' "$work/plan.json")
[ "$groups" -eq 4 ] || fail "expected 4 groups in the plan, got $groups"
# The job IDs the controller knows of; a finished job may age out meanwhile (MinJobAge), so what counts
# is an ID that was not there before.
job_ids() { squeue --noheader --states=all --format=%i | sort; }
job_ids >"$work/before"
for i in $(seq 0 $((groups - 1))); do
  # The argv (NUL-separated), the job script, and the group's nodes in rank order.
  python3 - "$work/plan.json" "$i" "$work" <<'PY'
import json, sys
stage = json.load(open(sys.argv[1]))["stages"][int(sys.argv[2])]
job = stage["slurm"]
work = sys.argv[3]
argv = job["submit"]["argv"]
# The script is the last word: test it from the work directory.
argv[-1] = work + "/job.sh"
open(work + "/job.sh", "w").write(job["job_script"])
open(work + "/argv", "w").write("\0".join(argv[1:]))
open(work + "/role", "w").write(stage["role"])
open(work + "/nodes", "w").write(",".join(job["nodes"]))
PY
  role=$(cat "$work/role")
  mapfile -d '' args <"$work/argv"
  answer=$(sbatch --test-only "${args[@]}" 2>&1) || fail "$role: sbatch --test-only refused the planned line: $answer"
  expected=$(scontrol show hostlist "$(cat "$work/nodes")")
  [[ $answer == *"to start at"* && $answer == *"on nodes $expected "* ]] ||
    fail "$role: expected a start on nodes $expected, got: $answer"
  echo "ok: $role: $answer"
done
job_ids >"$work/after"
submitted=$(comm -13 "$work/before" "$work/after" | tr '\n' ' ')
[ -z "$submitted" ] || fail "sbatch --test-only submitted something: job(s) $submitted"
