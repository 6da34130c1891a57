"""The Python module (docs/python.md) against the CLI on the real fixtures: a verb called from
Python returns the very `result` `goblin VERB --json` prints, the tables come back as DataFrames
whose shapes and sums are `goblin query`'s answers, and failures raise goblin.Error with the
CLI's message, kind, exit code, file and offset.

Run by ctest (python_module) with PYTHONPATH=BUILD/python, GOBLIN_EXE=BUILD/goblin and
GOBLIN_FIXTURES=tests/fixtures.
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pandas as pd
import pytest

import goblin

GOBLIN = os.environ.get("GOBLIN_EXE", "goblin")
FIX = pathlib.Path(os.environ.get("GOBLIN_FIXTURES", pathlib.Path(__file__).parents[2] / "tests" / "fixtures"))
KINETO = FIX / "kineto"
ALEXNET = str(KINETO / "a100_alexnet_cuda_sync.json.gz")
LLAMA = str(KINETO / "h100_llama_bf16_sdpa_w4.json.gz")
LLAMA_FP32 = str(KINETO / "h100_llama_fp32_eager_w0.json.gz")
RANKS = [str(KINETO / "nccl_sampled_rank-0.json.gz"), str(KINETO / "nccl_sampled_rank-1.json.gz")]

# No run is recorded in a store by either door while the tests run.
os.environ.pop("GOBLIN_STORE", None)


def cli(*args):
    """`goblin ARGS --json`'s envelope."""
    p = subprocess.run([GOBLIN, *args, "--json"], capture_output=True, text=True, env={**os.environ, "GOBLIN_STORE": ""})
    return json.loads(p.stdout), p.returncode


def untimed(result):
    """A result without its measured read times (`read.seconds`, `read.mb_per_s_on_disk`): the
    one part of a verb's answer that differs between two calls."""
    if isinstance(result, dict):
        return {k: untimed(v) for k, v in result.items() if k not in ("seconds", "mb_per_s_on_disk")}
    if isinstance(result, list):
        return [untimed(v) for v in result]
    return result


def cli_sql(paths, sql):
    env, rc = cli("query", *paths, sql, "--format", "json")
    assert rc == 0, env
    return env["result"]


# ---- verbs: the same result as the CLI's --json ----

@pytest.mark.parametrize("verb,args,kwargs", [
    ("info", [ALEXNET], {}),
    ("breakdown", [LLAMA], {}),
    ("metrics", [ALEXNET], {}),
    ("ranks", RANKS, {}),
    ("diff", [LLAMA, LLAMA_FP32], {}),
])
def test_verb_result_equals_cli_json(verb, args, kwargs):
    env, rc = cli(verb, *args)
    assert rc == 0 and env["ok"], env
    assert untimed(goblin.run(verb, *args, **kwargs)) == untimed(env["result"])


def test_verb_functions_come_from_the_registry(tmp_path):
    env, _ = cli("verbs")
    names = {v["name"] for v in env["result"]["verbs"]}
    assert set(goblin.verbs()) == {n.replace(" ", "_").replace("-", "_") for n in names}
    assert untimed(goblin.info(ALEXNET)) == untimed(goblin.run("info", ALEXNET))
    assert goblin.store_ls.__name__ == "store_ls" and "--json" in goblin.store_ls.__doc__
    # A verb that writes: triage into a directory, same result as the CLI's.
    a, b = tmp_path / "py", tmp_path / "cli"
    res = goblin.triage(ALEXNET, out=str(a))
    env, rc = cli("triage", ALEXNET, "-o", str(b))
    assert rc == 0
    assert json.dumps(res, sort_keys=True).replace(str(a), "OUT") == json.dumps(env["result"], sort_keys=True).replace(str(b), "OUT")
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())


def test_the_module_docstring_example_runs():
    # `report = goblin.triage("trace.json.gz")`, as the module's docstring shows it: with no out=,
    # the Python door gives the verb a fresh directory of its own, as MCP gives its session folder.
    report = goblin.triage(ALEXNET)
    out = pathlib.Path(report["out_dir"])
    assert out.is_dir() and (out / "profile_summary.md").is_file() and (out / "kernel_table.json").is_file()
    cli_out = out.parent / (out.name + "-cli")
    env, rc = cli("triage", ALEXNET, "-o", str(cli_out))
    assert rc == 0
    # The same result as the CLI's but for where each wrote.
    assert json.dumps(report, sort_keys=True).replace(str(out), "OUT") == \
        json.dumps(env["result"], sort_keys=True).replace(str(cli_out), "OUT")


def test_query_verb_json_equals_cli():
    sql = "select category, count(*), sum(dur_ns) from gpu_ops group by 1 order by 1"
    assert goblin.query(ALEXNET, sql=sql, format="json") == cli_sql([ALEXNET], sql)


