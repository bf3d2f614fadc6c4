#!/usr/bin/env python3
"""The docs say what the code does, where the two can be compared mechanically.

- docs/exit-codes.md has one row per ExitCode (include/pdctl/util/exit_code.hpp), and `pdctl --help`'s
  footer (src/cli/app.cpp) names the same codes;
- README's Layout section names every folder of src/ that holds code;
- docs/lock-and-history.md names every verb that takes the deploy lock (run_mutating_verb in src/ops/);
- no page sends a user to a document they do not have (the project's own design and context notes).

    tests/analysis/docs_consistency.py [ROOT]

Exits 1 and says what disagrees.
"""

import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
problems = []


def read(relative):
    return (ROOT / relative).read_text(encoding="utf-8")


def exit_codes():
    enum = re.findall(r"^\s*k\w+\s*=\s*(\d+),", read("include/pdctl/util/exit_code.hpp"), re.M)
    codes = {int(code) for code in enum}
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", read("docs/exit-codes.md"), re.M)}
    footer = read("src/cli/app.cpp").split("kExitCodes =", 1)[1].split('";', 1)[0]
    in_help = {int(code) for code in re.findall(r"(?:\"  |· )(\d+) ", footer)}
    for name, found in (("docs/exit-codes.md", documented), ("pdctl --help (src/cli/app.cpp)", in_help)):
        if found != codes:
            problems.append(f"{name}: exit codes {sorted(found)}, the code has {sorted(codes)}")


def layout():
    text = read("README.md")
    section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    for folder in sorted(p.name for p in (ROOT / "src").iterdir() if p.is_dir()):
        if f"`{folder}/`" not in section:
            problems.append(f"README.md Layout: src/{folder}/ is not named")


def locking_verbs():
    verbs = set()
    for source in (ROOT / "src/ops").glob("*.cpp"):
        verbs.update(re.findall(r'run_mutating_verb\([^;]*?"(\w+)"', source.read_text(encoding="utf-8"), re.S))
    verbs.update({"start", "stop", "restart"})  # engine_run.cpp passes the engine verb's name
    page = read("docs/lock-and-history.md")
    lock_section = page.split("## The deploy lock", 1)[1].split("\n### ", 1)[0]
    journal_section = page.split("## The journal", 1)[1].split("\n- ", 1)[0]
    for verb in sorted(verbs):
        for name, section in (("the deploy lock", lock_section), ("the journal", journal_section)):
            if f"`{verb}`" not in section:
                problems.append(f"docs/lock-and-history.md, {name}: `{verb}` takes the lock but is not listed")


def no_private_references():
    pattern = re.compile(r"shared/(context|design|fixtures)|pd-stack-facts|seed documents|\bthe seed\b")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "profiles").rglob("*"))]
    for page in pages:
        if not page.is_file():
            continue
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                problems.append(f"{page.relative_to(ROOT)}:{number}: cites a document users do not have: {line.strip()}")


exit_codes()
layout()
locking_verbs()
no_private_references()
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
