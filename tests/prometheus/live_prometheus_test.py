#!/usr/bin/python3
"""A real Prometheus scrapes the simulated cluster through `pdctl export prometheus` (ctest
prometheus_live, label prometheus).

    live_prometheus_test.py SOURCE_DIR PDCTL_BINARY

profiles/local moved to its own loopback block (127.0.112.x), behind SMG (whose metrics listener
gives the router target), with the decode's KV path failing above 20 MB (PDSIM_KV_FAIL_ABOVE_MB, the
original experiment's fault). pdctl starts it and exports the Prometheus files with 1 s intervals;
Debian's `prometheus` runs on 127.0.112.9 with them. Then:
  1. every exported scrape target is up in /api/v1/targets (master, every rank of both groups, the
     router; the probe jobs, whose blackbox exporter this test does not run, are left out);
  2. the transfer-failure alert is not firing while nothing failed;
  3. one long request (5280 input tokens, over the 20 MB limit) through the router fails, and
     PDKVTransferFailures fires, naming the decode group.
Bounded waits only (polls with deadlines); prometheus and the cluster are stopped whatever happens.
Exits 77 (skip) without prometheus, except under CI.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from live_common import TestFailure, get_json, wait_for

BLOCK = 112
PROMETHEUS_ADDRESS = f"127.0.{BLOCK}.9:19090"  # not 9090: a prometheus service may hold *:9090


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def simulated_cluster(source_dir, work):
    """profiles/local on its own block, behind SMG, with the 20 MB transfer fault on decode."""
    config_dir = os.path.join(work, "cluster")
    os.makedirs(config_dir)
    for name in os.listdir(os.path.join(source_dir, "profiles", "local")):
        with open(os.path.join(source_dir, "profiles", "local", name)) as source:
            text = source.read()
        text = text.replace("127.0.0.", f"127.0.{BLOCK}.")
        text = text.replace("/tmp/pdctl-state", os.path.join(work, "state"))
        text = text.replace("cluster: local", "cluster: prom")
        text = text.replace("program: [pdsim, sglang_router.launch_router]\n    impl: minilb",
                            "program: [pdsim, smg, launch]\n    impl: smg")
        if name == "decode.env":
            text += "PDSIM_KV_FAIL_ABOVE_MB=20\n"
        with open(os.path.join(config_dir, name), "w") as out:
            out.write(text)
    with open(os.path.join(config_dir, "pdctl.yaml")) as check:
        if "impl: smg" not in check.read():
            fail("the local profile's router line changed; update this test's edit")
    return os.path.join(config_dir, "pdctl.yaml")


def run_pdctl(pdctl, config, *args, timeout=180):
    return subprocess.run([pdctl, "-c", config, *args], capture_output=True, text=True, timeout=timeout)


def firing(alerts_doc, name):
    return [a for a in alerts_doc["data"]["alerts"] if a["labels"].get("alertname") == name and a["state"] == "firing"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source_dir, pdctl = sys.argv[1], os.path.abspath(sys.argv[2])
    if not shutil.which("prometheus"):
        print("skipped: no prometheus (apt-get install --no-install-recommends prometheus)")
        sys.exit(1 if os.environ.get("CI") else 77)
    work = tempfile.mkdtemp(prefix="pdctl-prometheus-")
    config = simulated_cluster(source_dir, work)
    prometheus = None
    log_path = os.path.join(work, "prometheus.log")
    try:
        start = run_pdctl(pdctl, config, "start")
        if start.returncode != 0:
            fail(f"start exited {start.returncode}:\n{start.stdout}{start.stderr}")
        files = os.path.join(work, "prometheus")
        exported = run_pdctl(pdctl, config, "--json", "export", "prometheus", "-o", files, "--scrape-interval", "1s",
                             "--evaluation-interval", "1s", "--window", "30s", "--for", "0s")
        if exported.returncode != 0:
            fail(f"export exited {exported.returncode}:\n{exported.stdout}{exported.stderr}")
        targets = json.loads(exported.stdout)["targets"]
        jobs = sorted(t["job"] for t in targets)
        if jobs != ["pd-prom-mooncake-master", "pd-prom-router"] + ["pd-prom-sglang"] * 8:
            fail(f"expected the master, the 8 ranks of both groups and the router as targets, got {jobs}")

        with open(log_path, "w") as log:
            prometheus = subprocess.Popen(
                ["prometheus", f"--config.file={files}/prometheus.yml", f"--storage.tsdb.path={work}/tsdb",
                 f"--web.listen-address={PROMETHEUS_ADDRESS}"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        api = f"http://{PROMETHEUS_ADDRESS}/api/v1"
        began = time.monotonic()

        # 1. Every scrape target up (Prometheus batches discovery about every 5 s, so the list fills late).
        def all_up():
            active = [t for t in get_json(f"{api}/targets")["data"]["activeTargets"]
                      if "-probe-" not in t["scrapePool"]]
            health = {t["scrapeUrl"]: t["health"] for t in active}
            return health if len(active) == len(targets) and set(health.values()) == {"up"} else None

        health = wait_for("every exported target up", all_up, 60)
        print(f"all {len(health)} targets up {time.monotonic() - began:.1f} s after prometheus started:")
        for url in sorted(health):
            print(f"  {url}")

        # 2. Nothing failed yet: rules evaluated at least once, the alert silent.
        wait_for("the rules evaluated", lambda: get_json(f"{api}/rules?type=alert")["data"]["groups"], 30)
        if firing(get_json(f"{api}/alerts"), "PDKVTransferFailures"):
            fail("PDKVTransferFailures fires before any transfer failed")

        # 3. A transfer over the limit fails; the alert fires for the decode group.
        router = next(t for t in targets if t["job"] == "pd-prom-router")
        body = json.dumps({"input_ids": [11] * 5280, "sampling_params": {"max_new_tokens": 2}}).encode()
        request = urllib.request.Request(f"http://127.0.{BLOCK}.5:31000/generate", data=body,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                fail(f"a 5280-token request passed the 20 MB fault (HTTP {answer.status})")
        except urllib.error.HTTPError as error:
            print(f"long request failed as the fault says: HTTP {error.code} {error.read()[:160]!r}")
        failed_at = time.monotonic()
        alerts = wait_for("PDKVTransferFailures firing", lambda: firing(get_json(f"{api}/alerts"),
                                                                         "PDKVTransferFailures"), 30)
        labels = alerts[0]["labels"]
        if labels.get("group") != "decode" or labels.get("cluster") != "prom" or labels.get("severity") != "critical":
            fail(f"the alert names the wrong group: {labels}")
        print(f"PDKVTransferFailures firing {time.monotonic() - failed_at:.1f} s after the failed request: "
              f"{alerts[0]['annotations']['summary']} (router metrics at {router['address']})")
    finally:
        if prometheus is not None:
            os.killpg(prometheus.pid, signal.SIGTERM)
            try:
                prometheus.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(prometheus.pid, signal.SIGKILL)
                prometheus.wait()
        stop = run_pdctl(pdctl, config, "stop")
        if stop.returncode != 0:
            print(f"stop exited {stop.returncode}:\n{stop.stdout}{stop.stderr}")
        if sys.exc_info()[0] is not None and os.path.exists(log_path):
            with open(log_path) as log:
                print("prometheus log (tail):\n" + "".join(log.readlines()[-20:]))
        shutil.rmtree(work, ignore_errors=True)
    print("prometheus: every target up, the transfer-failure alert fired on the fault")


if __name__ == "__main__":
    try:
        main()
    except TestFailure as error:
        fail(str(error))
