#!/usr/bin/env python3
"""Builds a rocpd database (the SQLite output rocprofv3 writes by default since ROCm 7.0) from a
rocprofv3 JSON output file (`--output-format json`, top key "rocprofiler-sdk-tool").

The tables are created by the official DDL, not by this script: pass --ddl-dir, a folder holding
rocpd_tables.sql (and, when present, rocpd_views.sql) from ROCm/rocm-systems at commit
1b1610fc2b2ab32af71e6e04e4d4a6a4ae597992, projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/
(rocpd_tables.sql sha256 9647843dd09aa5c8f3dbe581c2bfac18b827fd4cc45c935ed12ee93504ed65e9, checked;
schema_version 3). The rows are filled the way rocprofiler-sdk's own writer fills them
(source/lib/output/generateRocpd.cpp): table names with the run suffix "_" + UUID ('-' -> '_'),
agent id = the agent's node id, queue/stream id = the HSA queue / HIP stream handle, process id =
the OS pid, thread id = the OS tid, rocpd_event.stack_id = the internal correlation id and
rocpd_event.correlation_id = the external one, a region's category = its buffer-tracing kind.

Without the DDL at hand, --schema-from DB takes the schema from a database this script wrote from
it (tests/fixtures/rocpd/*.rocpd.db.gz): its CREATE statements, with that run's suffix and GUID
turned back into the DDL's {{uuid}} and {{guid}} placeholders, and its rocpd_metadata rows. The
simulated ROCm host's rocprofv3 (tests/sim_rocm) writes its rocpd output this way.

It is how goblin checks its rocpd reader against its rocprofv3 JSON reader on the same real run
(docs/formats.md): the database must give the same figures as the JSON it was built from.
Deterministic: the UUID is derived from the process id and start time, so the same input gives
the same database. Two departures from the writer keep the committed database small: a kernel
symbol's extdata (its JSON record: every name variant again, 30 MB on the gfx950 run) is left at
the DDL's default '{}', and records goblin does not analyse (memory allocation, scratch memory,
PC samples) are not written.

  tools/rocpd_from_rocprofv3_json.py --ddl-dir DIR results.json.gz out.db
  tools/rocpd_from_rocprofv3_json.py --schema-from tests/fixtures/rocpd/X.rocpd.db.gz results.json out.db
"""
import argparse
import gzip
import hashlib
import json
import os
import sqlite3
import sys
import uuid

DDL_SHA256 = "9647843dd09aa5c8f3dbe581c2bfac18b827fd4cc45c935ed12ee93504ed65e9"

