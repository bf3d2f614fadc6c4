#!/usr/bin/env python3
"""Every #include between layers follows an arrow that src/CMakeLists.txt declares.

The build already refuses an include of a layer that is not linked at all (each layer sees only the
include roots of what it links). Two holes stay open, and this closes them:

- a relative include (`#include "../lint/rule_support.hpp"`) reaches another folder's private header
  past every include root;
- links are transitive: a layer that links plan sees runtime/ too, since plan links runtime PUBLIC, so
  an include of pdctl/runtime/ compiles in a layer that never declared it needs runtime.

So: no `#include "../` anywhere in src/, include/, tests/ or bench/; and a layer's sources and public
headers include `pdctl/X/...` only for X itself, a layer it names in its own pdctl_layer(...) line, or
exec/command.hpp where it names pdctl_command. For cli/, which links ops/, report/ and the vocabulary
layers only, that is the rule that ops/ is its one way into the rest: ops links the engine, the
executors, state and the others PUBLIC, so their headers compile in cli/, and only this check refuses
them.

PENDING names the few includes that still break the rule, each with the file it is in, until the code
that needs it moves; an entry that no longer matches anything is reported, to be removed.

    tests/analysis/layer_includes.py [ROOT]

Exits 1 and names file:line for every include that breaks a rule.
"""

import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
LAYER_LINE = re.compile(r"^pdctl_layer\((\w+)(.*?)\)\s*$", re.S)

# (file, include): an include that breaks the rule until the code that needs it moves. None today.
PENDING = set()


def declared_layers():
    """layer -> the pdctl_* targets its pdctl_layer(...) call names (PUBLIC and PRIVATE alike)."""
    text = (ROOT / "src" / "CMakeLists.txt").read_text()
    layers = {}
    # A call may span lines: join each pdctl_layer( ... ) up to its closing parenthesis.
    for match in re.finditer(r"^pdctl_layer\((\w+)([^)]*)\)", text, re.M):
        name, rest = match.group(1), match.group(2)
        layers[name] = set(re.findall(r"pdctl_(\w+)", rest))
    return layers


def layer_files(layer):
    files = list((ROOT / "src" / layer).glob("*.cpp")) + list((ROOT / "src" / layer).glob("*.hpp"))
    public = ROOT / "include" / "pdctl" / layer
    if public.is_dir():
        files += list(public.rglob("*.hpp"))
    return sorted(files)


def includes(path):
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        match = INCLUDE.match(line)
        if match:
            yield number, match.group(1)


def main():
    problems = []
    for folder in ("src", "include", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cc") or not path.is_file():
                continue
            for number, target in includes(path):
                if target.startswith("../"):
                    problems.append(f"{path.relative_to(ROOT)}:{number}: #include \"{target}\" reaches into "
                                    "another folder past the include roots; include its public header "
                                    "(pdctl/LAYER/...) or move what both need into one")

    layers = declared_layers()
    pending_seen = set()
    for layer, deps in sorted(layers.items()):
        for path in layer_files(layer):
            for number, target in includes(path):
                parts = target.split("/")
                if len(parts) < 3 or parts[0] != "pdctl":
                    continue
                other = parts[1]
                if other == layer or other in deps:
                    continue
                if target == "pdctl/exec/command.hpp" and "command" in deps:
                    continue
                if (str(path.relative_to(ROOT)), target) in PENDING:
                    pending_seen.add((str(path.relative_to(ROOT)), target))
                    continue
                problems.append(f"{path.relative_to(ROOT)}:{number}: #include \"{target}\": layer {layer} "
                                f"does not link pdctl_{other} (src/CMakeLists.txt); it only sees it "
                                "through another layer. Declare the arrow or drop the include")

    for file, target in sorted(PENDING - pending_seen):
        print(f"layer_includes: note: {file} no longer includes \"{target}\": remove it from PENDING")
    for problem in problems:
        print(problem)
    checked = sum(len(layer_files(layer)) for layer in layers)
    print(f"layer_includes: {len(layers)} layers, {checked} files: "
          + (f"{len(problems)} problem(s)" if problems else "every include follows a declared arrow"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
