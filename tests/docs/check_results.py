#!/usr/bin/env python3
"""Fails when bench/results/ drifts from its rules (bench/results/README.md).

Each measurement is one folder under bench/results/ with a README.md that names the raw file of
every quoted figure; the folder keeps those files and no run-by-run logs. A figure is evidence
only as long as the file it names is there, so a link in any Markdown file under bench/results/
to a file that does not exist is a failure, as is a result folder without README.md or a *.log /
*.stderr file anywhere under bench/results/ (console output that is the only record of a figure
is kept as .txt and said so in its README).

The repository holds only the product: docs/results/ no longer exists, and a test that reads a
file under docs/ or bench/results/ fails this check too (test inputs live in tests/fixtures/).
A test source is a `*_test.cpp` under src/ or a file under tests/ or web/test/ other than this one; a path in
a comment is a citation, not a read.

Usage: check_results.py SOURCE_DIR     exit 0 clean, 1 with one line per violation
       check_results.py --self-test     plants violations in a temporary tree and expects them
"""
import pathlib
import re
import sys
import tempfile
from urllib.parse import unquote

FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
INLINE_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...
LOG_SUFFIXES = (".log", ".stderr")


def link_targets(markdown):
    """Relative link targets of a Markdown text, outside code (fenced blocks and code spans)."""
    text = CODE_SPAN.sub("", FENCE.sub("", markdown))
    for target in INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text):
        if EXTERNAL.match(target) or target.startswith("#"):
            continue
        path = unquote(target.split("#", 1)[0])
        if path:
            yield path


def check(results):
    """One line per violation under the bench/results folder `results`."""
    problems = []
    if not results.is_dir():
        return [f"{results}: no such folder"]
    for d in sorted(p for p in results.iterdir() if p.is_dir()):
        if not (d / "README.md").is_file():
            problems.append(f"{d}: a result folder without README.md")
    for f in sorted(results.rglob("*")):
        if f.is_file() and f.name.endswith(LOG_SUFFIXES):
            problems.append(f"{f}: a run-by-run log (*.log, *.stderr) does not belong in bench/results")
    for md in sorted(results.rglob("*.md")):
        for target in link_targets(md.read_text(encoding="utf-8", errors="replace")):
            if not (md.parent / target).exists():
                problems.append(f"{md}: links '{target}', which does not exist")
    return problems


# A path into docs/results/ or bench/results/ inside a string literal of a test.
TEST_READS = re.compile(r"""["'][^"'\n]*\b(?:docs|bench)/results\b""")
COMMENT = re.compile(r"^\s*(//|#|\*|/\*)")


def test_sources(root):
    src = root / "src"
    if src.is_dir():
        yield from sorted(src.rglob("*_test.cpp"))
    for tests in (root / "tests", root / "web" / "test"):
        if not tests.is_dir():
            continue
        for f in sorted(tests.rglob("*")):
            if f.is_file() and f.suffix in (".py", ".sh", ".cpp", ".js", ".mjs", ".json", ".txt") \
                    and "fixtures" not in f.parts and "node_modules" not in f.parts and f.name != "check_results.py":
                yield f


def check_tests(root):
    """One line per test source line that reads a file under docs/results or bench/results."""
    problems = []
    if (root / "docs" / "results").exists():
        problems.append(f"{root / 'docs' / 'results'}: measurements live in bench/results/, not docs/")
    for f in test_sources(root):
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if not COMMENT.match(line) and TEST_READS.search(line):
                problems.append(f"{f}:{n}: a test reads a file under docs/ or bench/results/ "
                                f"(move it into tests/fixtures/)")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        r = root / "bench" / "results"
        (r / "good" / "sub").mkdir(parents=True)
        (r / "good" / "data.json").write_text("{}")
        (r / "good" / "sub" / "x.csv").write_text("a\n")
        (r / "good" / "README.md").write_text(
            "[data](data.json), [x](sub/x.csv#L1), [web](https://example.com), [top](#raw-files)\n"
            "`[not a link](absent_in_code_span.json)`\n```\n[fenced](absent_in_fence.json)\n```\n"
            "[ref]: sub/x.csv\n")
        (r / "README.md").write_text("[good](good/README.md)\n")
        (r / "no_readme").mkdir()
        (r / "no_readme" / "result.json").write_text("{}")
        (r / "broken").mkdir()
        (r / "broken" / "README.md").write_text("[gone](gone.json)\n[gone ref]: also_gone.csv\n")
        (r / "good" / "sub" / "device.log").write_text("noise\n")
        (r / "good" / "run.stderr").write_text("")
        (root / "src" / "m").mkdir(parents=True)
        (root / "src" / "m" / "a_test.cpp").write_text(
            '// measured in bench/results/x (a citation)\n'
            'auto t = load(GOBLIN_SOURCE_DIR "/docs/results/x/trace.json");\n'
            'auto f = load(GOBLIN_SOURCE_DIR "/tests/fixtures/x/trace.json");\n')
        (root / "tests" / "t").mkdir(parents=True)
        (root / "tests" / "t" / "check.py").write_text('# bench/results/x\nopen(os.path.join(src, "bench/results/x/a.json"))\n')
        (root / "web" / "test").mkdir(parents=True)
        (root / "web" / "test" / "page.mjs").write_text("const res = join(SRC, 'docs/results');\n")
        (root / "docs" / "results").mkdir(parents=True)
        problems = check(r) + check_tests(root)
    expected = ["no_readme: a result folder without README.md", "links 'gone.json'", "links 'also_gone.csv'",
                "device.log: a run-by-run log", "run.stderr: a run-by-run log", "a_test.cpp:2: a test reads",
                "check.py:2: a test reads", "page.mjs:1: a test reads",
                "measurements live in bench/results/, not docs/"]
    missing = [e for e in expected if not any(e in p for p in problems)]
    extra = [p for p in problems if not any(e in p for e in expected)]
    out = "".join(p + "\n" for p in problems)
    ok = not missing and not extra
    print(out + ("self-test: ok" if ok else f"self-test FAILED, not reported: {missing}, unexpected: {extra}"))
    return 0 if ok else 1


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    if sys.argv[1] == "--self-test":
        return self_test()
    root = pathlib.Path(sys.argv[1])
    problems = check(root / "bench" / "results") + check_tests(root)
    for p in problems:
        print(p)
    print(f"bench/results: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
