#!/usr/bin/python3
"""The exported alerts end to end, with Debian's prometheus, prometheus-blackbox-exporter and
prometheus-alertmanager against the simulated cluster behind MiniLB (ctest prometheus_alerts_live,
label prometheus).

    live_alerts_test.py SOURCE_DIR PDCTL_BINARY

Two variants of profiles/local run side by side, each on its own loopback block with its own
prometheus, blackbox exporter and alertmanager (exported by `pdctl export prometheus` with 1 s
intervals and a 5 s hold): `off` with SGLang's --enable-metrics removed (nothing of SGLang or MiniLB
can be scraped, only the Mooncake master), `on` as shipped (every rank scraped). One webhook receiver
in this test takes both alertmanagers' deliveries. Then, for both variants at once:
  1. every scrape target and every probe is up;
  2. for 60 s no alert fires in prometheus and none reaches the webhook;
  3. the router is killed: PDRouterDown reaches the webhook within the hold + 30 s (PDRouterNotServing,
     which the dead router also trips, stays silent);
  4. decode rank 2 is killed: PDRankDown for that rank reaches the webhook within the hold + 30 s (its
     PDTargetDown, where it is scraped, stays silent).
The delivery times (kill -> webhook) are printed. Bounded waits only (polls with deadlines); every
daemon and both clusters are stopped whatever happens. Exits 77 (skip) without the packages, except
under CI.
"""
import concurrent.futures
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from live_common import get_json, wait_for

HOLD_S = 5
QUIET_S = 60
DELIVERY_BOUND_S = HOLD_S + 30
PROGRAMS = ["prometheus", "prometheus-blackbox-exporter", "prometheus-alertmanager"]
WEBHOOK_ADDRESS = ("127.0.123.10", 19501)


def fail(message):
    raise AssertionError(message)


