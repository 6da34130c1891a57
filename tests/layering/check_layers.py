#!/usr/bin/env python3
"""Fails on an #include that goes up a layer, and on a module that links what it does not use.

goblin's modules form one chain (DEVELOPING.md § Layout); a module may include its own headers and
those of modules below it, never above (the way Perfetto's include-violation check keeps its
layers). A module's CMake DEPS must be exactly what its library sources use: every goblin_X it
links is included by at least one of its sources, and every module it includes is reachable
through what it links (otherwise it builds only by luck of link order).

Usage: check_layers.py SOURCE_DIR        exit 0 clean, 1 with one line per violation
       check_layers.py --self-test        plants violations in a temporary tree and expects them
"""
import pathlib
import re
import sys

# Lowest first. The order is the contract; DEVELOPING.md repeats it.
LAYERS = ["core", "model", "config", "trace", "hw", "analysis", "query", "audit", "run", "kernel", "store", "app", "mcp", "serve", "cli", "python"]
RANK = {m: i for i, m in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)
MODULE_CALL = re.compile(r"goblin_module\(\s*([a-z_]+)((?:\s+[^)]*)?)\)", re.S)


def module_of(lib):
    """goblin_trace_kineto -> trace (a reader's library is part of the trace layer)."""
    name = lib[len("goblin_"):]
    for m in LAYERS:
        if name == m or name.startswith(m + "_"):
            return m
    return None


def parse_deps(cmake_text):
    """{module name: (deps, test_deps)} for each goblin_module() call in one CMakeLists.txt."""
    out = {}
    for name, rest in MODULE_CALL.findall(cmake_text):
        section, deps, test_deps = None, [], []
        for tok in rest.split():
            if tok in ("DEPS", "TEST_DEPS", "EXCLUDE"):
                section = tok
            elif section == "DEPS":
                deps.append(tok)
            elif section == "TEST_DEPS":
                test_deps.append(tok)
        out[name] = (deps, test_deps)
    return out


def self_test():
    """The check itself is checked: a planted upward include and a planted unused link must fail."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        for m, text, cmake in (("core", '#include "cli/verbs.h"\n', "goblin_module(core DEPS fmt::fmt)"),
                               ("model", '#include "core/status.h"\n', "goblin_module(model DEPS goblin_core goblin_hw)"),
                               ("hw", '#include "model/x.h"\n', "goblin_module(hw DEPS goblin_model)"),
                               ("cli", '#include "hw/x.h"\n', "goblin_module(cli DEPS goblin_core)")):
            (root / "src" / m).mkdir(parents=True)
            (root / "src" / m / "x.h").write_text(text)
            (root / "src" / m / "CMakeLists.txt").write_text(cmake)
        out = subprocess.run([sys.executable, __file__, d], capture_output=True, text=True).stdout
    expected = ["'core' includes 'cli/', a layer above it", "src/model: links goblin_hw but no library source",
                "src/cli: includes 'hw/' but does not link goblin_hw"]
    missing = [e for e in expected if e not in out]
    print(out + ("self-test: ok" if not missing else f"self-test FAILED, not reported: {missing}"))
    return 1 if missing else 0


def main():
    if sys.argv[1] == "--self-test":
        return self_test()
    src = pathlib.Path(sys.argv[1]) / "src"
    problems = []
    deps_of = {}  # module (layer) -> set of layers it links (direct)
    includes_of = {}  # module (layer) -> set of layers its library sources include
    for cm in sorted(src.rglob("CMakeLists.txt")):
        for name, (deps, test_deps) in parse_deps(cm.read_text()).items():
            layer = module_of("goblin_" + name)
            linked = {module_of(d) for d in deps if d.startswith("goblin_")} - {None, layer}
            deps_of.setdefault(layer, set()).update(linked)
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        layer = path.relative_to(src).parts[0]
        if layer not in RANK:
            problems.append(f"{path}: module '{layer}' is not in the layer list of {sys.argv[0]}")
            continue
        is_test = path.name.endswith("_test.cpp") or path.name.startswith("fuzz_")
        text = path.read_text(errors="replace")
        for m in re.finditer(INCLUDE, text):
            inc = m.group(1)
            if inc not in RANK:
                continue  # a third-party header with a slash (CLI/CLI.hpp has capitals; yaml-cpp/...)
            line = text.count("\n", 0, m.start()) + 1
            if RANK[inc] > RANK[layer] and not is_test:
                problems.append(f"{path}:{line}: '{layer}' includes '{inc}/', a layer above it "
                                f"({' -> '.join(LAYERS)})")
            if not is_test and inc != layer:
                includes_of.setdefault(layer, set()).add(inc)

    def closure(layer, seen=None):
        seen = set() if seen is None else seen
        for d in deps_of.get(layer, ()):
            if d not in seen:
                seen.add(d)
                closure(d, seen)
        return seen

    for layer in LAYERS:
        linked, used = deps_of.get(layer, set()), includes_of.get(layer, set())
        for d in sorted(linked - used):
            problems.append(f"src/{layer}: links goblin_{d} but no library source of it includes '{d}/'")
        reach = closure(layer)
        for u in sorted(used - reach):
            problems.append(f"src/{layer}: includes '{u}/' but does not link goblin_{u} (add it to DEPS)")
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} violation(s) in {len(LAYERS)} layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
