#!/usr/bin/env python3
"""Fails on text formatting that is not fmt (DEVELOPING.md § Text).

goblin builds text one way: fmt::format / fmt::format_to (issue #26). printf's family, string
streams and std::to_string each format numbers their own way (std::to_string(double) is "%f", a
stream's default is "%g", fmt's "{}" is the shortest round trip), so one module's "1.5" is
another's "1.500000". A file under src/ may not use snprintf/sprintf, std::ostringstream or
std::stringstream, std::to_string or <iomanip>; there are no exceptions (the files written before
the rule were converted, and their allow-list went with them). Reading with std::istringstream is
parsing, not formatting, and stays allowed; so do comments.

Usage: check_text.py SOURCE_DIR        exit 0 clean, 1 with one line per violation
       check_text.py --self-test        plants violations in a temporary tree and expects them
"""
import pathlib
import re
import sys

BANNED = re.compile(r"(\bv?sn?printf\b|\bostringstream\b|\bstringstream\b|\bstd::to_string\b|<iomanip>)")


def code_of(line):
    """The line without a // comment (a // inside a string literal, as in a URL, is kept)."""
    for m in re.finditer(r"//", line):
        if line.count('"', 0, m.start()) % 2 == 0:
            return line[:m.start()]
    return line


def uses(path):
    """(line number, what) for each banned use in one file."""
    out = []
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        for m in BANNED.finditer(code_of(line)):
            out.append((n, m.group(1)))
    return out


def check(root):
    root = pathlib.Path(root)
    problems = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        rel = path.relative_to(root).as_posix()
        for n, what in uses(path):
            problems.append(f"{rel}:{n}: {what}: build text with fmt::format / fmt::format_to "
                            f"(DEVELOPING.md § Text)")
    return problems


def self_test():
    """The check itself is checked: planted uses must be reported, comments and parsing not."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        files = {
            "src/core/a.cpp": 'void f(char* b) { std::snprintf(b, 8, "%d", 1); }\n',
            "src/core/b.cpp": "std::ostringstream os;\nstd::stringstream ss;\n",
            "src/core/c.h": "auto s = std::to_string(1);\n#include <iomanip>\n",
            "src/core/d.cpp": '// snprintf in a comment\nstd::istringstream in(s);\nfmt::format("{}", 1);\n'
                              'auto u = "http://x"; // std::to_string\n',
            "src/core/old.cpp": "std::string s = std::to_string(2);\n",
        }
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        out = "\n".join(check(root))
    expected = ["src/core/a.cpp:1: snprintf", "src/core/b.cpp:1: ostringstream", "src/core/b.cpp:2: stringstream",
                "src/core/c.h:1: std::to_string", "src/core/c.h:2: <iomanip>", "src/core/old.cpp:1: std::to_string"]
    unexpected = ["src/core/d.cpp"]
    missing = [e for e in expected if e not in out]
    wrong = [u for u in unexpected if u in out]
    ok = not missing and not wrong
    print(out + "\n" + ("self-test: ok" if ok else f"self-test FAILED, not reported: {missing}, reported: {wrong}"))
    return 0 if ok else 1


def main():
    if sys.argv[1] == "--self-test":
        return self_test()
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    print(f"check_text: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