class Webhook:
    """Alertmanager's webhook receiver: every alert of every POST, with the time it arrived."""

    def __init__(self):
        self.lock = threading.Lock()
        self.alerts = []  # (monotonic arrival, status, labels)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
                arrived = time.monotonic()
                with receiver.lock:
                    for alert in body.get("alerts", []):
                        receiver.alerts.append((arrived, alert["status"], alert["labels"]))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(WEBHOOK_ADDRESS, Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self):
        return f"http://{WEBHOOK_ADDRESS[0]}:{WEBHOOK_ADDRESS[1]}/"

    def received(self, cluster, **labels):
        with self.lock:
            return [(t, status, l) for t, status, l in self.alerts if l.get("cluster") == cluster
                    and all(l.get(k) == v for k, v in labels.items())]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Variant:
    """One simulated cluster and its prometheus, blackbox exporter and alertmanager."""

    def __init__(self, name, block, metrics, source_dir, pdctl, work):
        self.name, self.block, self.metrics, self.pdctl = name, block, metrics, pdctl
        self.cluster = f"alerts-{name}"
        self.work = os.path.join(work, name)
        self.state = os.path.join(self.work, "state")
        self.daemons = []
        self.config = self._config(source_dir)
        self.host = f"127.0.{block}.9"
        self.api = f"http://{self.host}:19090/api/v1"
        self.exported = None

    def _config(self, source_dir):
        config_dir = os.path.join(self.work, "cluster")
        os.makedirs(config_dir)
        for name in os.listdir(os.path.join(source_dir, "profiles", "local")):
            with open(os.path.join(source_dir, "profiles", "local", name)) as source:
                text = source.read()
            text = text.replace("127.0.0.", f"127.0.{self.block}.")
            text = text.replace("/tmp/pdctl-state", self.state)
            text = text.replace("cluster: local", f"cluster: {self.cluster}")
            if name.endswith(".env") and name != "config.env":
                if " --enable-metrics" not in text:
                    fail(f"profiles/local/{name} no longer passes --enable-metrics; update this test")
                if not self.metrics:
                    text = text.replace(" --enable-metrics", "")
            with open(os.path.join(config_dir, name), "w") as out:
                out.write(text)
        with open(os.path.join(config_dir, "pdctl.yaml")) as check:
            if "impl: minilb" not in check.read():
                fail("profiles/local no longer runs MiniLB; update this test")
        return os.path.join(config_dir, "pdctl.yaml")

    def pdctl_run(self, *args, timeout=180):
        return subprocess.run([self.pdctl, "-c", self.config, *args], capture_output=True, text=True,
                              timeout=timeout)

    def start_cluster(self):
        start = self.pdctl_run("start")
        if start.returncode != 0:
            fail(f"{self.name}: start exited {start.returncode}:\n{start.stdout}{start.stderr}")

    def export(self, webhook_url):
        files = os.path.join(self.work, "prometheus")
        run = self.pdctl_run("--json", "export", "prometheus", "-o", files, "--scrape-interval", "1s",
                             "--evaluation-interval", "1s", "--window", "30s", "--for", f"{HOLD_S}s",
                             "--blackbox", f"{self.host}:19115", "--alertmanager", f"{self.host}:19093",
                             "--webhook", webhook_url)
        if run.returncode != 0:
            fail(f"{self.name}: export exited {run.returncode}:\n{run.stdout}{run.stderr}")
        self.exported = json.loads(run.stdout)
        self.files = files
        jobs = sorted({t["job"] for t in self.exported["targets"]})
        notes = " ".join(self.exported["notes"])
        if self.metrics:
            expected = [f"pd-{self.cluster}-mooncake-master", f"pd-{self.cluster}-sglang"]
            scraped_ranks = [t for t in self.exported["targets"] if t["job"].endswith("-sglang")]
            if len(scraped_ranks) != 8:
                fail(f"{self.name}: expected all 8 ranks scraped, got {scraped_ranks}")
            if "router (MiniLB has no /metrics)" not in notes or "SGLang without" in notes:
                fail(f"{self.name}: the note should name MiniLB alone: {notes}")
        else:
            expected = [f"pd-{self.cluster}-mooncake-master"]
            for part in ["prefill (SGLang without --enable-metrics: /metrics answers 404)",
                         "decode (SGLang without --enable-metrics", "router (MiniLB has no /metrics)"]:
                if part not in notes:
                    fail(f"{self.name}: the export's note does not say '{part}': {notes}")
        if jobs != expected:
            fail(f"{self.name}: scrape jobs {jobs}, expected {expected}")
        ranks = [p for p in self.exported["probes"] if p["job"].endswith("-probe-ranks")]
        if sorted((p["group"], p["rank"]) for p in ranks) != sorted(
                [("prefill", r) for r in range(4)] + [("decode", r) for r in range(4)]):
            fail(f"{self.name}: every rank's port should be probed, got {ranks}")
        print(f"{self.name}: {len(self.exported['targets'])} targets scraped, "
              f"{len(self.exported['probes'])} probed; note: {notes}")

    def _daemon(self, name, argv):
        log = open(os.path.join(self.work, f"{name}.log"), "w")
        self.daemons.append((name, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                    start_new_session=True), log))

    def start_daemons(self):
        self._daemon("blackbox", ["prometheus-blackbox-exporter", f"--config.file={self.files}/blackbox.yml",
                                  f"--web.listen-address={self.host}:19115"])
        self._daemon("alertmanager", ["prometheus-alertmanager", f"--config.file={self.files}/alertmanager.yml",
                                      f"--storage.path={self.work}/alertmanager",
                                      f"--web.listen-address={self.host}:19093", "--cluster.listen-address="])
        self._daemon("prometheus", ["prometheus", f"--config.file={self.files}/prometheus.yml",
                                    f"--storage.tsdb.path={self.work}/tsdb",
                                    f"--web.listen-address={self.host}:19090"])

    def everything_up(self):
        active = get_json(f"{self.api}/targets")["data"]["activeTargets"]
        expected = len(self.exported["targets"]) + len(self.exported["probes"])
        if len(active) != expected or any(t["health"] != "up" for t in active):
            return None
        probes = get_json(f"{self.api}/query?" + urllib.parse.urlencode(
            {"query": f'probe_success{{cluster="{self.cluster}"}}'}))["data"]["result"]
        if len(probes) != len(self.exported["probes"]) or any(p["value"][1] != "1" for p in probes):
            return None
        return len(active)

    def firing(self):
        return [a for a in get_json(f"{self.api}/alerts")["data"]["alerts"] if a["state"] == "firing"]

    def kill(self, node, role, rank):
        """SIGKILL to the unit's process group (its pid file holds the group leader's pid)."""
        pid_file = os.path.join(self.state, self.cluster, node, f"pd-{self.cluster}-{role}-{rank}.pid")
        with open(pid_file) as f:
            os.killpg(int(f.read().strip()), signal.SIGKILL)
        return time.monotonic()

    def stop(self):
        for name, process, log in self.daemons:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=20)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()
        stop = self.pdctl_run("stop")
        if stop.returncode != 0:
            print(f"{self.name}: stop exited {stop.returncode}:\n{stop.stdout}{stop.stderr}")

    def print_logs(self):
        for name, _, _ in self.daemons:
            with open(os.path.join(self.work, f"{name}.log")) as log:
                print(f"{self.name} {name} log (tail):\n" + "".join(log.readlines()[-15:]))


