#!/usr/bin/env python3
"""Writes start.journal.jsonl: three runs of a 4+4-node PD start shaped like the real ones (12-18
minutes per group), as pdctl's journal records them. Fixed numbers, so the timeline goldens are stable.
  run A  success  prefill rank 2 (n3) loads its weights 3 minutes late; the group waits for it
  run B  success  the same config, no slow rank
  run C  failed   decode rank 1 (n6) exits while capturing CUDA graphs
"""
import datetime, json, sys

T0 = 1796212800000  # 2026-12-02T12:00:00Z
lines = []

def line(run, seq, at, verb, event, **fields):
    ts = datetime.datetime.fromtimestamp(at // 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    entry = {"run": run, "seq": seq, "ts": ts, "epoch_ms": at, "verb": verb, "event": event}
    entry.update(fields)
    lines.append(entry)

FP = {"mooncake-master": "3a1f0c2d4b5e6f70", "prefill": "9b8c7d6e5f4a3b21", "decode": "1c2d3e4f5a6b7c8d",
      "router": "77aa88bb99cc00dd"}
DEADLINE = {"mooncake-master": 60000, "prefill": 1500000, "decode": 1500000, "router": 300000}
KIND = {"mooncake-master": "mooncake-master", "prefill": "sglang", "decode": "sglang", "router": "router"}
NODES = {"mooncake-master": ["n1"], "prefill": ["n1", "n2", "n3", "n4"], "decode": ["n5", "n6", "n7", "n8"],
         "router": ["n1"]}

def run(run_id, start, slow_rank=None, fail=None):
    seq = [0]
    t = [start]
    def emit(event, at=None, **fields):
        line(run_id, seq[0], t[0] if at is None else at, "start", event, **fields)
        seq[0] += 1
    emit("record_begin", who="oncall@ctl", cluster="kimi3", config="5e1d2c3", version="0.1.0")
    emit("run_begin", action="start", stages=4)
    exit_code = 0
    for role in ["mooncake-master", "prefill", "decode", "router"]:
        begin = t[0]
        emit("stage_begin", action="start", role=role, nodes=NODES[role], fingerprint=FP[role],
             deadline_ms=DEADLINE[role], kind=KIND[role])
        for rank, node in enumerate(NODES[role]):
            t[0] = begin + 900 + 150 * rank
            emit("unit_done", action="start", role=role, node=node, rank=rank, detail="started")
        if KIND[role] != "sglang":
            ready = begin + (2400 if role == "mooncake-master" else 14000)
            for rank, node in enumerate(NODES[role]):
                t[0] = begin + 3000
                emit("unit_phase", role=role, node=node, rank=0, phase="initialising", began_epoch_ms=begin + 1500)
                emit("unit_phase", role=role, node=node, rank=0, phase="ready", began_epoch_ms=ready - 300)
            t[0] = ready
            emit("stage_ready", role=role, node=NODES[role][0], elapsed_ms=ready - begin)
            emit("stage_end", action="start", role=role, result="ready", elapsed_ms=ready - begin)
            continue
        # init 40 s, weights 6 min, KV 50 s, CUDA graphs 4 min. A slow rank loads its weights 3 min longer;
        # the others log "Load weight end" (entering the KV cache phase) on time, then wait for it at the
        # free-memory all-reduce that sizes the KV cache, so every rank begins its CUDA graphs together.
        init, weights, kv, graphs = 40000, 360000, 50000, 240000
        late = 180000 if slow_rank is not None and role == "prefill" else 0
        joined = begin + 2000 + init + weights + late + kv + graphs
        failed_at = None
        for rank, node in enumerate(NODES[role]):
            base = begin + 1000 + 150 * rank
            t0 = base + 1000
            own_weights = weights + (late if rank == slow_rank else 0)
            phases = [("initialising", t0), ("loading-weights", t0 + init),
                      ("kv-cache", t0 + init + own_weights), ("cuda-graphs", begin + 2000 + init + weights + late + kv)]
            if fail and fail[0] == role and fail[1] == rank:
                failed_at = phases[3][1] + 95000
                phases.append(("failed", failed_at))
            elif rank == 0:
                phases += [("http-up", joined + 3000), ("warm-up", joined + 4000), ("ready", joined + 9000)]
            else:
                phases.append(("joined", joined - 200 * rank))
            for phase, at in phases:
                t[0] = max(t[0], at + 1500)
                emit("unit_phase", role=role, node=node, rank=rank, phase=phase, began_epoch_ms=at)
        if failed_at:
            t[0] = failed_at + 700
            emit("stage_failed", role=role, node=NODES[role][fail[1]], address="10.0.0.6", rank=fail[1],
                 reason="exited (code 1)", hint="", log_tail=["RuntimeError: CUDA error: out of memory"],
                 elapsed_ms=t[0] - begin)
            emit("stage_end", action="start", role=role, result="failed", elapsed_ms=t[0] - begin)
            exit_code = 4
            break
        t[0] = joined + 9400
        emit("stage_ready", role=role, node=NODES[role][0], elapsed_ms=t[0] - begin)
        emit("stage_end", action="start", role=role, result="ready", elapsed_ms=t[0] - begin)
    emit("run_end", action="start", exit_code=exit_code, result="success" if exit_code == 0 else "stage failed",
         message="", elapsed_ms=t[0] - start, cleaned_up=[])
    emit("record_end", exit_code=exit_code, result="success" if exit_code == 0 else "stage failed",
         elapsed_ms=t[0] - start, message="")
    return t[0]

end = run("20261202T120000Z-a1b2c3", T0, slow_rank=2)
end = run("20261202T134000Z-d4e5f6", T0 + 6000000)
end = run("20261202T154000Z-0f9e8d", T0 + 13200000, fail=("decode", 1))
with open(sys.argv[1] if len(sys.argv) > 1 else "start.journal.jsonl", "w") as out:
    for entry in lines:
        out.write(json.dumps(entry, separators=(",", ":")) + "\n")
