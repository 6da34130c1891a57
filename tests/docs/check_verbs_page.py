#!/usr/bin/env python3
"""docs/verbs.md is exactly what `goblin verbs --markdown` prints, and the README's command table
(between `<!-- commands:begin -->` and `<!-- commands:end -->`) is the registry's verbs with their
summaries: both are generated from the verb registry and cannot drift from it.

usage: check_verbs_page.py --goblin build/goblin --page docs/verbs.md [--readme README.md] [--write]
"""
import argparse
import difflib
import json
import subprocess
import sys

BEGIN, END = "<!-- commands:begin -->", "<!-- commands:end -->"


def synopsis(v):
    """`goblin triage PATH... -o OUT`: the command words, its positional fields and required options."""
    words = [f"goblin {v['name']}"]
    for f in v["fields"]:
        if "cli" not in f["doors"]:
            continue
        name = f["cli"] if f["positional"] and f["cli"] else f["name"]
        many = "..." if f["kind"] in ("input paths", "string list") else ""
        if f["positional"]:
            shown = name.upper().replace("-", "_") + many
            words.append(shown if f["required"] else f"[{shown}]")
        elif f["required"]:
            flag = [x for x in f["cli"].split(",") if x.startswith("-")][0]
            words.append(flag if f["kind"] == "boolean" else f"{flag} {f['name'].upper()}")
    return " ".join(words)


def first_clause(text):
    """The summary up to its first '.', ';' or ':' outside parentheses (followed by a space)."""
    depth = 0
    for i, c in enumerate(text):
        depth += c == "(" or c == "["
        depth -= (c == ")" or c == "]") and depth > 0
        if depth == 0 and c in ".;:" and i + 1 < len(text) and text[i + 1] == " ":
            return text[:i]
    return text


def command_table(goblin):
    """One row per verb: its synopsis, the first clause of its summary, and its doors."""
    env = json.loads(subprocess.run([goblin, "verbs", "--json"], capture_output=True, text=True, timeout=60,
                                    check=True).stdout)
    rows = ["| command | what it does | doors |", "|---|---|---|"]
    for v in env["result"]["verbs"]:
        summary = first_clause(v["summary"]).replace("|", "\\|")
        rows.append(f"| `{synopsis(v)}` | {summary} | {v['doors']} |")
    return "\n".join(rows) + "\n"


def check_readme(goblin, path, write):
    text = open(path).read()
    if BEGIN not in text or END not in text:
        print(f"check_verbs_page: {path} has no {BEGIN} ... {END} block for the command table")
        return 1
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    want = head + BEGIN + "\n" + command_table(goblin) + END + tail
    if want == text:
        print(f"check_verbs_page: {path}'s command table is current")
        return 0
    if write:
        open(path, "w").write(want)
        print(f"check_verbs_page: wrote the command table of {path}")
        return 0
    sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), want.splitlines(True), path, "registry", n=1))
    print(f"check_verbs_page: {path}'s command table is stale; regenerate it with --write")
    return 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("--readme", help="also check (or write) the README's command table")
    ap.add_argument("--write", action="store_true", help="regenerate the page")
    a = ap.parse_args()
    rc = check_readme(a.goblin, a.readme, a.write) if a.readme else 0
    now = subprocess.run([a.goblin, "verbs", "--markdown"], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    if a.write:
        with open(a.page, "w") as f:
            f.write(now)
        print(f"check_verbs_page: wrote {a.page}")
        return rc
    with open(a.page) as f:
        page = f.read()
    if page == now:
        print("check_verbs_page: docs/verbs.md is current")
        return rc
    sys.stdout.writelines(difflib.unified_diff(page.splitlines(True), now.splitlines(True), a.page,
                                               "goblin verbs --markdown", n=1))
    print(f"check_verbs_page: {a.page} is stale; regenerate it with "
          f"tests/docs/check_verbs_page.py --goblin build/goblin --page docs/verbs.md --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
