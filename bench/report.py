"""Renders one bench/run result (the JSON it writes) as docs/benchmarks.md: machine, versions, medians,
pair-by-pair ratios, each target with whether it holds, and the analysis from bench/notes.md.
Re-render an old result with:  python3 bench/report.py bench/results/<stamp>.json > docs/benchmarks.md
or the newest complete result of every scenario, as bench/run does after a full-size run:
                              python3 bench/report.py --latest bench/results > docs/benchmarks.md
"""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pair_ratio(runs, a, b):
    """Median over repetitions of a[r] / b[r]: both ran within the same repetition, back to back."""
    xs, ys = runs.get(a, []), runs.get(b, [])
    return med([x / y for x, y in zip(xs, ys) if y]) if xs and ys else None


def fmt_s(x):
    return "—" if x is None else (f"{x * 1000:.0f} ms" if x < 10 else f"{x:.1f} s")


def fmt_r(x):
    return "—" if x is None else f"{x:.2f}×"


def holds(ok):
    return "—" if ok is None else ("**yes**" if ok else "**no**")


def times_table(sc, title, note=""):
    runs = sc.get("runs", {})
    lines = [f"**{title}**{note}", "", "| tool | median | runs (s) |", "|---|---:|---|"]
    for tool, xs in runs.items():
        err = sc.get("errors", {}).get(tool)
        lines.append(f"| {tool} | {fmt_s(med(xs))} | {' '.join(f'{x:.3f}' for x in xs)}"
                     + (f" — failed: {err[:120]}" if err else "") + " |")
    return lines + [""]


# ---------------------------------------------------------------------------------------------------
# The slurm scenario: start/stop of the same deployment over SSH and under SLURM.

ROLES = ["mooncake-master", "prefill", "decode", "router"]


def spread(xs):
    """median (min–max), in seconds."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    return f"{med(xs):.2f} s ({min(xs):.2f}–{max(xs):.2f})"


def start_parts(run):
    """One start's wall time cut into consecutive parts (seconds); they add up to the wall time. SLURM
    runs also cut each stage's dispatch at slurmctld's and slurmd's log lines."""
    st, order = run["stages"], run["order"]
    if not order or any("ready" not in st[r] or "rank_last" not in st[r] for r in order):
        return None
    ms = {"before": st[order[0]]["begin"],
          "dispatch": sum(st[r]["rank_last"] - st[r]["begin"] for r in order),
          "work": sum(st[r]["ready"] - st[r]["rank_last"] for r in order),
          "between": sum(st[b]["begin"] - st[a]["ready"] for a, b in zip(order, order[1:])),
          "after": run["wall"] - st[order[-1]]["ready"], "wall": run["wall"]}
    if run.get("preflight"):  # "preflight passed on 8 nodes in 0.50s"
        ms["preflight"] = float(run["preflight"].rsplit(" in ", 1)[1].rstrip("s")) * 1000
    chain = ["begin", "slurm_submit", "slurm_scheduled", "slurm_batch", "slurm_task_last", "rank_last"]
    if all(k in st[r] for r in order for k in chain):
        for a, b in zip(chain, chain[1:]):
            ms[f"{a}>{b}"] = sum(st[r][b] - st[r][a] for r in order)
        ms["sbatch_return"] = sum(st[r]["launched"] - st[r]["begin"] for r in order)
    return {k: v / 1000 for k, v in ms.items()}


