#!/usr/bin/env python3
"""A ratchet for patterns the codebase is retiring: counts each one over the library sources
(src/**/*.cpp|h, tests and fuzzers excluded) and fails when a count rises above its ceiling in
ratchet.json. A count below its ceiling passes and says so, so the ceiling can be lowered in the
same change that removed the uses. (After Perfetto's python/tools/check_ratchet.py.)

usage: ratchet.py [--root REPO] [--write]   --write sets every ceiling to today's count
       ratchet.py --self-test
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (what it is, what to use instead, counter)
def count_regex(pattern, skip_file=None):
    rx = re.compile(pattern)

    def count(files):
        n = 0
        for path, text in files:
            if skip_file and skip_file(path):
                continue
            n += len(rx.findall(text))
        return n
    return count


def long_functions(limit):
    """Function bodies of `limit` lines or more: a definition starting at column 0 whose line ends
    with '{' (or whose next line is '{'), measured to the matching '}' at column 0."""
    def count(files):
        n = 0
        for path, text in files:
            if not path.endswith(".cpp"):
                continue
            lines = text.split("\n")
            i = 0
            while i < len(lines):
                line = lines[i]
                starts = (line and not line[0].isspace() and line.rstrip().endswith("{") and "(" in line
                          and not line.startswith(("namespace", "struct", "class", "enum", "union", "extern",
                                                   "#", "//")) and "=" not in line.split("(")[0])
                if starts:
                    j = i + 1
                    while j < len(lines) and not lines[j].startswith("}"):
                        j += 1
                    if j - i + 1 >= limit:
                        n += 1
                    i = j
                i += 1
        return n
    return count


def in_serialisation(path):
    base = os.path.basename(path)
    return any(k in base for k in ("json", "render", "_io", "schema", "fields", "yaml", "knowledge"))


PATTERNS = {
    "string_keyed_request_reads": (
        "a request field read back by name (rq.str(\"x\")): a typo compiles and returns empty",
        "a typed request struct (core/fields.h)",
        count_regex(r"\brq\.(?:str|integer|number|flag|strings|json|has)\(\"")),
    "manual_error_propagation": (
        "an error copied into a result by hand (vr.error = x.error(); return vr;)",
        "RETURN_IF_ERROR / ASSIGN_OR_RETURN over a value-plus-damage result",
        count_regex(r"\.error\s*=\s*[\w\->.()]+\.error\(\)\s*;")),
    "functions_over_150_lines": (
        "a function body of 150 lines or more",
        "functions split by meaning",
        long_functions(150)),
    "json_key_writes_outside_serialisation": (
        "a JSON object built key by key (j[\"key\"] = ...) in logic code",
        "a struct with a fields::List, written by its generated codec",
        count_regex(r"\[\"[A-Za-z_0-9]+\"\]\s*=[^=]", skip_file=in_serialisation)),
    "door_verb_lists": (
        "a door naming verbs one by one (register_verb(app, \"x\"), tool_for_verb(\"x\"))",
        "a loop over app::verbs()",
        count_regex(r"register_verb\(app, \"|tool_for_verb\(\"|verb_response\(c, \"")),
    "call_preamble_copies": (
        "a door validating arguments itself (app::make_request outside the one preamble, app::call)",
        "app::call(verb, args, door, ctx)",
        count_regex(r"\bmake_request\(", skip_file=lambda p: p.endswith(("app/registry.cpp", "app/request.cpp",
                                                                        "app/verb.h")))),
    "sync_call_substring_tests": (
        "a runtime call tested for \"Synchronize\" by hand",
        "is_sync_call() (model/runtime_call.h)",
        count_regex(r"\"Synchronize\"", skip_file=lambda p: p.endswith("model/runtime_call.h"))),
}


def library_files(root):
    out = []
    for d, _, names in os.walk(os.path.join(root, "src")):
        for n in sorted(names):
            if not n.endswith((".cpp", ".h")) or n.endswith("_test.cpp") or n.startswith("fuzz_"):
                continue
            if "testdata" in d:
                continue
            p = os.path.join(d, n)
            with open(p, encoding="utf-8", errors="replace") as f:
                out.append((os.path.relpath(p, root), f.read()))
    return out


def counts(files):
    return {name: counter(files) for name, (_, _, counter) in PATTERNS.items()}


def self_test():
    files = [("src/a/x.cpp", 'void f() {\n  auto s = rq.str("a");\n  vr.error = r.error();\n  j["k"] = 1;\n}\n'),
             ("src/a/x_json.cpp", 'void g() {\n  j["k"] = 1;\n}\n'),
             ("src/a/long.cpp", "int h(int a) {\n" + "  a++;\n" * 150 + "}\n")]
    c = counts(files)
    expect = {"string_keyed_request_reads": 1, "manual_error_propagation": 1, "functions_over_150_lines": 1,
              "json_key_writes_outside_serialisation": 1}
    bad = {k: (c[k], v) for k, v in expect.items() if c[k] != v}
    print("ratchet self-test:", "ok" if not bad else f"FAILED {bad}")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    ceil_path = os.path.join(HERE, "ratchet.json")
    now = counts(library_files(a.root))
    if a.write:
        with open(ceil_path, "w") as f:
            json.dump(now, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"ratchet: ceilings written to {ceil_path}")
        return 0
    with open(ceil_path) as f:
        ceilings = json.load(f)
    failed = 0
    for name, (what, instead, _) in PATTERNS.items():
        n, cap = now[name], ceilings.get(name)
        if cap is None:
            print(f"ratchet: {name}: no ceiling in ratchet.json (count {n}); run ratchet.py --write")
            failed += 1
        elif n > cap:
            print(f"ratchet: {name} rose to {n} (ceiling {cap}): {what}. Use {instead} instead.")
            failed += 1
        elif n < cap:
            print(f"ratchet: {name} fell to {n} (ceiling {cap}): lower the ceiling in tests/checks/ratchet.json")
        else:
            print(f"ratchet: {name} {n} (ceiling {cap})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