def delivered(webhook, variant, killed_at, alertname, **labels):
    """Waits for the alert's firing delivery; returns seconds from the kill to its arrival."""
    def arrived():
        found = [t for t, status, _ in webhook.received(variant.cluster, alertname=alertname, **labels)
                 if status == "firing"]
        return found[0] if found else None

    at = wait_for(f"{variant.name}: {alertname} {labels} at the webhook", arrived, DELIVERY_BOUND_S)
    return at - killed_at


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source_dir, pdctl = sys.argv[1], os.path.abspath(sys.argv[2])
    missing = [p for p in PROGRAMS if not shutil.which(p)]
    if missing:
        print(f"skipped: no {', '.join(missing)} (apt-get install --no-install-recommends prometheus "
              "prometheus-blackbox-exporter prometheus-alertmanager)")
        sys.exit(1 if os.environ.get("CI") else 77)
    began = time.monotonic()
    work = tempfile.mkdtemp(prefix="pdctl-alerts-")
    variants = [Variant("off", 123, False, source_dir, pdctl, work),
                Variant("on", 124, True, source_dir, pdctl, work)]
    webhook = Webhook()
    pool = concurrent.futures.ThreadPoolExecutor(len(variants))
    both = lambda call: [f.result() for f in [pool.submit(call, v) for v in variants]]  # noqa: E731
    ok = False
    try:
        both(Variant.start_cluster)
        for variant in variants:
            variant.export(webhook.url())
            variant.start_daemons()
        started = time.monotonic()
        for variant in variants:
            count = wait_for(f"{variant.name}: every target and probe up", variant.everything_up, 60)
            print(f"{variant.name}: all {count} targets up {time.monotonic() - started:.1f} s after the daemons started")

        # 2. A healthy cluster pages nobody: nothing fires for QUIET_S, nothing reaches the webhook.
        quiet_from = time.monotonic()
        while time.monotonic() - quiet_from < QUIET_S:
            for variant in variants:
                if variant.firing():
                    fail(f"{variant.name}: alerts fire on a healthy cluster: {variant.firing()}")
                if webhook.received(variant.cluster):
                    fail(f"{variant.name}: the webhook got {webhook.received(variant.cluster)}")
            time.sleep(1)
        print(f"quiet: no alert fired and none reached the webhook for {QUIET_S} s in either variant")

        # 3. The router dies.
        killed = {v.name: v.kill("n5", "router", 0) for v in variants}
        router_s = {v.name: delivered(webhook, v, killed[v.name], "PDRouterDown") for v in variants}
        for v in variants:
            print(f"{v.name}: router killed -> PDRouterDown at the webhook in {router_s[v.name]:.1f} s "
                  f"(bound {DELIVERY_BOUND_S} s)")

        # 4. A rank >= 1 dies: decode rank 2, on n7.
        killed = {v.name: v.kill("n7", "decode", 2) for v in variants}
        rank_s = {v.name: delivered(webhook, v, killed[v.name], "PDRankDown", group="decode", rank="2")
                  for v in variants}
        for v in variants:
            print(f"{v.name}: decode rank 2 killed -> PDRankDown at the webhook in {rank_s[v.name]:.1f} s "
                  f"(bound {DELIVERY_BOUND_S} s)")

        for v in variants:
            masked = webhook.received(v.cluster, alertname="PDRouterNotServing") + \
                webhook.received(v.cluster, alertname="PDTargetDown", group="decode", rank="2")
            if masked:
                fail(f"{v.name}: an alert that PDRouterDown/PDRankDown covers reached the webhook: {masked}")
        ok = True
    finally:
        both(Variant.stop)
        webhook.close()
        pool.shutdown()
        if not ok:
            for variant in variants:
                variant.print_logs()
        shutil.rmtree(work, ignore_errors=True)
    print(f"alerts: quiet for {QUIET_S} s, then the router's and a rank's death paged the webhook in both "
          f"variants; wall time {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"FAIL: {error}")
        sys.exit(1)
