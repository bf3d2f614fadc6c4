#!/usr/bin/env python3
"""Regenerates the seed corpora in tests/fuzz/corpus/<target>/ from real inputs in the repository:
the shipped profiles, tests/fixtures, tests/golden, and the string literals of the unit tests that feed
each parser (adjacent literals are joined, as the compiler does). Seeds are content-addressed, so
running it again only adds files. Usage: tests/fuzz/make_corpus.py"""
import hashlib
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/fuzz/corpus"
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def unescape(text):
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            c = text[i + 1]
            if c == "x":
                digits = re.match(r"[0-9a-fA-F]+", text[i + 2:]).group(0)
                out.append(chr(int(digits, 16)))
                i += 2 + len(digits)
                continue
            out.append(ESCAPES.get(c, c))
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def literal_groups(path):
    """Each run of adjacent string literals (separated only by blanks) in a C++ file, joined."""
    source = path.read_text()
    groups, current, last_end = [], None, None
    for match in LITERAL.finditer(source):
        if source[match.start() - 1:match.start()] == "R":
            continue  # raw strings are rare here and need their own delimiter handling
        value = unescape(match.group(1))
        if current is not None and source[last_end:match.start()].strip() == "":
            current += value
        else:
            if current is not None:
                groups.append(current)
            current = value
        last_end = match.end()
    if current is not None:
        groups.append(current)
    return groups


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)


def files(pattern):
    return sorted(ROOT.glob(pattern))


def tests(name):
    return literal_groups(ROOT / "tests/unit" / name)


# env_file: each profile alone, and config.env NUL profile, as load_cluster pairs them.
for directory in files("profiles/*") + files("tests/profiles/*"):
    base = (directory / "config.env").read_bytes() if (directory / "config.env").exists() else b""
    for env in sorted(directory.glob("*.env")):
        write("env_file", env.read_bytes())
        write("env_file", base + b"\0" + env.read_bytes())
for text in tests("config/env_file_test.cpp"):
    if "=" in text:
        write("env_file", text)

# cluster_yaml: the real cluster files, and the YAML snippets of the loader tests.
for path in files("profiles/*/pdctl.yaml") + files("tests/profiles/*/pdctl.yaml"):
    write("cluster_yaml", path.read_bytes())
for name in ["config/cluster_loader_test.cpp", "config/files_test.cpp", "config/dependencies_test.cpp",
             "config/config_test_util.hpp"]:
    for text in tests(name):
        if ":" in text and "\n" in text:
            write("cluster_yaml", text)

# ssh_config and known_hosts: the texts their unit tests parse.
for text in tests("exec/ssh_config_test.cpp"):
    if "\n" in text:
        write("ssh_config", text)
for text in tests("exec/known_hosts_test.cpp"):
    if " " in text and len(text) > 20:
        write("known_hosts", text + "\n")

# log_phases: the log lines of the phase tests, as one tail per kind (first byte: 0 SGLang, 1 router,
# 2 Mooncake master, 3 generic).
lines = [t for t in tests("report/phases_test.cpp") + tests("report/live_view_model_test.cpp")
         if len(t) > 12 and "\n" not in t]
for kind in range(4):
    write("log_phases", bytes([kind]) + "\n".join(lines).encode())
    for start in range(0, len(lines), 8):
        write("log_phases", bytes([kind]) + "\n".join(lines[start:start + 8]).encode())

# http_answer: two bytes of status (200 = 0x64 + 100), then a /generate body, journal lines, lock answers.
status_200 = bytes([100, 0])
for text in tests("engine/journal_test.cpp") + tests("report/history_view_test.cpp") + \
        tests("engine/lock_test.cpp"):
    if len(text) > 8:
        write("http_answer", status_200 + text.encode())
write("http_answer", status_200 + b'{"text": " Paris. The capital of France", "meta_info": {"id": "1"}}')
write("http_answer", bytes([15, 1]) + b'{"error": "no healthy worker"}')

# node_output: first byte = number of push-probe paths; then what a node printed.
for path in files("tests/fixtures/*.csv"):
    write("node_output", b"\x01" + path.read_bytes())
for name in ["doctor/probe_test.cpp", "doctor/node_checks_test.cpp", "doctor/nvidia_smi_test.cpp",
             "push/push_plan_test.cpp", "push/pusher_test.cpp", "runtime/container_runtime_test.cpp",
             "runtime/log_query_test.cpp"]:
    for text in tests(name):
        if "\n" in text or "\t" in text:
            write("node_output", b"\x02" + text.encode())
