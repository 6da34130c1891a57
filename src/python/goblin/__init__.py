"""goblin from Python (docs/python.md).

A thin door over goblin's verb registry, the same one the CLI, MCP server and HTTP API call:

    import goblin
    report = goblin.triage("trace.json.gz")           # the `result` of `goblin triage --json`
    t = goblin.load("trace.json.gz")                  # the query tables of `goblin query`
    t.kernels().head()                                # a pandas DataFrame
    t.sql("select category, sum(dur_ns) from gpu_ops group by 1")

Every verb is a function here (`goblin.run(name, **fields)` and one per verb, named after the
CLI command with `_` for spaces and dashes: `goblin.store_ls(...)`); its arguments are the
verb's fields as `goblin verbs --json` lists them, positional fields (the trace paths) may be
passed positionally. A failure raises goblin.Error with goblin's message, kind, exit code,
file, byte offset and line.
"""
import json as _json
import keyword as _keyword
import warnings as _warnings

from . import _goblin

__all__ = ["Error", "Trace", "load", "run", "text", "verbs", "tables", "Store"]


class Error(Exception):
    """A goblin error: what `goblin VERB --json` reports in its envelope's `error`.

    kind: goblin's error kind ("usage", "malformed", ...); exit_code: the CLI's exit status for
    it; file, byte_offset, line: where in an input the problem is (None when not about one);
    result: what was computed before the error (a partial result), else None.
    """

    def __init__(self, message, kind="internal", exit_code=1, file=None, byte_offset=None, line=None, result=None,
                 description=None):
        self.message = message
        self.kind = kind
        self.exit_code = exit_code
        self.file = file or None
        self.byte_offset = byte_offset if byte_offset is not None and byte_offset >= 0 else None
        self.line = line if line is not None and line >= 0 else None
        self.result = result
        # str(e) is the text `goblin: error: ...` shows (Error::describe: "file: line N: message").
        super().__init__(description or message)

    @classmethod
    def _from_envelope(cls, env):
        """From `goblin VERB --json`'s failed envelope: error (the text), error_detail, result."""
        e = env.get("error_detail") or {}
        return cls(e.get("message", env.get("error", "")), e.get("kind", "internal"), e.get("exit_code", 1),
                   e.get("file"), e.get("byte_offset"), e.get("line"), env.get("result"), env.get("error"))

    @classmethod
    def _from_tuple(cls, t):
        kind, message, file, byte_offset, line, exit_code, description = t
        return cls(message, kind, exit_code, file, byte_offset, line, None, description)


def _failure(exc):
    return Error._from_tuple(exc.args[0] if len(exc.args) == 1 else exc.args)


# ---- verbs ----

_REGISTRY = None


def _registry():
    """{cli name: verb description} from `goblin verbs` (the registry describing itself)."""
    global _REGISTRY
    if _REGISTRY is None:
        env = _json.loads(_goblin.verbs_json())
        _REGISTRY = {v["name"]: v for v in env["result"]["verbs"]}
    return _REGISTRY


def _python_name(cli_name):
    name = cli_name.replace(" ", "_").replace("-", "_")
    return name + "_" if _keyword.iskeyword(name) else name


def _find(name):
    # None (or any non-text) named no verb and yet matched one whose MCP tool name is None.
    if not isinstance(name, str):
        raise TypeError(f"goblin: a verb name is text, not {type(name).__name__}")
    reg = _registry()
    if name in reg:
        return reg[name]
    for v in reg.values():
        if name in (_python_name(v["name"]), v.get("mcp_tool")) or name in v.get("mcp_aliases", []):
            return v
    raise Error(f"no verb named '{name}'", "usage", 2)


def _arguments(verb, args, fields):
    """The verb's JSON arguments from Python's: positional values fill the positional fields in
    order (a list or several values for a paths field); a keyword that names no field the Python
    door offers is a TypeError, never silently dropped."""
    offered = [f for f in verb["fields"] if "python" in f["doors"]]
    names = {f["name"] for f in offered}
    for f in offered:
        names.update(f.get("aliases", []))
    unknown = sorted(k for k in fields if k not in names)
    if unknown:
        raise TypeError(f"goblin {verb['name']}: no field {', '.join(unknown)} (fields: {', '.join(sorted(names))})")
    out = {k: v for k, v in fields.items() if v is not None}
    if any(a is None for a in args) or any(
            isinstance(a, (list, tuple)) and any(x is None for x in a) for a in args):
        raise TypeError(f"goblin {verb['name']}: a positional argument is None")
    positional = [f for f in offered if f["positional"]]
    args = list(args)
    for i, f in enumerate(positional):
        if not args:
            break
        if f["kind"] in ("input paths", "string list") and i == len(positional) - 1:
            vals = [str(a) if not isinstance(a, (list, tuple)) else a for a in args]
            flat = [str(x) for v in vals for x in (v if isinstance(v, list) else (v if isinstance(v, tuple) else [v]))]
            out[f["name"]] = flat
            args = []
        else:
            out[f["name"]] = str(args.pop(0)) if hasattr(args[0], "__fspath__") else args.pop(0)
    if args:
        raise TypeError(f"goblin {verb['name']}: too many positional arguments")
    for k, v in list(out.items()):
        if hasattr(v, "__fspath__"):
            out[k] = str(v)
        elif isinstance(v, (list, tuple)):
            out[k] = [str(x) if hasattr(x, "__fspath__") else x for x in v]
    return out


