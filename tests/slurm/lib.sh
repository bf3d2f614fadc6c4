# What the SLURM scenario scripts share (sourced): failing, the profile copies, and what a run left on
# the test cluster (tests/slurm/cluster.sh up). The caller sets `work` (its temporary directory) and
# `source_dir` (the repository).

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
step() { echo "== $*"; }

# A copy of a profile of tests/profiles with its own state directory (history, journal, the jobs'
# files): nothing from an earlier run teaches this one a deadline or leaves it a file.
copy_profile() {  # copy_profile PROFILE NAME -> prints the config path
  local dir=$work/$2
  cp -rL "$source_dir/tests/profiles/$1" "$dir"
  sed -i "s|^state_dir: .*|state_dir: $dir/state|" "$dir/pdctl.yaml"
  echo "$dir/pdctl.yaml"
}

# Live processes in the nodes' network namespaces that were not there before the run (the harness's
# unshare, bash and slurmd were). Zombies are not live: PID 1 here does not reap orphans.
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
record_baseline() { node_processes >"$work/baseline"; }
new_processes() { comm -13 "$work/baseline" <(node_processes); }

# After a stop: SLURM holds nothing of ours (`held` prints what it does: the caller's jobs or steps),
# and nothing of ours runs on a node. slurmstepd, SLURM's own step daemon, reports the step's end
# before it exits, and before the tasks it SIGKILLed have all been torn down by the kernel (a task seen
# live in one read and gone at the next): both are given a bounded moment to go. A process that was
# left behind is still there after it, and named.
assert_nothing_left() {  # assert_nothing_left WHAT
  local held_now left deadline=$((SECONDS + 10))
  held_now=$(held)
  [ -z "$held_now" ] || fail "$1: SLURM still holds: $held_now"
  while left=$(new_processes | grep -v ' slurmstepd$' || true) && [ -n "$left" ] && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.2
  done
  [ -z "$left" ] || fail "$1: processes left in the node namespaces 10 s after the stop: $left"
  while left=$(new_processes) && [ -n "$left" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  [ -z "$left" ] || fail "$1: slurmstepd still on the nodes 10 s after the job ended: $left"
}

# POST /generate through the router at $1 answers with text.
assert_generates() {  # assert_generates HOST:PORT
  local answer
  answer=$(curl -sS --max-time 10 -X POST "http://$1/generate" -H 'Content-Type: application/json' \
    -d '{"text": "hello", "sampling_params": {"max_new_tokens": 4}}') || fail "POST /generate failed"
  echo "$answer" | python3 -c 'import json,sys; t=json.load(sys.stdin)["text"]; assert t, "no text"' ||
    fail "/generate answered without text: $answer"
}

# start --json's events ($1) show each group started ($2: the words of its unit_done detail) in stage
# order, each after every earlier stage's gate passed, and the run ending with exit 0.
assert_started_in_order() {  # assert_started_in_order EVENTS_FILE DETAIL_WORDS
  python3 - "$1" "$2" <<'PY' || fail "start's events are not in stage order"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
order = ["mooncake-master", "prefill", "decode", "router"]
started, ready = [], []
for e in events:
    if e.get("event") == "unit_done" and sys.argv[2] in e.get("detail", ""):
        if e["role"] not in started:
            started.append(e["role"])
            # Every earlier stage was ready before this one went in.
            missing = [r for r in order[: order.index(e["role"])] if r not in ready]
            assert not missing, f"{e['role']} started before {missing} was ready"
    if e.get("event") == "stage_ready":
        ready.append(e["role"])
assert started == order, f"started {started}"
assert ready == order, f"ready {ready}"
assert events[-1].get("event") == "run_end" and events[-1].get("exit_code") == 0, events[-1]
PY
}

# status --json ($1) says running, with all 10 units running and SLURM saying RUNNING for each.
assert_status_running() {  # assert_status_running STATUS_FILE
  python3 - "$1" <<'PY' || fail "status is not what runs"
import json, sys
status = json.load(open(sys.argv[1]))
assert status["state"] == "running", status["state"]
units = [u for r in status["roles"] for u in r["units"]]
assert len(units) == 10, len(units)
for u in units:
    assert u["state"] == "running", u
    assert " RUNNING" in (u["scheduler"] or ""), u
PY
}