def test_text_is_the_cli_readable_output():
    out = subprocess.run([GOBLIN, "breakdown", LLAMA], capture_output=True, text=True).stdout
    assert goblin.text("breakdown", LLAMA).rstrip("\n") == out.rstrip("\n")


# ---- tables as DataFrames: goblin query's answers ----

@pytest.fixture(scope="module")
def alexnet():
    return goblin.load(ALEXNET)


def test_every_table_has_the_cli_row_count_and_schema_columns(alexnet):
    schema, _ = cli("query", "--schema")
    cols = {t["name"]: [c["name"] for c in t["columns"]] for t in schema["result"]["tables"]}
    assert goblin.tables() == list(cols)
    for name in goblin.tables():
        df = getattr(alexnet, name)()
        assert isinstance(df, pd.DataFrame)
        assert list(df.columns) == cols[name], name
        n = cli_sql([ALEXNET], f"select count(*) from {name}")["rows"][0][0]
        assert len(df) == n, name


def test_gpu_ops_sums_equal_cli_query(alexnet):
    df = alexnet.gpu_ops()
    res = cli_sql([ALEXNET], "select count(*), sum(dur_ns), min(start_ns), max(end_ns), count(distinct name) from gpu_ops")
    n, dur, start, end, names = res["rows"][0]
    assert len(df) == n and int(df["dur_ns"].sum()) == dur
    assert int(df["start_ns"].min()) == start and int(df["end_ns"].max()) == end
    assert df["name"].nunique() == names
    assert df["dur_ns"].dtype == np.int64 and str(df["name"].dtype) == "category"
    assert alexnet.gpu_ops(categorical=False)["name"].dtype == object


def test_category_sums_equal_cli_query_and_breakdown(alexnet):
    sql = "select category, sum(dur_ns) from gpu_ops group by 1 order by 1"
    want = {r[0]: r[1] for r in cli_sql([ALEXNET], sql)["rows"]}
    got = alexnet.gpu_ops().groupby("category", dropna=False)["dur_ns"].sum()
    assert {(None if pd.isna(k) else k): int(v) for k, v in got.items()} == want
    assert alexnet.sql(sql).set_index(alexnet.sql(sql).columns[0]).iloc[:, 0].to_dict() == want


def test_kernels_table_equals_cli(alexnet):
    sql = "select * from kernels order by 1, 2, 3"
    res = cli_sql([ALEXNET], sql)
    df = alexnet.sql(sql)
    assert list(df.columns) == res["columns"] and len(df) == res["row_count"]
    for c, col in enumerate(res["columns"]):
        want = [r[c] for r in res["rows"]]
        got = [None if (isinstance(v, float) and np.isnan(v)) or v is pd.NA else v for v in df[col].tolist()]
        if df[col].dtype == np.float64:
            assert got == pytest.approx(want, rel=1e-12), col
        else:
            assert got == want, col


def assert_same_values(whole, selected, obj):
    """A whole table (trace.table) holds SELECT *'s frame's values with tighter types
    (docs/python.md § Column types): the same columns and rows, each value equal once the whole
    table's column is widened to the statement's type (int32 → int64, Int32 → Int64 or float64,
    categorical → object), which loses nothing."""
    assert list(whole.columns) == list(selected.columns), obj
    for c in whole.columns:
        w, s = whole[c], selected[c]
        if str(s.dtype) == "float64" and s.isna().all():  # a statement's all-NULL column
            assert w.isna().all(), (obj, c)
            continue
        if isinstance(w.dtype, pd.CategoricalDtype):  # NULL is None in an object column
            w = pd.Series(np.where(w.notna(), w.astype(object), None), index=w.index, name=w.name, dtype=object)
        pd.testing.assert_series_equal(w.astype(s.dtype), s, obj=f"{obj}.{c}")


@pytest.mark.parametrize("paths", [[ALEXNET], RANKS])
def test_whole_tables_equal_select_star(paths):
    # trace.gpu_ops() and the other table methods read the columns without SQLite
    # (Database::scan_table); they must hold exactly SELECT * FROM t's values, for every table,
    # over one trace and over several ranks, with and without categorical text.
    t = goblin.load(*paths)
    for name in goblin.tables():
        assert_same_values(t.table(name), t.sql(f"select * from {name}"), name)
        assert_same_values(t.table(name, categorical=False), t.sql(f"select * from {name}"), name)
    assert_same_values(t.gpu_ops(), t.sql("select * from gpu_ops", categorical=True), "gpu_ops")


