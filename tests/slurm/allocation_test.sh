#!/usr/bin/env bash
# `nodes: from-allocation` on the real SLURM test cluster (tests/slurm/cluster.sh up): the simulated PD
# deployment of tests/profiles/slurm-alloc run inside an allocation of all 8 nodes, each group a step:
#   1. start launches one step per group, in stage order, each after the previous stage's gate;
#   2. POST /generate through the router answers; status from another shell, which knows only
#      $SLURM_JOB_ID, says running with every group's step RUNNING;
#   3. stop leaves no step and no process of ours on any node, and the allocation itself to its owner;
#   4. a crash on prefill rank 2 fails the stage with rank 2's output, and nothing is left;
#   5. outside any allocation, pdctl says so at the config's `nodes:` line (exit 2);
#   6. in an allocation without the GPUs the groups ask for, start fails with srun's own words.
#   tests/slurm/allocation_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "${1:?usage: allocation_test.sh BUILD_DIR}")
source_dir=$(realpath "$(dirname "$0")/../..")
# shellcheck disable=SC1091
source /tmp/slurm-test-pds/env
pdctl=$build/pdctl
# The steps run pdsim from the PATH they inherit (the file system is shared).
export PATH=$build:$PATH
work=$(mktemp -d /tmp/pdctl-slurm-allocation.XXXXXX)
# shellcheck source=tests/slurm/lib.sh
source "$source_dir/tests/slurm/lib.sh"
allocation=
cleanup() {
  if [ -n "$allocation" ]; then
    for config in "$work"/*/pdctl.yaml; do
      [ -f "$config" ] && SLURM_JOB_ID=$allocation "$pdctl" -c "$config" stop >/dev/null 2>&1 || true
    done
    scancel "$allocation" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Running steps of this cluster's groups.
held() { squeue --noheader --steps --format='%i %j' | awk '$2 ~ /^pd-slurmalloc-/' || true; }
# pdctl as salloc's shell runs it: both variables set. (The test holds the allocation with --no-shell,
# so that a failing check cannot leave a shell waiting.)
in_allocation() { SLURM_JOB_ID=$allocation SLURM_JOB_NODELIST='pds[1-8]' "$pdctl" "$@"; }

[ -z "$(held)" ] || fail "steps of pd-slurmalloc are already running: $(held)"
record_baseline
allocation=$(salloc --no-shell --job-name=pdctl-allocation-test -N8 --nodelist='pds[1-8]' --gres=gpu:8 2>&1 |
  sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$allocation" ] || fail "salloc granted no allocation"

step "1. start: one step per group of allocation $allocation, in stage order, each after the previous gate"
config=$(copy_profile slurm-alloc ok)
in_allocation -c "$config" --json start >"$work/start.json" || fail "start exited $?: $(tail -5 "$work/start.json")"
assert_started_in_order "$work/start.json" "launched as a step of SLURM allocation $allocation"
steps=$(held | sort -t. -k2n | awk '{print $2}' | tr '\n' ' ')
[ "$steps" = "pd-slurmalloc-mooncake-master pd-slurmalloc-prefill pd-slurmalloc-decode pd-slurmalloc-router " ] ||
  fail "the running steps, by id, are not in stage order: $(held)"
held | grep -qv "^$allocation\." && fail "a step outside allocation $allocation: $(held)"

step "2. /generate through the router; status from a shell that knows only SLURM_JOB_ID"
assert_generates 10.66.0.5:31000
code=0
SLURM_JOB_ID=$allocation "$pdctl" -c "$config" --json status >"$work/status.json" || code=$?
[ "$code" -eq 0 ] || fail "status exited $code on a running deployment: $(cat "$work/status.json")"
assert_status_running "$work/status.json"
grep -q "\"step $allocation\.1 RUNNING\"" "$work/status.json" || fail "status does not name prefill's step"

step "3. stop: no step, no process left; the allocation stays its owner's"
in_allocation -c "$config" stop >"$work/stop.txt" || fail "stop exited $?: $(cat "$work/stop.txt")"
assert_nothing_left "stop"
[ "$(squeue --noheader --jobs="$allocation" --format=%T)" = RUNNING ] || fail "stop ended allocation $allocation"
code=0
in_allocation -c "$config" --json status >"$work/status.json" || code=$?
[ "$code" -eq 8 ] || fail "status after stop exited $code, not 8 (stopped)"

step "4. a crash on prefill rank 2 fails the stage with its output"
config=$(copy_profile slurm-alloc crash)
printf 'PDSIM_WEIGHTS_MS=2000\nPDSIM_CRASH_AT=weights\nPDSIM_CRASH_RANK=2\n' >>"$(dirname "$config")/prefill.env"
code=0
in_allocation -c "$config" start >"$work/crash.txt" 2>&1 || code=$?
[ "$code" -eq 4 ] || fail "start with a crashing rank exited $code, not 4 (stage failed): $(tail -5 "$work/crash.txt")"
grep -q 'prefill failed at .*: pds3 (10.66.0.3) rank2 exited (code 1)' "$work/crash.txt" ||
  fail "the failure does not name rank 2 on pds3: $(grep -m1 failed "$work/crash.txt")"
grep -q 'pdsim injected crash at weights' "$work/crash.txt" || fail "the tail is not rank 2's crash"
assert_nothing_left "the failed start's clean-up"

step "5. outside an allocation: one error at the nodes: line"
code=0
env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST "$pdctl" -c "$config" start >"$work/none.txt" 2>&1 || code=$?
[ "$code" -eq 2 ] || fail "start outside an allocation exited $code, not 2"
grep -q "pdctl.yaml:[0-9]*:8: error: nodes: .nodes: from-allocation.: this shell is in no SLURM allocation" \
  "$work/none.txt" || fail "the error does not name the nodes: line: $(cat "$work/none.txt")"

step "6. an allocation without GRES: start fails with what srun said"
scancel "$allocation"
allocation=$(salloc --no-shell --job-name=pdctl-allocation-test -N8 --nodelist='pds[1-8]' 2>&1 |
  sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$allocation" ] || fail "salloc granted no second allocation"
config=$(copy_profile slurm-alloc nogres)
code=0
in_allocation -c "$config" start >"$work/nogres.txt" 2>&1 || code=$?
[ "$code" -eq 4 ] || fail "start in an allocation without GRES exited $code, not 4: $(tail -5 "$work/nogres.txt")"
grep -q "SLURM: no step pd-slurmalloc-prefill in allocation $allocation" "$work/nogres.txt" ||
  fail "the failure does not name the missing step: $(grep -m1 failed "$work/nogres.txt")"
grep -q "srun: error: Unable to create step for job $allocation: Invalid generic resource" "$work/nogres.txt" ||
  fail "srun's error is not shown: $(cat "$work/nogres.txt")"
assert_nothing_left "the failed start's clean-up"
echo "PASS: SLURM allocation scenario (steps in order, /generate, status, stop, crash on rank 2, no allocation, no GRES)"