def _call(name, args, fields):
    verb = _find(name)
    envelope, human = _goblin.call_verb(verb["name"], _json.dumps(_arguments(verb, args, fields)))
    env = _json.loads(envelope)
    if not env.get("ok"):
        raise Error._from_envelope(env)
    return env.get("result"), human


def run(name, *args, **fields):
    """Runs verb `name` (its CLI name, its Python name or its MCP tool name) and returns its
    result: the `result` of `goblin NAME --json`, as a dict. Raises goblin.Error on failure."""
    return _call(name, args, fields)[0]


def text(name, *args, **fields):
    """Runs verb `name` and returns the readable text `goblin NAME` prints."""
    return _call(name, args, fields)[1]


def verbs():
    """Every verb: {python name: its description (fields, doors, result)} from the registry."""
    return {_python_name(v["name"]): v for v in _registry().values()}


def _make_verb_function(v):
    def f(*args, **fields):
        return run(v["name"], *args, **fields)

    f.__name__ = _python_name(v["name"])
    f.__qualname__ = f.__name__
    lines = [v.get("summary", ""), "", f"Same result as `goblin {v['name']} --json`. Fields:"]
    for fld in v["fields"]:
        if "python" in fld["doors"]:
            dflt = f" (default {fld['default']!r})" if "default" in fld else ""
            lines.append(f"  {fld['name']}: {fld['kind']}{dflt} - {fld['help']}")
    f.__doc__ = "\n".join(lines)
    return f


for _v in _registry().values():
    _n = _python_name(_v["name"])
    if "python" not in _v["doors"]:  # a verb Python does not offer (one that runs a `goblin trace`)
        continue
    if _n not in globals():  # never shadow the module's own names (load, run, ...)
        globals()[_n] = _make_verb_function(_v)
        __all__.append(_n)
del _v, _n


# ---- tables ----

def _frame(columns, categorical=False):
    """A pandas DataFrame from the door's columns: numpy arrays handed over without a copy,
    text as one Python string per distinct value (object columns index into them, or
    pandas.Categorical with categorical=True). Each column's arrays are let go as soon as its
    frame column is made, so the codes of every text column are never held all at once."""
    import numpy as np
    import pandas as pd

    data = {}
    columns.reverse()
    while columns:
        name, kind, values, mask, dictionary, declared = columns.pop()
        if kind == "null":
            col = _nulls(values, declared, categorical, np, pd)
        elif kind == "integer":  # int64, or int32 for a whole table's narrow column
            col = pd.arrays.IntegerArray(values, mask.view(bool)) if mask is not None else values
        elif kind == "real":
            col = values
        else:  # text: codes into the dictionary, -1 for NULL
            if categorical:
                col = pd.Categorical.from_codes(values, categories=pd.Index(dictionary, dtype=object))
            else:
                lookup = np.empty(len(dictionary) + 1, dtype=object)
                lookup[:-1] = dictionary
                lookup[-1] = None
                col = lookup[values]  # code -1 picks the None at the end
        data[name] = col
    if not data:
        return pd.DataFrame()
    return _dataframe(data, pd)


def _nulls(n, declared, categorical, np, pd):
    """A column of n NULLs. A whole table's column has its declared type (docs/python.md): an
    integer one is a nullable Int32/Int64 whose values are np.zeros (pages the kernel maps only
    when touched: only the mask costs memory), a text one an empty Categorical (one byte a row);
    a statement's column, whose type SQLite does not know, is float64 NaN."""
    if declared in ("int32", "int64"):
        return pd.arrays.IntegerArray(np.zeros(n, dtype=declared), np.ones(n, dtype=bool))
    if declared == "text":
        if categorical:
            return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=pd.Index([], dtype=object))
        return np.full(n, None, dtype=object)
    return np.full(n, np.nan)