def render_slurm(sc):
    runs, det, path = sc["runs"], sc["detail"], sc["path_s"]
    n = {x: len(det.get(x, [])) for x in ("ssh", "slurm")}
    body = [f"**Start and stop under SLURM vs over SSH, the same simulated deployment** (`tests/profiles/slurm` "
            "rewritten by `bench/run`: Mooncake master on node 1, prefill on nodes 1–4, decode on 5–8, MiniLB "
            f"router on 5, pdsim with every sglang phase {sc['phase_ms']} ms, the profile's gates and intervals; "
            "`ssh`: 8 bench sshd hosts, `runtime: process`, libssh2; `slurm`: 8 slurmd nodes of a real SLURM "
            f"{sc.get('slurm_version', '')} cluster, `tests/slurm/up.sh` with "
            + ", ".join(f"{k}={v}" for k, v in sc.get("slurm", {}).items())
            + f", one job per group). The work on the gated path is {path:.1f} s (prefill then decode, 5 phases "
            "each; master and router serve at once). Medians (min–max); the executor that goes first alternates "
            "by repetition; load average (1 min) at each repetition: " + " ".join(sc.get("loadavg_per_rep", [])) + ".",
            "", "| executor | n | start | start − work on the path | stop |", "|---|---:|---:|---:|---:|"]
    for x in ("ssh", "slurm"):
        st, sp = runs.get(f"{x}-start", []), runs.get(f"{x}-stop", [])
        body.append(f"| {x} | {len(st)} | {spread(st)} | {spread([t - path for t in st])} | {spread(sp)} |")
        if sc.get("errors", {}).get(x):
            body.append(f"| {x} failed | | {sc['errors'][x][:200]} | | |")
    diff_start = [b - a for a, b in zip(runs.get("ssh-start", []), runs.get("slurm-start", []))]
    diff_stop = [b - a for a, b in zip(runs.get("ssh-stop", []), runs.get("slurm-stop", []))]
    body += ["", f"SLURM − SSH, pair by pair within a repetition: start {spread(diff_start)}, stop {spread(diff_stop)}.", ""]

    parts = {x: [p for p in (start_parts(d["start"]) for d in det.get(x, [])) if p] for x in ("ssh", "slurm")}
    col = lambda x, k: spread([p.get(k) for p in parts[x]]) if parts[x] and any(k in p for p in parts[x]) else "—"
    rows = [("before the first stage: process start, config, deploy lock, listing the units, preflight", "before"),
            ("  of which the preflight (as pdctl prints it)", "preflight"),
            ("stage launched → its last rank's program running (Σ over the 4 stages)", "dispatch"),
            ("  SLURM: stage launched → slurmctld has the submission (the job's files written, `sbatch` run)",
             "begin>slurm_submit"),
            ("  SLURM: submission → job started by the scheduler", "slurm_submit>slurm_scheduled"),
            ("  SLURM: started → slurmd launched the batch script", "slurm_scheduled>slurm_batch"),
            ("  SLURM: batch script → the step's last task launched (`srun`)", "slurm_batch>slurm_task_last"),
            ("  SLURM: task launched → the rank's program running (rank script)", "slurm_task_last>rank_last"),
            (f"last rank running → stage ready (Σ; the simulated work, {path:.1f} s, and the gate's polling)", "work"),
            ("stage ready → next stage launched (Σ)", "between"),
            ("last stage ready → pdctl exits (journal, lock, disconnect)", "after"),
            ("**wall time of `pdctl start`**", "wall")]
    body += [f"Where `start`'s time goes (median (min–max) over n = {len(parts['ssh'])} SSH and "
             f"{len(parts['slurm'])} SLURM runs; the parts of one run add up to its wall time; \"running\" is the "
             "mtime of the rank's pid file, written by pdctl's wrapper as it launches the program; SLURM's steps "
             "from slurmctld's and slurmd's logs):", "",
             "| part | ssh | slurm |", "|---|---:|---:|"]
    body += [f"| {label} | {col('ssh', k)} | {col('slurm', k)} |" for label, k in rows]
    sched = {}
    for d in det.get("slurm", []):
        for role, s in d["start"]["stages"].items():
            sched.setdefault(s.get("scheduler", "?"), 0)
            sched[s.get("scheduler", "?")] += 1
    if sched:
        body += ["", "Which SLURM scheduler started the jobs: " + ", ".join(
            f"{k} {v}" for k, v in sorted(sched.items())) + " (slurmctld's `sched/backfill: _start_job` and "
            "`sched: Allocate` lines: the backfill scheduler, every `bf_interval=1` s in the test cluster, and the "
            "main scheduling loop; no job was started by the test at submission)."]

    def per_stage(x, verb, a, b):
        out = {}
        for d in det.get(x, []):
            for role, s in d[verb]["stages"].items():
                if a in s and b in s:
                    out.setdefault(role, []).append((s[b] - s[a]) / 1000)
        return out
    cols = {(x, k): per_stage(x, "start", *k) for x in ("ssh", "slurm")
            for k in [("begin", "rank_last"), ("rank_last", "ready")]}
    stops = {x: per_stage(x, "stop", "begin", "done") for x in ("ssh", "slurm")}
    stop_parts = {x: [] for x in ("ssh", "slurm")}
    for x in stop_parts:
        for d in det.get(x, []):
            st = d["stop"]["stages"]
            if st and all("done" in v for v in st.values()):
                stop_parts[x].append({"before": min(v["begin"] for v in st.values()) / 1000,
                                      "stages": sum(v["done"] - v["begin"] for v in st.values()) / 1000,
                                      "after": (d["stop"]["wall"] - max(v["done"] for v in st.values())) / 1000,
                                      "wall": d["stop"]["wall"] / 1000})
    body += ["", "Where `stop`'s time goes:", "", "| part | ssh | slurm |", "|---|---:|---:|"]
    for label, k in [("before the first stage: process start, config, lock, listing the units", "before"),
                     ("the 4 stages, in reverse order (Σ)", "stages"),
                     ("after the last stage: journal, lock, exit", "after"), ("**wall time of `pdctl stop`**", "wall")]:
        body.append(f"| {label} | " + " | ".join(spread([p[k] for p in stop_parts[x]]) for x in ("ssh", "slurm")) + " |")
    body += ["", "Per stage (medians): start's launch → last rank running and last rank running → ready, "
             "stop's stage (terminate, wait until gone; SLURM: `scancel`, wait until the job leaves squeue's "
             "states that hold nodes):", "",
             "| stage | launch → running, ssh | slurm | running → ready, ssh | slurm | stop, ssh | slurm |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for role in ROLES:
        cells = [fmt_s(med(cols[(x, k)].get(role, []))) for k in [("begin", "rank_last"), ("rank_last", "ready")]
                 for x in ("ssh", "slurm")]
        cells += [fmt_s(med(stops[x].get(role, []))) for x in ("ssh", "slurm")]
        body.append(f"| {role} | " + " | ".join(cells) + " |")
    return body + [""], (diff_start, diff_stop)


def newest_per_scenario(results_dir):
    """[(result, path)]: for every scenario, the newest complete run in results_dir that measured it
    (without an error), each result cut to the scenarios it provides; oldest first."""
    owner, loaded = {}, {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*.json")), reverse=True):  # stamps sort by date
        try:
            with open(path) as f:
                r = json.load(f)
        except ValueError:
            continue
        if not r.get("complete") or r.get("quick"):
            continue
        for key, sc in r.get("scenarios", {}).items():
            if key not in owner and "error" not in sc:
                owner[key] = path
                loaded[path] = r
    sources = []
    for path in sorted(loaded):
        r = loaded[path]
        r["scenarios"] = {k: v for k, v in r["scenarios"].items() if owner.get(k) == path}
        sources.append((r, path))
    return sources


def render(r, json_path):
    """The report of one run."""
    return render_sources([(r, json_path)])


def render_sources(sources):
    """The report of several runs, each providing some scenarios (newest_per_scenario)."""
    s = {}
    for r, _ in sources:
        s.update(r["scenarios"])
    r = sources[-1][0]
    m, v = r["machine"], {}
    for src, _ in sources:  # newest wins, but not with "not installed": the tool is not needed there
        v.update({k: val for k, val in src["versions"].items() if k not in v or "not installed" not in val})
    kernels = sorted({src["machine"]["kernel"] for src, _ in sources})
    hosts = {}
    for src, _ in sources:
        hosts.update(src.get("hosts", {}))
    out = ["# Benchmarks", "",
           "Generated by `bench/run` from its own output; do not edit by hand (the analysis comes from",
           "`bench/notes.md`). Every number below is reproduced by running, as root on Debian 12"
           + (":" if len(sources) == 1 else " (each scenario comes from the newest complete run in "
              "`bench/results/` that measured it; `python3 bench/report.py --latest bench/results` merges them):"),
           "", "```sh"]
    width = max(len(src["command"]) for src, _ in sources)
    out += [src["command"] if len(sources) == 1 else
            f"{src['command']:<{width}}   # {', '.join(src['scenarios'])}" for src, _ in sources]
    out += ["```", ""]
    for src, path in sources:
        out.append(f"Raw data: `{path}`. Run on {src['date']}, {src['reps']} interleaved repetitions per scenario "
                   f"(for each repetition, every tool once, in turn), medians; a ratio is the median of the "
                   f"per-repetition ratios (pair by pair). Whole run: {src.get('duration_s', '?')} s."
                   + ("" if len(sources) == 1 else f" Scenarios: {', '.join(src['scenarios'])}."))
        out.append("")
    out += ["## Machine", "",
            f"- {m['nproc']} CPUs ({m['cpu']}), {m['mem_gib']} GiB, {m['os']}, kernel {', '.join(kernels)}",
            "- load average when the run began: "
            + "; ".join(" ".join(src["machine"]["loadavg_at_start"])
                        + ("" if len(sources) == 1 else f" ({src['date'][:10]} run)") for src, _ in sources)
            + " (the machine is shared; interleaving spreads that noise over every tool alike)",
            "- hosts: real OpenSSH `sshd` in network namespaces on one bridge (`tests/cluster/up.sh` with "
            + ", ".join(f"{k}={val}" for k, val in hosts.items())
            + "), so the clients and all the servers share these CPUs", "",
            "| software | version |", "|---|---|"]
    out += [f"| {k} | {val} |" for k, val in v.items()] + [""]

    targets = []  # (scenario, target, measured, holds)
    body = []

    for key in sorted((k for k in s if k.startswith("fanout")), key=lambda k: s[k].get("n", 0)):
        sc, n = s[key], s[key].get("n")
        if "error" in sc:
            body += [f"**Fan-out N = {n}** failed: {sc['error']}", ""]
            continue
        body += times_table(sc, f"Fan-out: `true` on N = {n} hosts",
                            " (pdctl = `bench/pdctl_fanout`, pdctl's SshExecutor (libssh2); pdctl-openssh = the same "
                            "over pdctl's OpenSSH transport (one ControlMaster per host); pdctl-status, "
                            "pdctl-status-openssh and pdctl-status-auto = the real `pdctl status` with a unit running on "
                            "every host, `ssh.transport` libssh2, openssh and auto (the default; pdctl reads the ssh "
                            "config itself, and chooses libssh2 here); pdctl-exec, pdctl-exec-openssh and "
                            "pdctl-exec-auto = the real `pdctl exec -- true`, the verb that replaces pdsh, over each "
                            "transport; every row starts without a connection, except -warm: the same run again right "
                            "after, on the OpenSSH masters the first one left (PDCTL_SSH_PERSIST))")
        runs = sc["runs"]
        rows = ["| ratio (pair by pair) | median |", "|---|---:|"]
        for base in ["ssh-serial", "ssh-bg", "pdsh", "pssh", "clush", "ansible"]:
            if runs.get(base):
                rows.append(f"| pdctl / {base} | {fmt_r(pair_ratio(runs, 'pdctl', base))} |")
        if runs.get("pdsh"):
            for tool in ["pdctl-openssh", "pdctl-status", "pdctl-status-openssh", "pdctl-status-openssh-warm",
                         "pdctl-status-auto", "pdctl-exec-openssh", "pdctl-exec-openssh-warm", "pdctl-exec-auto"]:
                if runs.get(tool):
                    rows.append(f"| {tool} / pdsh | {fmt_r(pair_ratio(runs, tool, 'pdsh'))} |")
        for base in ["pdsh", "pssh", "clush"]:
            if runs.get("pdctl-exec") and runs.get(base):
                rows.append(f"| pdctl-exec / {base} | {fmt_r(pair_ratio(runs, 'pdctl-exec', base))} |")
        body += rows + [""]
        if runs.get("pdctl-openssh") and n in (8, 64):
            openssh_vs_pdsh = pair_ratio(runs, "pdctl-openssh", "pdsh")
            targets.append((f"1. fan-out N={n}, OpenSSH transport", "pdctl-openssh ≤ 1.0 × pdsh",
                            fmt_r(openssh_vs_pdsh), None if openssh_vs_pdsh is None else openssh_vs_pdsh <= 1.0))
        # The verbs operators run instead of pdsh, on libssh2 and on the OpenSSH masters a first run left:
        # ≤ 0.3 × pdsh. A first run over OpenSSH pays one OpenSSH handshake per host, as pdsh: parity.
        # The default transport choice (auto) is reported beside them.
        for tool, limit, what in [("pdctl-status", 0.3, "`status` over libssh2"),
                                  ("pdctl-exec", 0.3, "`exec` over libssh2"),
                                  ("pdctl-status-openssh-warm", 0.3, "second `status` over OpenSSH"),
                                  ("pdctl-exec-openssh-warm", 0.3, "second `exec` over OpenSSH"),
                                  ("pdctl-status-openssh", 1.0, "first `status` over OpenSSH"),
                                  ("pdctl-status-auto", None, "`status`, transport auto"),
                                  ("pdctl-exec-auto", None, "`exec`, transport auto")]:
            if runs.get(tool) and runs.get("pdsh") and n in (8, 64):
                ratio = pair_ratio(runs, tool, "pdsh")
                if limit is None:
                    targets.append((f"1. fan-out N={n}, {what}", "report", f"{fmt_r(ratio)} pdsh", None))
                else:
                    targets.append((f"1. fan-out N={n}, {what}", f"{tool} ≤ {limit} × pdsh", fmt_r(ratio),
                                    None if ratio is None else ratio <= limit))
        vs_pdsh = pair_ratio(runs, "pdctl", "pdsh")
        limit = 0.6 if n >= 64 else 1.0
        if n in (8, 64):
            targets.append((f"1. fan-out N={n}", f"pdctl ≤ {limit} × pdsh", fmt_r(vs_pdsh),
                            None if vs_pdsh is None else vs_pdsh <= limit))
        if n == 8:
            speedup = pair_ratio(runs, "ssh-serial", "pdctl")
            targets.append(("1. fan-out N=8", "pdctl ≥ 5× faster than the serial loop",
                            f"{speedup:.1f}× faster" if speedup else "—", None if speedup is None else speedup >= 5))

    if "steps" in s:
        sc = s["steps"]
        if "error" in sc:
            body += [f"**Steps** failed: {sc['error']}", ""]
        else:
            body += times_table(sc, f"Many small steps: {sc['steps']} sequential `true` per node on {sc['nodes']} "
                                    "nodes (nodes in parallel)")
            ratio = pair_ratio(sc["runs"], "pdctl", "ssh-per-step")
            body += [f"pdctl / ssh-per-step: {fmt_r(ratio)}", ""]
            targets.append(("2. small steps", "pdctl ≤ 0.2 × separate ssh", fmt_r(ratio),
                            None if ratio is None else ratio <= 0.2))
            if sc["runs"].get("pdctl-openssh"):
                multiplexed = pair_ratio(sc["runs"], "pdctl-openssh", "ssh-per-step")
                body += [f"pdctl-openssh / ssh-per-step: {fmt_r(multiplexed)}", ""]
                targets.append(("2. small steps, OpenSSH transport", "pdctl-openssh ≤ 0.1 × separate ssh",
                                fmt_r(multiplexed), None if multiplexed is None else multiplexed <= 0.1))

    if "start" in s:
        sc = s["start"]
        if "error" in sc:
            body += [f"**Start** failed: {sc['error']}", ""]
        else:
            body += times_table(sc, f"Orchestration: `pdctl start` on the simulated 8-node cluster "
                                    f"(local executor, every sglang phase {sc['phase_ms']} ms)")
            for variant, label in [("serial", "runbook order, every dependency `ready`"),
                                   ("narrow", "decode `depends_on: [mooncake-master, {role: prefill, gate: bootstrap}]`")]:
                wall, path = med(sc["runs"].get(variant, [])), sc["path_s"][variant]
                stages = sc["stages"].get(variant) or []
                if stages:
                    last = stages[len(stages) // 2]
                    body.append(f"- {variant} ({label}): median {fmt_s(wall)}; floor {path:.1f} s; stage "
                                "launch → ready (ms from the first event, middle run): " +
                                ", ".join(f"{role} {b}→{e}" for role, (b, e) in last.items()))
                learned = " (after 3 starts)" if sc.get("first_starts") else ""
                targets.append((f"3. start, {variant}{learned}", f"wall ≤ path {path:.1f} s + 0.5 s",
                                f"{fmt_s(wall)} (overhead {fmt_s(None if wall is None else wall - path)})",
                                None if wall is None else wall <= path + 0.5))
                first = med(sc.get("first_starts", {}).get(variant, []))
                if first is not None:
                    body.append(f"- {variant}, a cluster's first 3 starts (nothing learned yet): median "
                                f"{fmt_s(first)}, overhead {fmt_s(first - path)}")
                    targets.append((f"3. start, {variant}, first 3 starts", "report",
                                    f"{fmt_s(first)} (overhead {fmt_s(first - path)})", None))
            saving = pair_ratio(sc["runs"], "narrow", "serial")
            diffs = [x - y for x, y in zip(sc["runs"].get("serial", []), sc["runs"].get("narrow", []))]
            body += ["", f"Saving of the narrow gate: {fmt_s(med(diffs))} per start (narrow / serial "
                         f"{fmt_r(saving)}).", ""]
            targets.append(("3. start, saving", "report", f"{fmt_s(med(diffs))} ({fmt_r(saving)} of serial)", None))

    if "crash" in s:
        sc = s["crash"]
        if "error" in sc:
            body += [f"**Crash** failed: {sc['error']}", ""]
        else:
            ex, de = [x["exit_s"] for x in sc["samples"]], [x["detect_s"] for x in sc["samples"]]
            body += ["**Failure detection**: prefill rank 2 crashes during `weights` (`PDSIM_CRASH_AT=weights`, "
                     "`PDSIM_CRASH_RANK=2`). Crash time = last write of its log (the crash line); detected = "
                     "pdctl's `stage_failed` event; exit = pdctl's process exit, after its clean-up of what it "
                     "started.", "",
                     f"| | median | runs (s) |", "|---|---:|---|",
                     f"| crash → detected | {fmt_s(med(de))} | {' '.join(f'{x:.3f}' for x in de if x is not None)} |",
                     f"| crash → pdctl exit | {fmt_s(med(ex))} | {' '.join(f'{x:.3f}' for x in ex)} |", ""]
            targets.append(("4. failure detection", "crash → exit ≤ 2 s median", fmt_s(med(ex)),
                            None if med(ex) is None else med(ex) <= 2))

    if "push" in s:
        sc = s["push"]
        if "error" in sc:
            body += [f"**Push** failed: {sc['error']}", ""]
        else:
            body += times_table(sc, f"Distribution: {sc['mib']} MiB to {sc['nodes']} hosts")
            sec = sc.get("second", [])
            sent = [x["bytes_sent"] for x in sec]
            body += [f"Second `pdctl push` (everything in place): median {fmt_s(med([x['s'] for x in sec]))}, "
                     f"bytes sent {sorted(set(sent))}.", ""]
            for base in ["scp-serial", "pscp"]:
                if sc["runs"].get(base):
                    ratio = pair_ratio(sc["runs"], "pdctl", base)
                    # The goal at N hosts: half of pscp's time; the serial loop is reported.
                    goal = ratio is not None and ratio <= 0.5 if base == "pscp" else None
                    targets.append((f"5. push, {sc['nodes']} hosts",
                                    f"pdctl ≤ 0.5 × {base}" if base == "pscp" else f"pdctl vs {base}",
                                    fmt_r(ratio), goal))
            if sc["runs"].get("pdctl-1host"):
                ratio = pair_ratio(sc["runs"], "pdctl-1host", "scp-1host")
                targets.append(("5. push, 1 host", "pdctl ≤ 1.0 × scp", fmt_r(ratio),
                                None if ratio is None else ratio <= 1.0))
                if sc["runs"].get("scp-1host-aes128ctr"):
                    targets.append(("5. push, 1 host", "pdctl vs scp -c aes128-ctr -o MACs=hmac-sha2-256 "
                                    "(libssh2's pick)",
                                    fmt_r(pair_ratio(sc["runs"], "pdctl-1host", "scp-1host-aes128ctr")), None))
                cpu, cores = sc.get("cpu_seconds", {}), sc.get("cores")
                one_host = [t for t in ["pdctl-1host", "scp-1host", "scp-1host-aes128ctr"] if cpu.get(t)]
                if one_host and cores:
                    body += ["Machine CPU per one-host push (/proc/stat, every process on both ends: client, sshd, "
                             f"sftp-server, hashing), median core-seconds, and the floor it sets on {cores} "
                             "shared cores (CPU time ÷ cores): " + ", ".join(
                                 f"{t} {med(cpu[t]):.2f} (floor {med(cpu[t]) / cores:.2f} s)" for t in one_host)
                             + ".", ""]
                hashing = med(sc.get("second_1host", []))
                if hashing is not None:
                    body += [f"Second `pdctl push` to 1 host (everything in place: the hashing alone, here and on "
                             f"the node): median {fmt_s(hashing)}.", ""]
            targets.append(("5. push, second", "~0 bytes", f"{max(sent) if sent else '—'} bytes",
                            None if not sent else max(sent or [1]) == 0))

    if "relay" in s:
        sc = s["relay"]
        if "error" in sc:
            body += [f"**Relay** failed: {sc['error']}", ""]
        else:
            runs = sc["runs"]
            body += times_table(sc, f"Large files at the speed of one copy: {sc['mib']} MiB to "
                                    f"{', '.join(str(n) for n in sc['sizes'])} hosts, every "
                                    f"link at {sc['rate']} (tc tbf on the bench machine's uplink and each host's downlink)")
            cpu = {t: med(v) for t, v in sc.get("cpu_seconds", {}).items() if v}
            if cpu:
                body += [f"Busy CPU of the whole machine per run (every end of every stream shares its "
                         f"{sc.get('cores', '?')} cores), median core-seconds: "
                         + ", ".join(f"{t} {c:.1f}" for t, c in cpu.items()) + ".", ""]
            header = "| hosts | push --relay | ÷ one host | ÷ scp serial | ÷ scp parallel | ÷ pscp |"
            body += [header, "|---:|---:|---:|---:|---:|---:|"]
            for n in sc["sizes"]:
                cells = [fmt_s(med(runs.get(f"relay-{n}", [])))]
                for base in ["pdctl-1host", f"scp-serial-{n}", f"scp-parallel-{n}", f"pscp-{n}"]:
                    cells.append(fmt_r(pair_ratio(runs, f"relay-{n}", base)))
                body.append(f"| {n} | " + " | ".join(cells) + " |")
            body.append("")
            top = max(sc["sizes"])
            ratio = pair_ratio(runs, f"relay-{top}", "pdctl-1host")
            targets.append((f"6. push --relay, {top} hosts", "≤ 1.3 × one host's transfer", fmt_r(ratio),
                            None if ratio is None else ratio <= 1.3))
            for base in [f"scp-serial-{top}", f"pscp-{top}", f"pdctl-{top}"]:
                if runs.get(base):
                    targets.append((f"6. push --relay, {top} hosts", f"vs {base}", fmt_r(pair_ratio(runs, f"relay-{top}", base)),
                                    None))

    if "warm" in s:
        sc = s["warm"]
        if "error" in sc:
            body += [f"**Warm** failed: {sc['error']}", ""]
        else:
            runs, reads = sc["runs"], sc["weights_ms"]
            body += times_table(sc, f"Cold against warm starts on the simulated cluster: every sglang phase "
                                    f"{sc['phase_ms']} ms, kernels compiled for {sc['compile_ms']} ms on a cache "
                                    f"miss, a {sc['weights_mib']} MiB weight file read by every rank")
            body += ["| start | median | ÷ cold | slowest rank's weight read (median) |", "|---|---:|---:|---:|"]
            for v, label in [("cold", "cold: cache cleared, pages dropped"), ("warm", "warm: after a stop"),
                             ("prewarm", "cache hit, pages dropped, `--prewarm`")]:
                ms = [x for x in reads.get(v, []) if x is not None]
                body.append(f"| {label} | {fmt_s(med(runs.get(v, [])))} | {fmt_r(pair_ratio(runs, v, 'cold'))} | "
                            f"{fmt_s(None if not ms else med(ms) / 1000)} |")
            body.append("")
            targets.append(("7. warm restart", "warm ÷ cold (report)", fmt_r(pair_ratio(runs, "warm", "cold")), None))

    if "preflight" in s:
        sc = s["preflight"]
        if "error" in sc:
            body += [f"**Preflight** failed: {sc['error']}", ""]
        else:
            body += ["**Start preflight**: the time `pdctl start` prints for its preflight (\"preflight passed on N "
                     "nodes in X s\"): one probe per node, all in parallel, over the pooled SSH connections "
                     "(sysfs, `ip -o addr`, `ss -Htlnp`, df, the clock). The bench nodes have no nvidia-smi and no "
                     "container CLI; on GPU nodes those queries run inside the same probe.", "",
                     "| hosts | median | runs (s) |", "|---:|---:|---|"]
            for n, runs in sorted(sc["runs"].items(), key=lambda kv: int(kv[0])):
                body.append(f"| {n} | {fmt_s(med(runs))} | {' '.join(f'{x:.2f}' for x in runs)} |")
                if n == "8":
                    targets.append(("7. start preflight, 8 hosts", "≤ 2 s median", fmt_s(med(runs)),
                                    None if med(runs) is None else med(runs) <= 2))
            body.append("")

    if "rss" in s:
        sc = s["rss"]
        if "error" in sc:
            body += [f"**Footprint** failed: {sc['error']}", ""]
        else:
            kib = [x["max_rss_kib"] for x in sc["samples"]]
            peak = max(kib) * 1024 if kib else None
            body += [f"**Footprint**: `pdctl start` on {sc['hosts']} hosts over SSH (process runtime, one pdsim "
                     "server per host), `/usr/bin/time -v` maximum RSS per run: "
                     + ", ".join(f"{k / 1024:.1f} MiB" for k in kib)
                     + f". Binary: {sc['binary_bytes'] / 2**20:.1f} MiB as built (RelWithDebInfo, with debug info), "
                     f"{sc['stripped_bytes'] / 2**20:.1f} MiB stripped.", ""]
            targets.append((f"6. footprint, start on {sc['hosts']} hosts", "peak RSS ≤ 30 MB",
                            f"{peak / 1e6:.1f} MB (max of {len(kib)})" if peak else "—",
                            None if peak is None else peak <= 30e6))
            targets.append(("6. binary size", "report", f"{sc['stripped_bytes'] / 1e6:.1f} MB stripped", None))

    if "slurm" in s:
        sc = s["slurm"]
        if "error" in sc:
            body += [f"**SLURM vs SSH** {'skipped' if sc.get('skipped') else 'failed'}: {sc['error']}", ""]
        else:
            lines, (diff_start, diff_stop) = render_slurm(sc)
            body += lines
            runs = sc["runs"]
            targets.append(("8. start, SLURM vs SSH, same deployment", "report",
                            f"ssh {fmt_s(med(runs.get('ssh-start', [])))}, slurm {fmt_s(med(runs.get('slurm-start', [])))}"
                            f" (SLURM − SSH {fmt_s(med(diff_start))})", None))
            targets.append(("8. stop, SLURM vs SSH, same deployment", "report",
                            f"ssh {fmt_s(med(runs.get('ssh-stop', [])))}, slurm {fmt_s(med(runs.get('slurm-stop', [])))}"
                            f" (SLURM − SSH {fmt_s(med(diff_stop))})", None))

    # bench/run (and so the smoke test) checks that this table is there.
    out += ["## Targets", "", "| Scenario | Target | Measured | Holds |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {holds(d)} |" for a, b, c, d in targets]
    out += ["", "## Measurements", ""] + body
    # pdctl bench's own load generator, measured by bench/load-generator (its newest result).
    load_generator = os.path.join(HERE, "results", "load-generator.md")
    if os.path.exists(load_generator):
        out += ["## The load generator of `pdctl bench`", "",
                "`bench/load-generator` (`build/bench/pdctl_load_bench`): a fixed-latency SSE endpoint on loopback, "
                "measured through the same client `pdctl bench` uses (the endpoint on the last core, the client on "
                "the first). The endpoint writes SGLang's chunks (text, output_ids, meta_info) in either streaming "
                "mode: incremental (`--incremental-streaming-output`, one token a chunk) or cumulative, SGLang's "
                "default, where every chunk repeats the whole text and every output id so far. The excess over the "
                "configured times is an upper bound on what the client adds; the "
                "endpoint also logs when it wrote each token, so each gap the client measured is set against the "
                "gap between the two writes, and what is left is the client's own share (its reading, parsing and "
                "scheduling, and the loopback). For TTFT the share still holds the endpoint's accepting and "
                "reading of the request, a burst of all streams at once in this closed loop. Then the client's "
                "CPU per token from 16 to 4096 output tokens, and the request rate "
                "on non-streamed answers beside wrk. Definitions: [bench.md](bench.md).", "",
                open(load_generator).read().strip(), ""]
        # The client's change measured before and after (kept by hand: the old client is not built).
        before_after = os.path.join(HERE, "results", "load-generator-before-after.md")
        if os.path.exists(before_after):
            out += [open(before_after).read().strip(), ""]
    # The regression gate against real runs, measured by bench/gate-noise (its newest result).
    gate_noise = os.path.join(HERE, "results", "gate-noise.md")
    if os.path.exists(gate_noise):
        out += ["## The regression gate: false alarms and a 15 % slowdown", "",
                "`bench/gate-noise`: the gate of `pdctl bench --baseline` (docs: [bench.md](bench.md#the-gate)) "
                "on the simulated cluster, on loopback: unchanged reruns must raise no alarm, a slower deployment "
                "must be caught. The unit test `BenchGateNoise.*` counts the same on seeded samples shaped like a "
                "real bench's (lognormal spread, 5 % outliers, run-to-run drift; 10 requests at c=1, 32 at c=8): with "
                "a drift of 2 %, 0 false alarms of 20 and the slowdown caught in 20 of 20, with one run a level and "
                "with `--repeat 3`; with 4 %, 0 false alarms, caught in 18 (one run) and 19 (`--repeat 3`) of 20 "
                "(`build/tests/pdctl_unit_tests --gtest_filter='BenchGateNoise.*'` prints them). pdsim's own "
                "run-to-run spread is small (the unchanged runs' worst change stays within a few percent), so the "
                "real runs below show the gate end to end; the unit test shows its margins under GPU-like noise.", "",
                open(gate_noise).read().strip(), ""]
    notes = os.path.join(HERE, "notes.md")
    if os.path.exists(notes):
        out += ["## Analysis", "", open(notes).read().strip(), ""]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--latest":
        sys.stdout.write(render_sources(newest_per_scenario(sys.argv[2])))
    elif len(sys.argv) == 2:
        sys.stdout.write(render(json.load(open(sys.argv[1])), sys.argv[1]))
    else:
        sys.exit("usage: report.py RESULT.json | report.py --latest RESULTS_DIR")
