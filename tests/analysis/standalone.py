#!/usr/bin/env python3
"""Every source and header compiles on its own: the guard for includes that a unity batch hides.

The CI trees build in unity batches (up to 40 sources per translation unit), so a source that uses a name
without including its header still compiles when an earlier source of its batch includes it, and breaks
every build without batches, such as `.ci/demo`'s once did (src/runtime/slurm_job.cpp, launch_argv).
This compiles each translation unit of a non-unity compile database (preset standalone: clang-14,
every target, configured here, nothing built) with -fsyntax-only: the parse and template
instantiation that find a missing declaration, without code generation or linking. A header of
include/, src/ or bench/ is compiled as a translation unit of its own only when no source includes it
first: a source whose first #include it is already checks that it stands alone.

Only what users build is checked: src/, include/ and bench/. The test sources and their helpers
(tests/) are built by CI's presets, all in unity batches, and without batches only by a developer's
own `dev` build, which shows a missing include at once. They were 173 of 480 sources and the heaviest
(GoogleTest and gMock in each): about half of this check's 12 CPU minutes on every CI run.

    tests/analysis/standalone.py [--jobs N] [PATH-FILTER...]

A PATH-FILTER (a substring of the path) checks only the matching files. Exits 1 if any file fails,
printing each failure's compiler output; 2 if the compile database cannot be made.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build-standalone"
HEADER_ROOTS = ("include", "src", "bench")
UNCHECKED = ROOT / "tests"


def configure():
    done = subprocess.run(["cmake", "--preset", "standalone", "--log-level=WARNING"], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"standalone: cmake --preset standalone failed:\n{done.stderr}")
    with open(BUILD / "compile_commands.json") as database:
        return json.load(database)


def without_outputs(arguments):
    """A compile command without what makes it write files: no -o, no -c, no dependency file
    (tests/analysis/clang-tidy.sh uses it too, to preprocess a batch)."""
    kept, skip = [], False
    for argument in arguments:
        if skip:
            skip = False
        elif argument in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif argument not in ("-c", "-MD", "-MMD"):
            kept.append(argument)
    return kept


def syntax_only(arguments):
    """A compile command turned into a syntax check."""
    return without_outputs(arguments) + ["-fsyntax-only"]


def source_checks(database):
    """(file, argv) for every source of the project; generated sources (in the build tree) are data."""
    checks = []
    for entry in database:
        path = Path(entry["directory"], entry["file"]).resolve()
        if BUILD in path.parents or ROOT not in path.parents or UNCHECKED in path.parents:
            continue
        arguments = entry.get("arguments") or shlex.split(entry["command"])
        checks.append((path, entry["directory"], syntax_only(arguments)))
    return checks


def header_target(header, sources):
    """The source whose flags a header is checked with: a header of include/pdctl/L/ is compiled as
    layer L's sources are (its include root sees exactly the layers L links); any other header as the
    sources in its own folder."""
    relative = header.relative_to(ROOT)
    if relative.parts[0] == "include":
        layer_dir = ROOT / "src" / relative.parts[2]
        candidates = [s for s in sources if s[0].parent == layer_dir]
    else:
        candidates = [s for s in sources if s[0].parent == header.parent]
    if not candidates:  # e.g. a header of bench/ whose folder has only scripts beside it
        candidates = [s for s in sources if header.parent in s[0].parents]
    return min(candidates, key=lambda s: str(s[0])) if candidates else None


FIRST_INCLUDE = re.compile(r'\s*#\s*include\s*[<"]([^">]+)[">]')


def first_includes(sources):
    """The headers some source includes before anything else, resolved as its compiler would: its
    own folder, then its -I directories (a layer's include root links to include/pdctl/)."""
    found = set()
    for source, directory, arguments in sources:
        with open(source, encoding="utf-8") as text:
            included = next((m.group(1) for m in map(FIRST_INCLUDE.match, text) if m), None)
        if included is None:
            continue
        roots = [source.parent] + [Path(directory, a[2:]) for a in arguments if a.startswith("-I")]
        for root in roots:
            if (root / included).is_file():
                found.add((root / included).resolve())
                break
    return found


def header_checks(sources):
    checks, orphans = [], []
    covered = first_includes(sources)
    for top in HEADER_ROOTS:
        for header in sorted((ROOT / top).rglob("*.hpp")):
            if header.resolve() in covered:
                continue
            target = header_target(header, sources)
            if target is None:
                orphans.append(header)
                continue
            source, directory, arguments = target
            # The compiler and flags of that source, with the header in place of the source file: a
            # one-line source that includes it, since ccache does not cache a header compiled as
            # itself (-x c++-header). The include is relative, so the source reads the same in every
            # clone and a clone elsewhere hits the cache too.
            flags = [a for a in arguments if Path(directory, a).resolve() != source]
            checks.append((header, directory, flags + [str(including_source(header))]))
    return checks, orphans


def including_source(header):
    """build-standalone/headers/<header's path>.cpp: a source whose only line includes the header."""
    relative = header.relative_to(ROOT)
    source = BUILD / "headers" / relative.parent / (relative.name + ".cpp")
    source.parent.mkdir(parents=True, exist_ok=True)
    text = f'#include "{os.path.relpath(header, source.parent)}"\n'
    if not source.is_file() or source.read_text() != text:
        source.write_text(text)
    return source


def compiler_launcher():
    """ccache (or what CMAKE_CXX_COMPILER_LAUNCHER names, as the build trees use): a syntax check of
    unchanged inputs is then a cache hit. ccache caches -fsyntax-only's result (its diagnostics)."""
    launcher = os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER", "")
    return shlex.split(launcher)


def run(check):
    path, directory, arguments = check
    done = subprocess.run(compiler_launcher() + arguments, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    return path, done.returncode, done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("PDCTL_ANALYSIS_JOBS", "2")))
    parser.add_argument("filters", nargs="*")
    options = parser.parse_args()

    began = time.monotonic()
    sources = source_checks(configure())
    headers, orphans = header_checks(sources)
    if orphans:
        print("standalone: no source to take flags from for: " +
              ", ".join(str(o.relative_to(ROOT)) for o in orphans), file=sys.stderr)
        return 2
    checks = sources + headers
    if options.filters:
        checks = [c for c in checks if any(f in str(c[0]) for f in options.filters)]
    failed = 0
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        for path, code, output in pool.map(run, checks):
            if code != 0:
                failed += 1
                print(f"standalone: {path.relative_to(ROOT)} does not compile on its own:\n{output}",
                      file=sys.stderr)
    took = time.monotonic() - began
    print(f"standalone: {len(checks) - failed} of {len(checks)} files compile on their own "
          f"({len(sources)} sources, {len(headers)} headers no source includes first) in {took:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
