#!/usr/bin/env python3
"""Fails on a file declaring a namespace outside goblin's scheme (DEVELOPING.md § Namespaces).

One scheme: the code of src/<module>/ lives in namespace goblin::<module> (and namespaces under
it: goblin::<module>::detail, goblin::trace::kineto), except core and model, the vocabulary every
module shares, which stay in goblin (their own helpers may use goblin::<name>, e.g.
goblin::limits). Two namespaces are shared by design and allowed everywhere: goblin::fields (the
extension point of core/fields.h, specialised where a struct's field list lives) and
goblin::testing (test helpers). A block that only forward-declares another module's types
(`namespace hw { struct HwKnowledge; }`) declares nothing new and is allowed too. Anonymous
namespaces are internal and take no part; so do `namespace fs = std::filesystem;` aliases.

Usage: check_namespaces.py SOURCE_DIR   exit 0 clean, 1 with one line per violation
       check_namespaces.py --self-test   plants violations in a temporary tree and expects them
"""
import pathlib
import re
import sys

SHARED_VOCABULARY = {"core", "model"}  # stay in namespace goblin
ALLOWED_EVERYWHERE = {"goblin::fields", "goblin::testing"}

TOKEN = re.compile(r"\bnamespace\s+([A-Za-z_][\w:]*)?\s*\{|\{|\}")
FORWARD_ONLY = re.compile(r"^(?:\s*(?:struct|class|enum\s+class|enum\s+struct)\s+\w+\s*;)*\s*$")


def strip(text):
    """The source without comments, string and character literals (kept as blanks, lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blocks(text):
    """(full namespace name, own body, line) of each named namespace block: nested names are joined
    (goblin { hw { → goblin::hw) and a block's own body leaves out its named sub-blocks."""
    code = strip(text)
    stack = []  # per open brace: the namespace name it opened, "" for anonymous, None otherwise
    opened = []  # (index into stack, name, start of body, line, spans of named sub-blocks)
    found = []
    for m in TOKEN.finditer(code):
        tok = m.group(0)
        if tok.startswith("namespace"):
            name = m.group(1) or ""
            stack.append(name)
            if name:
                full = "::".join(s for s in stack if s)
                opened.append((len(stack) - 1, full, m.end(), code.count("\n", 0, m.start()) + 1, [], m.start()))
        elif tok == "{":
            stack.append(None)
        else:
            if not stack:
                continue
            depth = len(stack) - 1
            stack.pop()
            if opened and opened[-1][0] == depth:
                _, full, start, line, subs, head = opened.pop()
                own, at = [], start
                for a, b in subs:
                    own.append(code[at:a])
                    at = b
                own.append(code[at:m.start()])
                found.append((full, "".join(own), line))
                if opened:
                    opened[-1][4].append((head, m.end()))
    return found


def allowed(module, full, body, modules):
    if full in ALLOWED_EVERYWHERE or any(full.startswith(a + "::") for a in ALLOWED_EVERYWHERE):
        return True
    parts = full.split("::")
    if module in SHARED_VOCABULARY:
        if parts[0] == "goblin" and (len(parts) == 1 or parts[1] not in modules):
            return True
        return bool(FORWARD_ONLY.match(body))
    own = "goblin::" + module
    if full == own or full.startswith(own + "::"):
        return True
    # `namespace goblin {` that only opens the way to goblin::<module>, or a block that only
    # forward-declares another module's types.
    return bool(FORWARD_ONLY.match(body))


def check(root):
    root = pathlib.Path(root)
    problems = []
    modules = {p.name for p in (root / "src").iterdir() if p.is_dir()}
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".h", ".cpp") or not path.is_file():
            continue
        rel = path.relative_to(root / "src")
        module = rel.parts[0]
        bad = [(full, line) for full, body, line in blocks(path.read_text(errors="replace"))
               if not allowed(module, full, body, modules)]
        scheme = "goblin" if module in SHARED_VOCABULARY else "goblin::" + module
        for full, line in bad:
            problems.append(f"src/{rel.as_posix()}:{line}: namespace {full}: code of src/{module}/ lives in "
                            f"{scheme} (DEVELOPING.md § Namespaces)")
    return problems


def self_test():
    """Planted files: each violation must be reported, each allowed form must pass."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        files = {
            "src/core/a.h": "namespace goblin {\nint f();\n}\nnamespace goblin::limits { int x; }\n",
            "src/model/b.cpp": "namespace goblin::model {\nint g();\n}\n",  # bad: model stays goblin
            "src/hw/c.cpp": "namespace goblin::hw {\nnamespace {\nint h() { return 1; }\n}  // namespace\n}\n",
            "src/hw/d.cpp": "namespace goblin {\nint legacy();\n}\n",  # bad: hw code in goblin
            "src/app/e.h": "namespace goblin {\nnamespace hw {\nstruct HwKnowledge;\n}\n}\n"
                           "namespace goblin::app {\nint run();\n}\n",
            "src/app/f.cpp": 'namespace goblin::app {\nconst char* s = "namespace goblin { }";\n}\n'
                             "namespace goblin::fields { template <> int x = 1; }\n",
            "src/kernel/g.cpp": "// namespace goblin {\nnamespace goblin { namespace kernel { int k(); } }\n"
                                "namespace goblin { namespace hw { int sneaky(); } }\n",  # bad: defines in hw
            "src/analysis/h.cpp": "namespace goblin {\nint a();\n}\n",  # bad: analysis code in goblin
            "src/trace/i.cpp": "namespace goblin::trace {\nint t();\n}\n",
            "src/cli/j.cpp": "namespace goblin::cli {\nint c();\n}\n",
            "src/cli/k.cpp": "namespace goblin {\nint legacy_cli();\n}\n",  # bad: cli code in goblin
        }
        for rel, text in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        got = check(root)
        want = [
            "src/hw/d.cpp:1: namespace goblin",
            "src/kernel/g.cpp:3: namespace goblin::hw",
            "src/model/b.cpp:1: namespace goblin::model",
            "src/cli/k.cpp:1: namespace goblin",
            "src/analysis/h.cpp:1: namespace goblin",
        ]
        missing = [w for w in want if not any(w in g for g in got)]
        extra = [g for g in got if not any(w in g for w in want)]
        if missing or extra:
            print("self-test failed:\n  missing: %s\n  unexpected: %s" % (missing, extra))
            return 1
    print("check_namespaces self-test: ok")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    print(f"check_namespaces: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
