#!/usr/bin/env python3
"""Each simulated cluster of the tests has a loopback block of its own (127.0.N.x), in every test run.

The integration and fault tests start pdsim clusters on 127.0.N.x, N chosen by hand in each file
(`SimCluster cluster("name", N)`, a fixture's `cluster_("name", N)`, a fault case's `Param{..., N}`).
ctest runs test processes of different files at once, so one block in two files is two clusters on the
same ports whenever their tests overlap: a start then finds its ports taken. This check finds every block
named in more than one file. (Within one file, a block is one test's or one fixture's.)

    tests/analysis/loopback_blocks.py [ROOT]
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()

# `("name", 72)` as the last arguments of a cluster's constructor, and a fault case's `Param{..., 120}`.
NAMED = re.compile(r'\(\s*"[a-z0-9-]+",\s*(\d{2,3})\s*\)')
PARAM = re.compile(r'Param\{[^{}]*?,\s*(\d{2,3})\s*\}')
# A fixture that names its cluster from a parameter: `cluster_(cluster_name, 72)`; an address written out.
FIXTURE = re.compile(r'cluster_\(\s*[a-z_]+,\s*(\d{2,3})\s*\)')
ADDRESS = re.compile(r'127\.0\.(\d{1,3})\.')

# 127.0.50.x: the single-server tests of pdsim (tests/integration/sim_*), each on an address of its own in
# that block and ports of its own (sim_fixtures.hpp).
SHARED_BY_DESIGN = {50}

files_of = defaultdict(set)
for path in sorted((ROOT / "tests").rglob("*.[ch]pp")):
    if "unit" in path.relative_to(ROOT).parts:
        continue  # unit tests start no cluster; an address there is text (a log line to parse)
    text = path.read_text(encoding="utf-8", errors="replace")
    for pattern in (NAMED, PARAM, FIXTURE, ADDRESS):
        for match in pattern.finditer(text):
            block = int(match.group(1))
            if 1 <= block <= 254:
                files_of[block].add(str(path.relative_to(ROOT)))

shared = {block: files for block, files in files_of.items() if len(files) > 1 and block not in SHARED_BY_DESIGN}
for block, files in sorted(shared.items()):
    print(f"127.0.{block}.x is the block of {len(files)} files: {', '.join(sorted(files))}")
if shared:
    free = [n for n in range(60, 255) if n not in files_of][:10]
    print(f"free blocks: {', '.join(map(str, free))} ...")
    sys.exit(1)
print(f"loopback_blocks: {len(files_of)} blocks, each in one file")
