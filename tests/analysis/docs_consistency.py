#!/usr/bin/env python3
"""The docs say what the code does, where the two can be compared mechanically.

- docs/exit-codes.md has one row per ExitCode (include/pdctl/util/exit_code.hpp), and `pdctl --help`'s
  footer (src/cli/app.cpp) and the man page's EXIT STATUS (src/package/pdctl.h2m) name the same codes;
- README's Layout section names every folder of src/ that holds code;
- README's "Using it" shows every verb; its list of the verbs without `--role`/`--group` (and
  docs/operations.md's of the verbs with them) is exactly the verbs without them, and its `--json` sentence names exactly the verbs that print JSON;
- docs/lock-and-history.md names every verb that takes the deploy lock (run_mutating_verb and
  run_journaled_verb in src/ops/);
- every relative link of README.md and docs/*.md leads to a file that exists and, with `#anchor`, to a
  heading of it; so does every `docs/NAME.md#anchor` the docs, the man page and the sources name;
- no page sends a user to a document they do not have (the project's own design and context notes),
  and no page, man page source or `--help` text speaks of the project's own history: issue or session
  numbers, commit hashes, "this machine".

    tests/analysis/docs_consistency.py [ROOT [PDCTL]]

With PDCTL (a built pdctl, or $PDCTL_BINARY) every verb's `--help` output is read as well; without it,
the string literals of src/cli/ stand in for the help texts. Exits 1 and says what disagrees.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
PDCTL = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("PDCTL_BINARY", "")
problems = []


def read(relative):
    return (ROOT / relative).read_text(encoding="utf-8")


def enum_exit_codes():
    enum = re.findall(r"^\s*k\w+\s*=\s*(\d+),", read("include/pdctl/util/exit_code.hpp"), re.M)
    return {int(code) for code in enum}


def exit_codes():
    codes = enum_exit_codes()
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", read("docs/exit-codes.md"), re.M)}
    footer = read("src/cli/app.cpp").split("kExitCodes =", 1)[1].split('";', 1)[0]
    in_help = {int(code) for code in re.findall(r"(?:\"  |· )(\d+) ", footer)}
    man = read("src/package/pdctl.h2m")
    status = man.split("[EXIT STATUS]", 1)[1].split("\n[", 1)[0] if "[EXIT STATUS]" in man else ""
    in_man = {int(code) for code in re.findall(r"^\.B (\d+)\s*$", status, re.M)}
    for name, found in (("docs/exit-codes.md", documented), ("pdctl --help (src/cli/app.cpp)", in_help),
                        ("the man page's EXIT STATUS (src/package/pdctl.h2m)", in_man)):
        if found != codes:
            missing, extra = sorted(codes - found), sorted(found - codes)
            problems.append(f"{name}: exit codes {sorted(found)}, the code has {sorted(codes)}"
                            f"{f'; missing {missing}' if missing else ''}{f'; unknown {extra}' if extra else ''}")


def layout():
    text = read("README.md")
    section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    for folder in sorted(p.name for p in (ROOT / "src").iterdir() if p.is_dir()):
        if f"`{folder}/`" not in section:
            problems.append(f"README.md Layout: src/{folder}/ is not named")


# ---- verbs -------------------------------------------------------------------------------------------

def verb_sources():
    """{verb: source text of the file that adds it} for every top-level verb of src/cli/."""
    verbs = {}
    for source in sorted((ROOT / "src/cli").glob("*.cpp")):
        text = source.read_text(encoding="utf-8")
        for verb in re.findall(r'\bapp\.add_subcommand\(\s*"([a-z-]+)"', text):
            verbs[verb] = text
    return verbs


def readme_verbs():
    verbs = verb_sources()
    if not verbs:
        problems.append("src/cli/: no verb found (app.add_subcommand(\"NAME\", ...))")
        return
    readme = read("README.md")
    using = readme.split("## Using it", 1)[1].split("\n## ", 1)[0] if "## Using it" in readme else ""
    blocks = "\n".join(re.findall(r"```sh\n(.*?)```", using, re.S))
    shown = set(re.findall(r"^pdctl(?: -c \S+)? ([a-z-]+)", blocks, re.M))
    for verb in sorted(set(verbs) - shown):
        problems.append(f"README.md Using it: `pdctl {verb}` is not shown")
    for verb in sorted(shown - set(verbs)):
        problems.append(f"README.md Using it: `pdctl {verb}` is not a verb")

    # "--role/--group on every verb that acts on roles (all but `lock`, ...)"
    without_scope = {verb for verb, text in verbs.items() if "add_scope_flags(" not in text}
    match = re.search(r"`--role`/`--group` on every verb[^(]*\(all but ([^)]*)\)", using)
    if not match:
        problems.append("README.md Using it: the sentence listing the verbs without `--role`/`--group` is gone")
    else:
        listed = set(re.findall(r"`([a-z-]+)`", match.group(1)))
        if listed != without_scope:
            problems.append(f"README.md Using it: verbs without --role/--group listed as {sorted(listed)}, "
                            f"the code has {sorted(without_scope)}")

    # docs/operations.md: "`--role R` (...) and `--group G` (...) work on `start`, ...; both may be repeated."
    match = re.search(r"`--role R`.*?`--group G`.*? work on (.*?);", read("docs/operations.md"), re.S)
    listed = set(re.findall(r"`([a-z-]+)`", match.group(1))) if match else set()
    if listed != set(verbs) - without_scope:
        problems.append(f"docs/operations.md: the verbs `--role`/`--group` work on are listed as {sorted(listed)}, "
                        f"the code has {sorted(set(verbs) - without_scope)}")

    # "`--json` makes stdout one JSON document (`plan`, ...) or JSON Lines events (`start`, ...)"
    json_verbs = {verb for verb, text in verbs.items()
                  if any(mark in text for mark in ("global.json", "print_result(", "run_engine_verb("))}
    match = re.search(r"`--json` makes stdout(.*?)\.(?:\s|$)", using, re.S)
    if not match:
        problems.append("README.md Using it: the `--json` sentence is gone")
    else:
        listed = set(re.findall(r"`([a-z-]+)`", match.group(1)))
        if listed != json_verbs:
            missing, extra = sorted(json_verbs - listed), sorted(listed - json_verbs)
            problems.append(f"README.md Using it: the `--json` sentence lacks {missing} / names {extra} "
                            "(verbs that print JSON: those whose source reads global.json or prints through "
                            "print_result, and start/stop/restart)")


def locking_verbs():
    verbs = set()
    for source in (ROOT / "src/ops").glob("*.cpp"):
        text = source.read_text(encoding="utf-8")
        verbs.update(re.findall(r'run_mutating_verb\([^;]*?"(\w+)"', text, re.S))
        verbs.update(re.findall(r'run_journaled_verb\([^;]*?"(\w+)', text, re.S))  # "heal", "heal pause": heal
    verbs.update({"start", "stop", "restart"})  # engine_run.cpp passes the engine verb's name
    page = read("docs/lock-and-history.md")
    lock_section = page.split("## The deploy lock", 1)[1].split("\n### ", 1)[0]
    journal_section = page.split("## The journal", 1)[1].split("\n- ", 1)[0]
    for verb in sorted(verbs):
        for name, section in (("the deploy lock", lock_section), ("the journal", journal_section)):
            if f"`{verb}`" not in section:
                problems.append(f"docs/lock-and-history.md, {name}: `{verb}` takes the lock but is not listed")


# ---- links and anchors -------------------------------------------------------------------------------

def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def without_code_blocks(text):
    """The text with fenced code blocks blanked (line numbers kept): links there are not links."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return out


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        found, seen = set(), {}
        for line in without_code_blocks(path.read_text(encoding="utf-8")):
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                base = slug(heading.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(re.findall(r'<a (?:name|id)="([^"]+)"', line))
        anchor_cache[path] = found
    return anchor_cache[path]


def check_target(where, base_dir, target):
    path_part, _, anchor = target.partition("#")
    path = (base_dir / path_part).resolve() if path_part else None
    if path is not None and not path.exists():
        problems.append(f"{where}: link to {target}: {path_part} does not exist")
        return
    if anchor:
        if path is None:
            return
        if path.is_dir() or path.suffix != ".md":
            problems.append(f"{where}: link to {target}: an anchor on a file that is not markdown")
        elif anchor not in anchors(path):
            problems.append(f"{where}: link to {target}: {path.relative_to(ROOT)} has no heading #{anchor}")


def links():
    for page in pages():
        where_page = page.relative_to(ROOT)
        for number, line in enumerate(without_code_blocks(page.read_text(encoding="utf-8")), 1):
            line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
            for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, file:
                    continue
                if target.startswith("#"):
                    target = page.name + target
                check_target(f"{where_page}:{number}", page.parent, target)
    # `docs/NAME.md#anchor` as text: in the docs, the man page, the sources (finding references, hints).
    texts = [*pages(), ROOT / "src/package/pdctl.h2m", *sorted((ROOT / "src").rglob("*.cpp")),
             *sorted((ROOT / "src").rglob("*.hpp")), *sorted((ROOT / "include").rglob("*.hpp"))]
    for path in texts:
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name, anchor in re.findall(r"(?<![\w/.])docs/([\w-]+\.md)#([\w-]+)", line):
                check_target(f"{path.relative_to(ROOT)}:{number}", ROOT / "docs", f"{name}#{anchor}")


# ---- what users cannot see ---------------------------------------------------------------------------

PRIVATE = re.compile(r"shared/(context|design|fixtures)|pd-stack-facts|seed documents|\bthe seed\b")
HISTORY = [
    (re.compile(r"\b(?:issues?|sessions?) #?\d+", re.I), "speaks of the project's issue or session numbers"),
    (re.compile(r"\bitem \d+ of\b", re.I), "speaks of an item of the project's own issues"),
    (re.compile(r"\bthis machine\b", re.I), "says \"this machine\" (name it: the control node, the CI machine, ...)"),
    (re.compile(r"\brunbook rule \d", re.I), "cites a numbered runbook rule (docs/runbook.md numbers none)"),
    (re.compile(r"\boriginal experiment's README\b|\bthe (?:seed|original) README\b", re.I),
     "cites a README users never saw"),
]
# A commit: 7-12 hex digits, with a digit and a letter, said to be one ("commit X", "built from X",
# "fixed in X", "(up to X)") or quoted on its own (`abc1234`). A container ID or config fingerprint
# shown in sample output ("id 3f2a9c1b7e4d", "config 7028cc9") is neither. In a git checkout, any such
# word that is one of the repository's commits counts too (commits_named).
HEX = r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}"
COMMIT = re.compile(rf"(?:\bcommits?|\bbuilt from|\bfixed in|\bclone of|\bup to|\bat|\bof)\s+`?{HEX}\b|`{HEX}`", re.I)
UPSTREAM = re.compile(r"\b(?:sglang|mooncake|libssh2|llm-d|nixl|dynamo|vllm|kubernetes|lws|rbg)\b[^.;]{0,40}"
                      r"(?:issue|PR|#)", re.I)