def _dataframe(data, pd):
    """DataFrame(data) without a copy: pandas' constructor copies the columns of each dtype into
    one 2-D block (1 GB more for the 5 M-row gpu_ops table); arrays_to_mgr(consolidate=False)
    keeps each array as its own block. Where pandas' internals differ, the public constructor."""
    try:
        from pandas.core.internals.construction import arrays_to_mgr

        n = len(next(iter(data.values())))
        mgr = arrays_to_mgr(list(data.values()), pd.Index(list(data)), pd.RangeIndex(n), consolidate=False,
                            typ="block")
        return pd.DataFrame(mgr)
    except (ImportError, TypeError):
        return pd.DataFrame(data, copy=False)


def tables():
    """The query tables' names (`goblin query --schema` documents their columns)."""
    return list(_goblin.table_names())


class Trace:
    """One or more traces (one per rank) and the query tables over them: `goblin query`'s
    tables as DataFrames (trace.gpu_ops(), trace.kernels(), ... or trace.table(name)) and any
    SQL statement (trace.sql). Load with goblin.load."""

    def __init__(self, handle):
        self._h = handle

    @property
    def paths(self):
        return list(self._h.paths)

    @property
    def rank_ids(self):
        """The rank of each trace, in load order (`ranks()` is the ranks table)."""
        return list(self._h.ranks)

    def sql(self, statement, timeout=None, categorical=False):
        """The rows of `statement` (SQLite, read-only, docs/query.md) as a DataFrame."""
        try:
            return _frame(self._h.sql(statement, float(timeout or 0)), categorical)
        except _goblin.GoblinFailure as e:
            raise _failure(e) from None

    def table(self, name, categorical=True):
        """One query table, whole, as a DataFrame. Read straight from the trace, so its types are
        tighter than `sql`'s (docs/python.md § Column types): text is pandas.Categorical
        (categorical=False: object columns of shared strings), gpu_ops' ids and small counts
        (id, device, stream, track, correlation, external_id, graph_id, grid, block, registers) and
        every table's rank are int32 where every value fits, and a column of NULLs alone keeps its
        declared type."""
        if name not in _goblin.table_names():
            raise Error(f"no table named '{name}' (tables: {', '.join(tables())})", "usage", 2)
        # Read column by column from the trace (no SQL): the same rows as SELECT * FROM name.
        try:
            return _frame(self._h.table(name), categorical)
        except _goblin.GoblinFailure as e:
            raise _failure(e) from None

    def run(self, name, *args, **fields):
        """Runs a verb on this trace's files (goblin.run(name, trace.paths, ...))."""
        return run(name, self.paths if len(self.paths) > 1 else self.paths[0], *args, **fields)

    def __repr__(self):
        return f"goblin.Trace({', '.join(self.paths)})"


def _table_method(name):
    def f(self, categorical=True):
        return self.table(name, categorical)

    f.__name__ = name
    f.__doc__ = f"The `{name}` table (goblin query --schema) as a DataFrame."
    return f


for _t in _goblin.table_names():
    setattr(Trace, _t, _table_method(_t))
del _t


def load(*paths):
    """Reads trace files or run directories (several: one per rank) into a Trace. A damaged
    trace whose readable part was kept loads with a warning naming the damage."""
    flat = []
    if not paths or any(p is None for p in paths) or any(
            isinstance(p, (list, tuple)) and any(x is None for x in p) for p in paths):
        raise TypeError("goblin.load: give trace paths, not None")
    for p in paths:
        flat.extend([str(x) for x in p] if isinstance(p, (list, tuple)) else [str(p)])
    try:
        t = Trace(_goblin.Trace.open(flat))
    except _goblin.GoblinFailure as e:
        raise _failure(e) from None
    if t._h.damage is not None:
        _warnings.warn(f"goblin: partial input: {Error._from_tuple(t._h.damage)}", stacklevel=2)
    return t


class Store:
    """The run store (docs/store.md) at `url` (a file path or postgresql:// URL)."""

    def __init__(self, url):
        self.url = str(url)

    def runs(self, **filters):
        """`goblin store ls`'s runs as a DataFrame (filters: the store ls fields, e.g. workload=)."""
        import pandas as pd

        res = run("store ls", store=self.url, **filters)
        rows = res.get("runs", []) if isinstance(res, dict) else res
        return pd.json_normalize(rows)

    def sql(self, statement, timeout=None):
        """The rows of `statement` over the store's tables (`goblin query --store`, read-only;
        docs/query.md § The run store) as a DataFrame (at most 100,000 rows)."""
        import pandas as pd

        res = run("query", store=self.url, sql=statement, format="json", timeout=timeout)
        return pd.DataFrame(res["rows"], columns=res["columns"])

    def __repr__(self):
        return f"goblin.Store({self.url!r})"
