#!/usr/bin/env bash
# The simulated PD deployment of tests/profiles/slurm run by pdctl on the real SLURM test cluster
# (tests/slurm/cluster.sh up), as issue 17 asks:
#   1. start submits one job per group in stage order, each after the previous stage's gate passed;
#   2. POST /generate through the router answers; status (a second pdctl process) says running, with
#      every group's job RUNNING in SLURM; exec and stack reach the nodes inside the jobs;
#   3. stop leaves no job that holds a node and no process of ours in any node's namespace;
#   4. a crash on prefill rank 2 fails the stage with rank 2's output, and nothing is left;
#   5. a node drained in SLURM makes start say which node and why, and submit nothing.
#   tests/slurm/scenario_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "${1:?usage: scenario_test.sh BUILD_DIR}")
source_dir=$(realpath "$(dirname "$0")/../..")
# shellcheck disable=SC1091
source /tmp/slurm-test-pds/env
pdctl=$build/pdctl
work=$(mktemp -d /tmp/pdctl-slurm-scenario.XXXXXX)
# shellcheck source=tests/slurm/lib.sh
source "$source_dir/tests/slurm/lib.sh"
drained=
cleanup() {
  [ -z "$drained" ] || scontrol update nodename="$drained" state=resume 2>/dev/null || true
  for config in "$work"/*/pdctl.yaml; do
    [ -f "$config" ] && "$pdctl" -c "$config" stop >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Jobs of this cluster that still hold (or wait for) nodes: any state but the final ones.
held() {
  squeue --noheader --states=all --format='%j %i %T' | awk '$1 ~ /^pd-slurmpd-/ &&
    $3 !~ /^(COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE)$/'
}

[ -z "$(held)" ] || fail "jobs of pd-slurmpd are already queued: $(held)"
record_baseline

step "1. start: one job per group, in stage order, each after the previous stage's gate"
config=$(copy_profile slurm ok)
"$pdctl" -c "$config" --json start >"$work/start.json" || fail "start exited $?: $(tail -5 "$work/start.json")"
assert_started_in_order "$work/start.json" "submitted as SLURM job"
ids=$(squeue --noheader --states=all --format='%j %i %T' | awk '$1 ~ /^pd-slurmpd-/ && $3 == "RUNNING"' | sort -k2n)
[ "$(echo "$ids" | awk '{print $1}' | tr '\n' ' ')" = \
  "pd-slurmpd-mooncake-master pd-slurmpd-prefill pd-slurmpd-decode pd-slurmpd-router " ] ||
  fail "the running jobs, by id, are not in stage order: $ids"

step "2. /generate through the router; status running"
assert_generates 10.66.0.5:31000
code=0
"$pdctl" -c "$config" --json status >"$work/status.json" || code=$?
[ "$code" -eq 0 ] || fail "status exited $code on a running deployment: $(cat "$work/status.json")"
assert_status_running "$work/status.json"
"$pdctl" -c "$config" logs prefill --rank 2 --tail 5 | grep -q 'fired up\|Dummy health check server' ||
  fail "logs prefill --rank 2 does not show rank 2's log"

step "2b. exec and stack reach a node inside the deployment's jobs (srun --overlap)"
out=$("$pdctl" -c "$config" exec --node pds3 -- printenv SLURMD_NODENAME 2>&1) || fail "exec exited $?: $out"
echo "$out" | grep -q 'pds3' || fail "exec did not run on pds3: $out"
out=$("$pdctl" -c "$config" --json stack --role prefill 2>&1) || fail "stack exited $?: $out"
python3 -c '
import json, sys
ranks = {(d["node"], d["rank"]) for s in json.load(open(sys.argv[1]))["stages"] for d in s["ranks"]
         if d["ok"] and d["threads"]}
assert ranks == {("pds1", 0), ("pds2", 1), ("pds3", 2), ("pds4", 3)}, ranks
' <(echo "$out") || fail "stack did not dump every prefill rank on its node: $out"

step "3. stop: no job, no process left"
"$pdctl" -c "$config" stop >"$work/stop.txt" || fail "stop exited $?: $(cat "$work/stop.txt")"
assert_nothing_left "stop"
code=0
"$pdctl" -c "$config" --json status >"$work/status.json" || code=$?
[ "$code" -eq 8 ] || fail "status after stop exited $code, not 8 (stopped)"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["state"]; assert s == "stopped", s' "$work/status.json" ||
  fail "status after stop is not stopped"

step "4. a crash on prefill rank 2 fails the stage with its output"
config=$(copy_profile slurm crash)
printf 'PDSIM_WEIGHTS_MS=2000\nPDSIM_CRASH_AT=weights\nPDSIM_CRASH_RANK=2\n' >>"$(dirname "$config")/prefill.env"
code=0
"$pdctl" -c "$config" start >"$work/crash.txt" 2>&1 || code=$?
[ "$code" -eq 4 ] || fail "start with a crashing rank exited $code, not 4 (stage failed): $(tail -5 "$work/crash.txt")"
grep -q 'prefill failed at .*: pds3 (10.66.0.3) rank2 exited (code 1); SLURM: job [0-9]* [A-Z]' "$work/crash.txt" ||
  fail "the failure does not name rank 2 on pds3 and its job: $(grep -m1 failed "$work/crash.txt")"
grep -q 'last lines from pds3:' "$work/crash.txt" || fail "no output tail from pds3"
grep -q 'pdsim injected crash at weights' "$work/crash.txt" || fail "the tail is not rank 2's crash"
assert_nothing_left "the failed start's clean-up"

step "5. a drained node is refused before anything is submitted"
config=$(copy_profile slurm drained)
drained=pds6
scontrol update nodename=pds6 state=drain reason="bad HCA mlx5_2"
before=$(squeue --noheader --states=all | wc -l)
code=0
"$pdctl" -c "$config" start >"$work/drained.txt" 2>&1 || code=$?
[ "$code" -eq 10 ] || fail "start with a drained node exited $code, not 10 (node check failed)"
grep -q 'SLURM001 pds6: drained in SLURM (reason: bad HCA mlx5_2)' "$work/drained.txt" ||
  fail "the refusal does not name pds6 and the reason: $(tail -2 "$work/drained.txt")"
[ "$(squeue --noheader --states=all | wc -l)" -eq "$before" ] || fail "a job was submitted anyway"
scontrol update nodename=pds6 state=resume
drained=
echo "PASS: SLURM scenario (start in order, /generate, status, exec, stack, stop, crash on rank 2, drained node)"
