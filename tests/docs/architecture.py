#!/usr/bin/env python3
"""Draws docs/architecture.svg from the code itself, so the picture cannot go stale: the modules and
their dependencies from each src/**/CMakeLists.txt's goblin_module(NAME DEPS ...) call (drawn
bottom-up, one row per layer, each edge to a direct dependency after a transitive reduction), and
the four doors with the number of verbs each offers from `goblin verbs --json`.

usage: architecture.py --goblin build/goblin [--root REPO] [--write]   (without --write: check)
"""
import argparse
import html
import json
import os
import re
import subprocess
import sys

DOORS = [("cli", "command line", "cli"), ("mcp", "MCP server", "mcp"), ("serve", "HTTP /api/v1", "http"),
         ("python", "Python module", "python")]


def modules(root):
    mods = {}
    for d, _, names in os.walk(os.path.join(root, "src")):
        if "CMakeLists.txt" not in names:
            continue
        text = open(os.path.join(d, "CMakeLists.txt")).read()
        for m in re.finditer(r"goblin_module\((\w+)([^)]*)\)", text):
            args = m.group(2).split()
            deps, mode = [], None
            for a in args:
                if a in ("DEPS", "TEST_DEPS", "EXCLUDE"):
                    mode = a
                elif mode == "DEPS" and a.startswith("goblin_"):
                    deps.append(a[len("goblin_"):])
            files = len([n for n in os.listdir(d) if n.endswith(".cpp") and not n.endswith("_test.cpp")
                         and not n.startswith("fuzz_")])
            mods[m.group(1)] = {"deps": sorted(set(deps)), "files": files}
    return mods


def layers(mods):
    memo = {}

    def depth(n, seen=()):
        if n in memo:
            return memo[n]
        if n in seen:
            raise SystemExit(f"architecture: a dependency cycle through {n}")
        d = 0 if not mods[n]["deps"] else 1 + max(depth(x, seen + (n,)) for x in mods[n]["deps"] if x in mods)
        memo[n] = d
        return d
    return {n: depth(n) for n in mods}


def reduced_edges(mods):
    def reach(n, seen):
        for x in mods[n]["deps"]:
            if x in mods and x not in seen:
                seen.add(x)
                reach(x, seen)
        return seen
    edges = []
    for n, m in mods.items():
        for d in m["deps"]:
            if d not in mods:
                continue
            # drop n -> d when another dependency of n already reaches d
            if any(d in reach(o, set()) for o in m["deps"] if o != d and o in mods):
                continue
            edges.append((n, d))
    return sorted(edges)


def door_counts(goblin):
    env = json.loads(subprocess.run([goblin, "verbs", "--json"], capture_output=True, text=True, timeout=60,
                                    check=True).stdout)
    counts = {}
    for v in env["result"]["verbs"]:
        for d in v["doors"].split(", "):
            counts[d] = counts.get(d, 0) + 1
    return counts, len(env["result"]["verbs"])


def svg(mods, counts, total):
    lay = layers(mods)
    rows = {}
    for n in sorted(mods, key=lambda n: (lay[n], n)):
        rows.setdefault(lay[n], []).append(n)
    top = max(rows) + 1  # the doors' row
    bw, bh, gx, gy, pad = 150, 40, 24, 46, 20
    width = max(len(r) for r in list(rows.values()) + [DOORS]) * (bw + gx) + 2 * pad
    height = (top + 1) * (bh + gy) + 2 * pad + 30
    pos = {}

    def place(r, names):
        y = pad + 30 + (top - r) * (bh + gy)
        x0 = (width - (len(names) * (bw + gx) - gx)) / 2
        for i, n in enumerate(names):
            pos[n] = (x0 + i * (bw + gx), y)
    for r, names in rows.items():
        place(r, names)
    place(top, ["door:" + d[0] for d in DOORS])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{pad}" y="{pad + 8}" font-size="14" font-weight="bold">goblin: modules (arrows point to what '
           f'a module uses) and the four doors over the verb registry ({total} verbs)</text>']
    lines = []
    for a, b in reduced_edges(mods):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        lines.append(f'<line x1="{x1 + bw / 2:.0f}" y1="{y1 + bh:.0f}" x2="{x2 + bw / 2:.0f}" y2="{y2:.0f}" '
                     f'stroke="#8a96a8" stroke-width="1.2" marker-end="url(#a)"/>')
    for d, _, _ in DOORS:
        if d in mods:
            (x1, y1), (x2, y2) = pos["door:" + d], pos[d]
            lines.append(f'<line x1="{x1 + bw / 2:.0f}" y1="{y1 + bh:.0f}" x2="{x2 + bw / 2:.0f}" y2="{y2:.0f}" '
                         f'stroke="#c0803a" stroke-width="1.5" stroke-dasharray="4 3" marker-end="url(#a)"/>')
    out.append('<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
               'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#8a96a8"/></marker></defs>')
    out += lines
    for n, (x, y) in sorted(pos.items()):
        if n.startswith("door:"):
            d = n[5:]
            label, key = next((lbl, k) for dd, lbl, k in DOORS if dd == d)
            out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{bw}" height="{bh}" rx="18" fill="#fde9d2" '
                       f'stroke="#c0803a"/>')
            out.append(f'<text x="{x + bw / 2:.0f}" y="{y + 17:.0f}" text-anchor="middle" font-weight="bold">'
                       f'{html.escape(label)}</text>')
            out.append(f'<text x="{x + bw / 2:.0f}" y="{y + 32:.0f}" text-anchor="middle">'
                       f'{counts.get(key, 0)} verbs</text>')
        else:
            out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{bw}" height="{bh}" rx="4" fill="#e8eef8" '
                       f'stroke="#4a6490"/>')
            out.append(f'<text x="{x + bw / 2:.0f}" y="{y + 17:.0f}" text-anchor="middle" font-weight="bold">'
                       f'src/{html.escape(n.replace("trace_", "trace/"))}</text>')
            out.append(f'<text x="{x + bw / 2:.0f}" y="{y + 32:.0f}" text-anchor="middle">'
                       f'{mods[n]["files"]} source files</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    counts, total = door_counts(a.goblin)
    picture = svg(modules(a.root), counts, total)
    path = os.path.join(a.root, "docs", "architecture.svg")
    if a.write:
        with open(path, "w") as f:
            f.write(picture)
        print(f"architecture: wrote {path}")
        return 0
    current = open(path).read() if os.path.exists(path) else ""
    if current == picture:
        print("architecture: docs/architecture.svg is current")
        return 0
    print("architecture: docs/architecture.svg is stale (a module, a dependency or a door changed); regenerate "
          "it with tests/docs/architecture.py --goblin build/goblin --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