def scan(where, text, history=None):
    for number, line in enumerate(text.splitlines(), 1):
        if PRIVATE.search(line):
            problems.append(f"{where}:{number}: cites a document users do not have: {line.strip()}")
        for pattern, what in history if history is not None else HISTORY:
            match = pattern.search(line)
            # An upstream project's issue ("sglang issue #12779") is a public reference, not our history.
            if match and not (pattern is HISTORY[0][0] and UPSTREAM.search(line[:match.end()]) and "#" in match.group()):
                problems.append(f"{where}:{number}: {what}: {line.strip()}")
        for match in COMMIT.finditer(line):
            problems.append(f"{where}:{number}: names a commit ({match.group().strip('` ')}): {line.strip()}")


def commits_named(texts):
    """Any 7-12 hex digit word that is a commit of ROOT's repository (when ROOT is a git checkout)."""
    if not (ROOT / ".git").exists():
        return
    words = {}
    for where, text in texts:
        for number, line in enumerate(text.splitlines(), 1):
            for word in re.findall(r"(?<![\w./:-])[0-9a-f]{7,12}(?![\w/-])", line):
                words.setdefault(word, (where, number, line.strip()))
    if not words:
        return
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "cat-file", "--batch-check"], capture_output=True, text=True,
                              input="".join(f"{word}^{{commit}}\n" for word in words), timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return
    for word, answer in zip(words, done.stdout.splitlines()):
        if answer.split()[1:2] == ["commit"]:
            where, number, line = words[word]
            message = f"{where}:{number}: names a commit ({word}): {line}"
            if message not in problems:
                problems.append(message)


