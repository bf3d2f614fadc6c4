#!/usr/bin/env bash
# The simulated PD deployment of tests/profiles/slurm run by pdctl on the real SLURM test cluster
# (tests/slurm/cluster.sh up), as issue 17 asks:
#   1. start submits one job per group in stage order, each after the previous stage's gate passed;
#   2. POST /generate through the router answers; status (a second pdctl process) says running, with
#      every group's job RUNNING in SLURM;
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
drained=
cleanup() {
  [ -z "$drained" ] || scontrol update nodename="$drained" state=resume 2>/dev/null || true
  for config in "$work"/*/pdctl.yaml; do
    [ -f "$config" ] && "$pdctl" -c "$config" stop >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
step() { echo "== $*"; }

# A copy of the profile with its own state directory (history, journal, the jobs' files): nothing
# from an earlier run teaches this one a deadline or leaves it a file.
copy_profile() {  # copy_profile NAME -> prints the config path
  local dir=$work/$1
  cp -r "$source_dir/tests/profiles/slurm" "$dir"
  sed -i "s|^state_dir: .*|state_dir: $dir/state|" "$dir/pdctl.yaml"
  echo "$dir/pdctl.yaml"
}

# Jobs of this cluster that still hold (or wait for) nodes: any state but the final ones.
held_jobs() {
  squeue --noheader --states=all --format='%j %i %T' | awk '$1 ~ /^pd-slurmpd-/ &&
    $3 !~ /^(COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE)$/'
}

# Live processes in the nodes' network namespaces that were not there before the run (the harness's
# unshare, bash and slurmd were). Zombies are not live: PID 1 here does not reap orphans.
baseline=$work/baseline
node_processes() {
  for ns in $(ip netns list | awk '/^pds[0-9]+/ {print $1}'); do
    for pid in $(ip netns pids "$ns"); do
      stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
      state=${stat##*) }
      [ "${state%% *}" = Z ] && continue
      echo "$ns $pid $(cat "/proc/$pid/comm" 2>/dev/null)"
    done
  done | sort
}
new_processes() { comm -13 "$baseline" <(node_processes); }

# After a stop: SLURM holds no job of ours, and nothing of ours runs on a node. slurmstepd, SLURM's own
# step daemon, reports the step's end before it exits: it is given a bounded moment to go.
assert_nothing_left() {  # assert_nothing_left WHAT
  local jobs left deadline=$((SECONDS + 10))
  jobs=$(held_jobs)
  [ -z "$jobs" ] || fail "$1: SLURM still holds: $jobs"
  left=$(new_processes | grep -v ' slurmstepd$' || true)
  [ -z "$left" ] || fail "$1: processes left in the node namespaces: $left"
  while left=$(new_processes) && [ -n "$left" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  [ -z "$left" ] || fail "$1: slurmstepd still on the nodes 10 s after the job ended: $left"
}

[ -z "$(held_jobs)" ] || fail "jobs of pd-slurmpd are already queued: $(held_jobs)"
node_processes >"$baseline"

step "1. start: one job per group, in stage order, each after the previous stage's gate"
config=$(copy_profile ok)
"$pdctl" -c "$config" --json start >"$work/start.json" || fail "start exited $?: $(tail -5 "$work/start.json")"
python3 - "$work/start.json" <<'PY' || fail "start's events are not in stage order"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
order = ["mooncake-master", "prefill", "decode", "router"]
submitted, ready = [], []
for i, e in enumerate(events):
    if e.get("event") == "unit_done" and "submitted as SLURM job" in e.get("detail", ""):
        if e["role"] not in submitted:
            submitted.append(e["role"])
            # Every earlier stage was ready before this one's job went in.
            missing = [r for r in order[: order.index(e["role"])] if r not in ready]
            assert not missing, f"{e['role']} submitted before {missing} was ready"
    if e.get("event") == "stage_ready":
        ready.append(e["role"])
assert submitted == order, f"submitted {submitted}"
assert ready == order, f"ready {ready}"
assert events[-1].get("event") == "run_end" and events[-1].get("exit_code") == 0, events[-1]
PY
ids=$(squeue --noheader --states=all --format='%j %i %T' | awk '$1 ~ /^pd-slurmpd-/ && $3 == "RUNNING"' | sort -k2n)
[ "$(echo "$ids" | awk '{print $1}' | tr '\n' ' ')" = \
  "pd-slurmpd-mooncake-master pd-slurmpd-prefill pd-slurmpd-decode pd-slurmpd-router " ] ||
  fail "the running jobs, by id, are not in stage order: $ids"

step "2. /generate through the router; status running"
answer=$(curl -sS --max-time 10 -X POST http://10.66.0.5:31000/generate -H 'Content-Type: application/json' \
  -d '{"text": "hello", "sampling_params": {"max_new_tokens": 4}}') || fail "POST /generate failed"
echo "$answer" | python3 -c 'import json,sys; t=json.load(sys.stdin)["text"]; assert t, "no text"' ||
  fail "/generate answered without text: $answer"
code=0
"$pdctl" -c "$config" --json status >"$work/status.json" || code=$?
[ "$code" -eq 0 ] || fail "status exited $code on a running deployment: $(cat "$work/status.json")"
python3 - "$work/status.json" <<'PY' || fail "status is not what runs"
import json, sys
status = json.load(open(sys.argv[1]))
assert status["state"] == "running", status["state"]
units = [u for r in status["roles"] for u in r["units"]]
assert len(units) == 10, len(units)
for u in units:
    assert u["state"] == "running", u
    assert " RUNNING " in (u["scheduler"] or ""), u
PY
"$pdctl" -c "$config" logs prefill --rank 2 --tail 5 | grep -q 'fired up\|Dummy health check server' ||
  fail "logs prefill --rank 2 does not show rank 2's log"

step "3. stop: no job, no process left"
"$pdctl" -c "$config" stop >"$work/stop.txt" || fail "stop exited $?: $(cat "$work/stop.txt")"
assert_nothing_left "stop"
code=0
"$pdctl" -c "$config" --json status >"$work/status.json" || code=$?
[ "$code" -eq 8 ] || fail "status after stop exited $code, not 8 (stopped)"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["state"]; assert s == "stopped", s' "$work/status.json" ||
  fail "status after stop is not stopped"

step "4. a crash on prefill rank 2 fails the stage with its output"
config=$(copy_profile crash)
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
config=$(copy_profile drained)
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
echo "PASS: SLURM scenario (start in order, /generate, status, stop, crash on rank 2, drained node)"