def test_whole_table_types_are_the_documented_ones():
    # docs/python.md § Column types: narrow ids, int64 times, categorical text, typed NULLs.
    df = goblin.load(ALEXNET).gpu_ops()
    for c in ("rank", "id", "device", "stream", "track", "correlation"):
        assert str(df[c].dtype) in ("int32", "Int32"), c
    for c in ("start_ns", "dur_ns", "end_ns"):
        assert df[c].dtype == np.int64, c
    for c in ("trace", "kind", "name", "category", "family"):
        assert str(df[c].dtype) == "category", c
    assert str(df["grid_x"].dtype) == "Int32" and str(df["bytes"].dtype) == "Int64"
    assert str(df["copy_kind"].dtype) == "category"
    # A column of NULLs alone keeps its declared type (here graph_id: no CUDA graph in the trace).
    assert df["graph_id"].isna().all() and str(df["graph_id"].dtype) == "Int32"
    for c in df.columns:
        if df[c].isna().all():
            assert str(df[c].dtype) in ("Int32", "Int64", "category"), c
def test_nulls_and_mixed_types():
    t = goblin.load(ALEXNET)
    df = t.sql("select 1 as i, null as n, 2.5 as r, 'x' as s union all select null, null, null, null "
               "union all select 3, null, 4, 5")
    assert str(df["i"].dtype) == "Int64" and df["i"].isna().tolist() == [False, True, False]
    assert df["n"].isna().all()
    assert df["r"].dtype == np.float64 and np.isnan(df["r"][1]) and df["r"][2] == 4.0
    assert df["s"].tolist() == ["x", None, "5"]
    cat = t.sql("select name from gpu_ops", categorical=True)
    assert str(cat["name"].dtype) == "category"
    assert t.sql("select * from gpu_ops where 0").shape == (0, 27)


def test_several_ranks_one_table():
    t = goblin.load(*RANKS)
    assert t.rank_ids == [0, 1]
    assert t.ranks()["rank"].tolist() == [0, 1]  # the ranks table
    df = t.steps()
    want = cli_sql(RANKS, "select rank, count(*), sum(dur_ns) from steps group by 1 order by 1")["rows"]
    got = df.groupby("rank")["dur_ns"].agg(["count", "sum"]).reset_index().values.tolist()
    assert got == want


# ---- errors ----

def test_missing_file_is_the_cli_error(tmp_path):
    missing = str(tmp_path / "nope.json")
    env, rc = cli("info", missing)
    with pytest.raises(goblin.Error) as e:
        goblin.info(missing)
    assert e.value.exit_code == rc == env["error_detail"]["exit_code"]
    assert e.value.kind == env["error_detail"]["kind"] and str(e.value) == env["error"]
    with pytest.raises(goblin.Error) as e2:
        goblin.load(missing)
    assert e2.value.exit_code == rc and e2.value.file == missing


def test_malformed_trace_names_file_and_offset(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, '
                   '"args": {"device": 0, "stream": 7, "correlation": 1}}, {"ph": "X", "ts": ')
    env, rc = cli("info", str(bad))
    with pytest.raises(goblin.Error) as e:
        goblin.info(str(bad))
    assert e.value.exit_code == rc == 5 and e.value.kind == "malformed" and str(e.value) == env["error"]
    assert e.value.file == str(bad) and e.value.byte_offset == env["error_detail"]["byte_offset"] == 153
    assert untimed(e.value.result) == untimed(env["result"])  # what was read before the damage
    with pytest.warns(UserWarning, match="byte 153"):
        t = goblin.load(str(bad))
    env, rc = cli("query", str(bad), "select count(*) from gpu_ops", "--format", "json")
    assert rc == 5 and len(t.gpu_ops()) == env["result"]["rows"][0][0] == 1


def test_bad_sql_shows_sqlite_message_and_position(alexnet):
    with pytest.raises(goblin.Error) as e:
        alexnet.sql("select nosuchcolumn from gpu_ops")
    env, rc = cli("query", ALEXNET, "select nosuchcolumn from gpu_ops")
    assert e.value.kind == "usage" and e.value.exit_code == rc == 2
    assert str(e.value) == env["error"]
    with pytest.raises(goblin.Error, match="not authorized|read-only|refused"):
        alexnet.sql("drop table gpu_ops")
    with pytest.raises(goblin.Error, match="ATTACH|not authorized|refused"):
        alexnet.sql("attach database '/tmp/x.db' as x")


def test_usage_errors():
    with pytest.raises(TypeError, match="no field"):
        goblin.info(ALEXNET, no_such_field=1)
    with pytest.raises(goblin.Error) as e:
        goblin.run("no-such-verb")
    assert e.value.exit_code == 2
    with pytest.raises(goblin.Error) as e:
        goblin.query(ALEXNET, sql="select 1", max_rows=0)
    assert e.value.kind == "usage"


def test_store_runs(tmp_path):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    goblin.run("store init", store=url)
    goblin.metrics(ALEXNET, store=url, workload="alexnet")
    runs = goblin.Store(url).runs()
    assert isinstance(runs, pd.DataFrame) and len(runs) == 1
    df = goblin.Store(url).sql("select verb, workload from runs")
    env, rc = cli("query", "--store", url, "select verb, workload from runs", "--format", "json")
    assert rc == 0 and df.values.tolist() == env["result"]["rows"] == [["metrics", "alexnet"]]