def help_texts():
    """[(where, text)]: every verb's --help from PDCTL, else the string literals of src/cli/."""
    if PDCTL:
        env = dict(os.environ, NO_COLOR="1", COLUMNS="200")

        def run(*args):
            done = subprocess.run([PDCTL, *args, "--help"], capture_output=True, text=True, env=env, timeout=30)
            if done.returncode != 0:
                problems.append(f"pdctl {' '.join(args)} --help: exit {done.returncode}")
            return done.stdout

        def subcommands(text):
            block = re.search(r"\nSubcommands:\n((?:  .*\n?)+)", text)
            return re.findall(r"^  ([a-z][a-z-]*)", block.group(1), re.M) if block else []

        out, main = [], run()
        out.append(("pdctl --help", main))
        for verb in subcommands(main):
            text = run(verb)
            out.append((f"pdctl {verb} --help", text))
            for sub in subcommands(text):
                out.append((f"pdctl {verb} {sub} --help", run(verb, sub)))
        return out
    out = []
    for source in sorted((ROOT / "src/cli").glob("*.cpp")):
        text = source.read_text(encoding="utf-8")
        code = re.sub(r"//[^\n]*", "", text)  # comments are not help
        # Adjacent literals are one string: join them, so a reference split over two lines is still seen.
        literals = re.findall(r'"((?:[^"\\\n]|\\.)*)"((?:\s*"(?:[^"\\\n]|\\.)*")*)', code)
        joined = [first + "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', rest)) for first, rest in literals]
        out.append((f"{source.relative_to(ROOT)} (its strings)", "\n".join(joined)))
    return out


def no_private_references():
    for page in pages():
        scan(page.relative_to(ROOT), page.read_text(encoding="utf-8"))
    # The profiles' comments may say "this machine" of the simulated cluster's host; nothing else.
    for page in sorted((ROOT / "profiles").rglob("*")):
        if page.is_file():
            scan(page.relative_to(ROOT), page.read_text(encoding="utf-8"), [HISTORY[0], HISTORY[1]])
    texts = [(page.relative_to(ROOT), page.read_text(encoding="utf-8")) for page in pages()]
    for extra in ("docs/live-view.txt", "src/package/pdctl.h2m", "src/package/changelog"):
        if (ROOT / extra).is_file():
            texts.append((extra, read(extra)))
            scan(extra, read(extra))
    for where, text in help_texts():
        texts.append((where, text))
        scan(where, text)
    commits_named(texts)


exit_codes()
layout()
readme_verbs()
locking_verbs()
links()
no_private_references()
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
