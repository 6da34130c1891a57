#!/usr/bin/env bash
# `goblin query` against plain sqlite3 on the same trace: every SQL example of docs/query.md §
# Examples, run by `goblin query FILE "SQL" --timer` and by `sqlite3 DB "SQL"` on the database
# `goblin export FILE --format sqlite` wrote (the export's time is not counted). Prints, per
# example: goblin's whole wall time (read the trace + open + statement), its statement time
# (--timer), sqlite3's wall time, and statement / sqlite3. A statement is stopped after
# TIMEOUT seconds (default 300) and reported as ">TIMEOUT".
# CPU seconds beside wall seconds (the machine may be shared): goblin's statement CPU (--timer) and
# sqlite3's whole process (user + system, at 10 ms resolution; the ratio takes at least 10 ms).
# Usage: bench/query_speed.sh GOBLIN FILE [TIMEOUT] [DB_GOBLIN]
#   DB_GOBLIN: the goblin that writes the SQLite export (default GOBLIN); give the new binary when
#   GOBLIN is an old one that lacks columns the examples read.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:?usage: bench/query_speed.sh GOBLIN FILE [TIMEOUT] [DB_GOBLIN]}"
file="${2:?usage: bench/query_speed.sh GOBLIN FILE [TIMEOUT] [DB_GOBLIN]}"
limit="${3:-300}"
dbbin="${4:-$bin}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The examples: the ```sql block under "### Examples", one statement per "-- comment" line.
python3 - "$here/../docs/query.md" "$work" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"### Examples\n\n```sql\n(.*?)```", text, re.S).group(1)
stmts, cur = [], None
for line in block.splitlines():
    if line.startswith("-- "):
        cur = [line[3:], ""]
        stmts.append(cur)
    elif cur is not None:
        cur[1] += line + "\n"
for i, (title, sql) in enumerate(stmts):
    open(f"{sys.argv[2]}/{i:02d}.sql", "w").write(sql.strip() + "\n")
    open(f"{sys.argv[2]}/{i:02d}.title", "w").write(title + "\n")
PY
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(uptime)"
echo "# goblin: $bin; trace: $file ($(stat -c %s "$file") bytes)"
"$dbbin" export "$file" --format sqlite -o "$work/trace.db" > /dev/null || { echo "export failed" >&2; exit 3; }
cat "$file" > /dev/null
printf '%-4s %-9s %-9s %-9s %-9s %-9s %-7s %-7s %-5s %s\n' "#" goblin_s stmt_s stmt_cpu sqlite3_s sql3_cpu ratio cpu_rat same example
for f in "$work"/*.sql; do
  n=$(basename "$f" .sql)
  sql=$(cat "$f")
  s0=$(date +%s.%N)
  timeout "$limit" "$bin" query "$file" "$sql" --timer --format csv > "$work/g.csv" 2> "$work/g.err"
  rc=$?
  s1=$(date +%s.%N)
  /usr/bin/time -o "$work/s.time" -f "%U %S" timeout "$limit" sqlite3 -csv -header "$work/trace.db" "$sql" \
    > "$work/s.csv" 2> "$work/s.err"
  s2=$(date +%s.%N)
  python3 - "$n" "$rc" "$s0" "$s1" "$s2" "$limit" "$work" "$(cat "$work/$n.title")" <<'PY'
import csv, re, sys
n, rc, s0, s1, s2, limit, work, title = sys.argv[1:]
err = open(f"{work}/g.err").read()
g_wall = float(s1) - float(s0)
sq = float(s2) - float(s1)
m = re.search(r"statement ([0-9.]+) s wall, ([0-9.]+) s CPU", err)
u, sy = open(f"{work}/s.time").read().split()[-2:]
sq_cpu = float(u) + float(sy)
if rc in ("124", "137"):
    g, st, cpu, ratio, cratio = f">{limit}", f">{limit}", "-", "-", "-"
elif rc != "0" or not m:
    g, st, cpu, ratio, cratio = "error", "-", "-", "-", "-"
    title += "  [" + err.strip().splitlines()[-1][:80] + "]" if err.strip() else ""
else:
    st_s = float(m.group(1))
    cpu_s = float(m.group(2))
    g, st, cpu = f"{g_wall:.2f}", f"{st_s:.3f}", f"{cpu_s:.3f}"
    ratio, cratio = f"{st_s / max(sq, 1e-3):.2f}", f"{cpu_s / max(sq_cpu, 1e-2):.2f}"
# The same rows? Each CSV's rows sorted, reals compared to 9 significant digits (a sum's order
# may differ between the two plans).
def rows(path):
    out = []
    for line in list(csv.reader(open(path, newline="")))[1:]:
        cells = []
        for cell in line:
            try:
                cells.append(f"{float(cell):.9g}" if "." in cell or "e" in cell else cell)
            except ValueError:
                cells.append(cell)
        out.append("\x1f".join(cells))
    return sorted(out)
same = "-" if g in ("error", f">{limit}") else ("yes" if rows(f"{work}/g.csv") == rows(f"{work}/s.csv") else "NO")
print(f"{n:<4} {g:<9} {st:<9} {cpu:<9} {sq:<9.3f} {sq_cpu:<9.2f} {ratio:<7} {cratio:<7} {same:<5} {title}")
PY
done
