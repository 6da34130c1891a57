#!/usr/bin/env python3
"""Advice that works (issue #34): every --flag goblin's own words tell a user to pass exists on the
verb they name.

- README.md: each `goblin VERB ... --flag ...` command shown must be accepted by VERB (--help).
- What a verb says while it runs: the warnings and errors of metrics, breakdown, triage and
  roofline on the fixtures; a --flag they mention must be an option of that verb, or of the verb
  the same sentence names ("goblin roofline --gpu ID").
Exits 1 listing each flag that does not exist where it is advised.

usage: check_advice_flags.py --goblin build/goblin --fixtures tests/fixtures [--readme README.md]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
CMD = re.compile(r"`goblin ((?:[a-z][a-z-]* ?){1,2})([^`]*)`")
VERBS2 = {"kb", "store"}  # verbs with a sub-word (goblin kb lint, goblin store ls)
GLOBAL = {"--help", "--json", "--version", "--data-dir", "--list-warnings"}


def options(goblin, verb, cache={}):
    if verb not in cache:
        r = subprocess.run([goblin, *verb.split(), "--help"], capture_output=True, text=True, timeout=60)
        cache[verb] = set(FLAG.findall(r.stdout)) if r.returncode == 0 else None
    return cache[verb]


def verb_of(words):
    w = words.split()
    if not w:
        return None
    return " ".join(w[:2]) if w[0] in VERBS2 and len(w) > 1 else w[0]


def check(goblin, verb, text, where, bad):
    # A sentence that names another verb ("goblin roofline --gpu ID") is checked against that verb.
    for m in CMD.finditer(text):
        text = text.replace(m.group(0), "")
        v = verb_of(m.group(1))
        for f in FLAG.findall(m.group(2)):
            check_flag(goblin, v, f, where, bad)
    for m in re.finditer(r"goblin ([a-z][a-z-]*)[^.;:()]*", text):
        for f in FLAG.findall(m.group(0)):
            check_flag(goblin, m.group(1), f, where, bad)
        text = text.replace(m.group(0), "")
    for f in FLAG.findall(text):
        check_flag(goblin, verb, f, where, bad)


def check_flag(goblin, verb, flag, where, bad):
    if flag in GLOBAL:
        return
    opts = options(goblin, verb)
    if opts is None:
        bad.append(f"{where}: names verb `{verb}`, which goblin does not have")
    elif flag not in opts:
        bad.append(f"{where}: advises `{verb} {flag}`, which `goblin {verb}` does not take")


def messages(j):
    out = []
    if isinstance(j, dict):
        for k, v in j.items():
            if k in ("message", "error") and isinstance(v, str):
                out.append(v)
            else:
                out.extend(messages(v))
    elif isinstance(j, list):
        for v in j:
            out.extend(messages(v))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--readme", default=os.path.join(os.path.dirname(__file__), "..", "..", "README.md"))
    a = ap.parse_args()
    bad = []
    with open(a.readme, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for m in CMD.finditer(line):
                v = verb_of(m.group(1))
                for flag in FLAG.findall(m.group(2)):
                    check_flag(a.goblin, v, flag, f"README.md:{n}", bad)
    traces = [os.path.join(a.fixtures, "kineto", t) for t in (
        "h100_llama_bf16_sdpa_w4.json.gz", "mi250_rocm62_minitoy_train.json.gz", "triton_example.json.gz",
        "kineto_2021_legacy_resnet50.json.gz", "cpu_only_rank-34.json.gz")]
    with tempfile.TemporaryDirectory() as tmp:
        for verb in ("metrics", "breakdown", "roofline", "triage"):
            for t in traces:
                extra = ["-o", os.path.join(tmp, "t")] if verb == "triage" else []
                r = subprocess.run([a.goblin, verb, t, "--json", *extra], capture_output=True, text=True, timeout=600)
                try:
                    j = json.loads(r.stdout)
                except ValueError:
                    continue
                for msg in messages(j):
                    check(a.goblin, verb, msg, f"{verb} {os.path.basename(t)}", bad)
    for b in sorted(set(bad)):
        print("FAIL:", b)
    print(f"{len(set(bad))} advised flags that do not exist")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
