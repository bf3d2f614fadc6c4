"""What the live Prometheus tests share: a JSON GET and a bounded poll (no sleeps as synchronisation)."""
import json
import time
import urllib.error
import urllib.request


class TestFailure(AssertionError):
    """A check that did not hold; the test prints it and exits 1."""


def get_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return json.loads(answer.read().decode())


def wait_for(what, condition, deadline_s):
    """Polls `condition` (a value or None) every 250 ms until it answers or the deadline passes."""
    end = time.monotonic() + deadline_s
    last_error = None
    while time.monotonic() < end:
        try:
            value = condition()
            if value:
                return value
        except (urllib.error.URLError, OSError, ValueError, KeyError) as error:
            last_error = error
        time.sleep(0.25)
    raise TestFailure(f"{what}: not within {deadline_s} s (last error: {last_error})")