# rocprofiler_agent_type_t
AGENT_TYPES = {1: "CPU", 2: "GPU"}


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def ddl_from_database(path):
    """The DDL (tables, indexes, the rocpd_metadata rows) and the views of a rocpd database this
    script wrote, as templates with the {{uuid}} / {{guid}} placeholders of the official files."""
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory(prefix="rocpd_schema_") as tmp:
        db_path = os.path.join(tmp, "schema.db")
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as src, open(db_path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        db = sqlite3.connect(db_path)
        try:
            rows = db.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").fetchall()
            meta = [n for t, n, _ in rows if t == "table" and n.startswith("rocpd_metadata_")]
            if len(meta) != 1:
                raise ValueError(f"{path}: expected one rocpd_metadata_<uuid> table, found {len(meta)}")
            suffix = meta[0][len("rocpd_metadata"):]
            guid = suffix[1:].replace("_", "-")
            tags = db.execute(f'SELECT tag, value FROM "{meta[0]}" ORDER BY id').fetchall()
        finally:
            db.close()

    def template(sql):
        return sql.replace(suffix, "{{uuid}}").replace(guid, "{{guid}}")

    ddl = [template(sql) + ";" for t, n, sql in rows if t in ("table", "index") and not n.startswith("sqlite_")]
    for tag, value in tags:
        ddl.append("INSERT INTO `rocpd_metadata{{uuid}}` (tag, value) VALUES ('%s', '%s');" %
                   (tag.replace("'", "''"), template(str(value)).replace("'", "''")))
    views = [template(sql) + ";" for t, _, sql in rows if t == "view"]
    return "\n".join(ddl), ("\n".join(views) if views else None)


def write_database(doc, out, ddl, views):
    """Writes rocprofv3's JSON document `doc` as the rocpd database `out` (replaced)."""
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    for tool in doc["rocprofiler-sdk-tool"]:
        db.execute("BEGIN")
        Run(db, tool, ddl, views).write()
        db.execute("COMMIT")
    db.execute("VACUUM")
    db.close()


def render(sql, suffix, guid):
    return sql.replace("{{uuid}}", suffix).replace("{{guid}}", guid)


class Run:
    """One process's records (one element of "rocprofiler-sdk-tool") written as one rocpd run."""

    def __init__(self, db, tool, ddl, views):
        self.db = db
        self.tool = tool
        md = tool.get("metadata", {})
        self.pid = int(md.get("pid", 0))
        init = int(md.get("init_time", 0))
        u = uuid.UUID(hashlib.md5(f"{self.pid}:{init}".encode()).hexdigest())
        self.guid = str(u)
        self.suffix = "_" + self.guid.replace("-", "_")
        db.executescript(render(ddl, self.suffix, self.guid))
        if views is not None:
            db.executescript(render(views, self.suffix, self.guid))
        self.strings = {}
        self.event_id = 0
        self.threads = set()
        self.queues = set()
        self.streams = set()
        self.nid = 1
        self.kinds = [(k["kind"], k.get("operations", [])) for k in tool.get("strings", {}).get("buffer_records", [])]
        self.agent_node = {}  # agent handle -> node id (the rocpd agent id)

    def t(self, base):
        return f'"{base}{self.suffix}"'

    def string(self, s):
        if s not in self.strings:
            sid = len(self.strings) + 1
            self.strings[s] = sid
            self.db.execute(f"INSERT INTO {self.t('rocpd_string')} (id, guid, string) VALUES (?, ?, ?)", (sid, self.guid, s))
        return self.strings[s]

    def op_name(self, kind, op):
        if kind < len(self.kinds) and op < len(self.kinds[kind][1]):
            return self.kinds[kind][1][op]
        return f"operation {kind}:{op}"

    def kind_name(self, kind):
        return self.kinds[kind][0] if kind < len(self.kinds) else f"kind {kind}"

    def event(self, category, corr):
        self.event_id += 1
        internal = int(corr.get("internal", 0))
        external = int(corr.get("external", 0))
        self.db.execute(
            f"INSERT INTO {self.t('rocpd_event')} (id, guid, category_id, stack_id, parent_stack_id, correlation_id) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (self.event_id, self.guid, self.string(category), internal, internal, external),
        )
        return self.event_id

    def thread(self, tid):
        if tid not in self.threads:
            self.threads.add(tid)
            self.db.execute(
                f"INSERT INTO {self.t('rocpd_info_thread')} (id, guid, nid, ppid, pid, tid) VALUES (?, ?, ?, ?, ?, ?)",
                (tid, self.guid, self.nid, self.tool["metadata"].get("ppid"), self.pid, tid),
            )
        return tid

    def named_handle(self, table, seen, handle, default_name, name_fmt):
        if handle not in seen:
            name = default_name if handle == 0 else name_fmt.format(len(seen) - 1 if seen else 0)
            seen.add(handle)
            self.db.execute(
                f"INSERT INTO {self.t(table)} (id, guid, nid, pid, name) VALUES (?, ?, ?, ?, ?)",
                (handle, self.guid, self.nid, self.pid, name),
            )
        return handle

    def write(self):
        md = self.tool.get("metadata", {})
        node = md.get("node", {})
        db, g = self.db, self.guid
        self.string("")
        db.execute(
            f"INSERT INTO {self.t('rocpd_info_node')} (id, guid, hash, machine_id, system_name, hostname, release, "
            "version, hardware_name, domain_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.nid, g, int(node.get("hash", 0)), node.get("machine_id", "unknown"), node.get("system_name"),
             node.get("hostname"), node.get("release"), node.get("version"), node.get("hardware_name"),
             node.get("domain_name")),
        )
        db.execute(
            f"INSERT INTO {self.t('rocpd_info_process')} (id, guid, nid, ppid, pid, init, fini, start, end, command) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.pid, g, self.nid, md.get("ppid"), self.pid, md.get("init_time"), md.get("fini_time"),
             md.get("init_time"), md.get("fini_time"), " ".join(md.get("command", []))),
        )
        for a in self.tool.get("agents", []):
            nid = int(a["node_id"])
            self.agent_node[int(a["id"]["handle"])] = nid
            db.execute(
                f"INSERT INTO {self.t('rocpd_info_agent')} (id, guid, nid, pid, type, absolute_index, logical_index, "
                "type_index, uuid, name, model_name, vendor_name, product_name, user_name, extdata) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (nid, g, self.nid, self.pid, AGENT_TYPES.get(int(a.get("type", 0))), nid, a.get("logical_node_id"),
                 a.get("logical_node_type_id"), a.get("device_id"), a.get("name"), a.get("model_name"),
                 a.get("vendor_name"), a.get("product_name"), a.get("product_name"), json.dumps(a)),
            )
        for co in self.tool.get("code_objects", []):
            if int(co.get("code_object_id", 0)) == 0:
                continue
            db.execute(
                f"INSERT INTO {self.t('rocpd_info_code_object')} (id, guid, nid, pid, agent_id, uri, load_base, "
                "load_size, load_delta, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (co["code_object_id"], g, self.nid, self.pid, self.agent_node.get(int(co.get("agent_id", co.get("rocp_agent", {})).get("handle", -1))),
                 co.get("uri"), co.get("load_base"), co.get("load_size"), co.get("load_delta"), json.dumps(co)),
            )
        for ks in self.tool.get("kernel_symbols", []):
            if int(ks.get("kernel_id", 0)) == 0 and int(ks.get("code_object_id", 0)) == 0:
                continue
            db.execute(
                f"INSERT INTO {self.t('rocpd_info_kernel_symbol')} (id, guid, nid, pid, code_object_id, kernel_name, "
                "display_name, kernel_object, kernarg_segment_size, kernarg_segment_alignment, group_segment_size, "
                "private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (ks["kernel_id"], g, self.nid, self.pid, ks["code_object_id"], ks.get("kernel_name"),
                 ks.get("formatted_kernel_name"), ks.get("kernel_object"), ks.get("kernarg_segment_size"),
                 ks.get("kernarg_segment_alignment"), ks.get("group_segment_size"), ks.get("private_segment_size"),
                 ks.get("sgpr_count"), ks.get("arch_vgpr_count"), ks.get("accum_vgpr_count")),
            )
        records = self.tool.get("buffer_records", {})
        for key, rows in records.items():
            for r in rows:
                self.record(key, r)

    def record(self, key, r):
        db, g = self.db, self.guid
        corr = r.get("correlation_id", {})
        category = self.kind_name(int(r.get("kind", 0)))
        if key == "kernel_dispatch":
            info = r["dispatch_info"]
            tid = self.thread(int(r.get("thread_id", 0)))
            queue = self.named_handle("rocpd_info_queue", self.queues, int(info["queue_id"]["handle"]),
                                      "Default Queue", "Queue {}")
            stream = self.named_handle("rocpd_info_stream", self.streams,
                                       int(r.get("stream_id", {"handle": 0})["handle"]), "Default Stream", "Stream {}")
            evt = self.event(category, corr)
            wg, grid = info["workgroup_size"], info["grid_size"]
            db.execute(
                f"INSERT INTO {self.t('rocpd_kernel_dispatch')} (id, guid, nid, pid, tid, agent_id, kernel_id, "
                "dispatch_id, queue_id, stream_id, start, end, private_segment_size, group_segment_size, "
                "workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, "
                "region_name_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (info["dispatch_id"], g, self.nid, self.pid, tid, self.agent_node[int(info["agent_id"]["handle"])],
                 info["kernel_id"], info["dispatch_id"], queue, stream, r["start_timestamp"], r["end_timestamp"],
                 info.get("private_segment_size"), info.get("group_segment_size"), wg["x"], wg["y"], wg["z"],
                 grid["x"], grid["y"], grid["z"], self.string(""), evt),
            )
        elif key == "memory_copy":
            tid = self.thread(int(r.get("thread_id", 0)))
            stream = self.named_handle("rocpd_info_stream", self.streams,
                                       int(r.get("stream_id", {"handle": 0})["handle"]), "Default Stream", "Stream {}")
            evt = self.event(category, corr)
            db.execute(
                f"INSERT INTO {self.t('rocpd_memory_copy')} (guid, nid, pid, tid, start, end, name_id, dst_agent_id, "
                "src_agent_id, size, stream_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (g, self.nid, self.pid, tid, r["start_timestamp"], r["end_timestamp"],
                 self.string(self.op_name(int(r["kind"]), int(r["operation"]))),
                 self.agent_node.get(int(r["dst_agent_id"]["handle"])),
                 self.agent_node.get(int(r["src_agent_id"]["handle"])), r.get("bytes", 0), stream, evt),
            )
        elif key.endswith("_api"):
            tid = self.thread(int(r.get("thread_id", 0)))
            evt = self.event(category, corr)
            db.execute(
                f"INSERT INTO {self.t('rocpd_region')} (guid, nid, pid, tid, start, end, name_id, event_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (g, self.nid, self.pid, tid, r["start_timestamp"], r["end_timestamp"],
                 self.string(self.op_name(int(r["kind"]), int(r["operation"]))), evt),
            )
        # memory_allocation, scratch_memory, pc samples: not written (goblin does not analyse them).


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--ddl-dir", help="folder with the official rocpd_tables.sql (+ rocpd_views.sql)")
    src.add_argument("--schema-from", help="a rocpd database written from that DDL (.db or .db.gz): its schema")
    ap.add_argument("json", help="rocprofv3 JSON output (.json or .json.gz)")
    ap.add_argument("out", help="the rocpd database to write (replaced)")
    args = ap.parse_args()
    if args.schema_from:
        ddl, views = ddl_from_database(args.schema_from)
    else:
        with open(os.path.join(args.ddl_dir, "rocpd_tables.sql"), "rb") as f:
            raw = f.read()
        if hashlib.sha256(raw).hexdigest() != DDL_SHA256:
            sys.exit(f"rocpd_tables.sql is not the pinned official DDL (sha256 {DDL_SHA256})")
        ddl = raw.decode()
        views_path = os.path.join(args.ddl_dir, "rocpd_views.sql")
        views = open(views_path, encoding="utf-8").read() if os.path.exists(views_path) else None
    write_database(load_json(args.json), args.out, ddl, views)

if __name__ == "__main__":
    main()
