#!/usr/bin/env python3
"""Record small JAX profiler traces for goblin's JAX reader fixtures.

Two workloads, each a few steps under jax.profiler.trace, each step marked with
jax.profiler.StepTraceAnnotation (what XProf's step view keys on):
  transformer  a 4-layer decoder-only transformer training step (bf16, Adam)
  dataparallel the same step written data-parallel: shard_map over a mesh of the
               local devices (one H100 here), batch split on "dp", lax.pmean of the
               gradients (XLA may drop an all-reduce over one device: see meta.json)
Both try two optional paths and record whether they ran: cuDNN attention
(jax.nn.dot_product_attention(implementation="cudnn")) and a Pallas kernel (Triton
backend on GPU). create_perfetto_trace=True makes JAX write <host>.trace.json.gz
(the Chrome trace) beside <host>.xplane.pb under plugins/profile/<run>/.

Usage: record_traces.py OUTDIR   (writes OUTDIR/<name>.trace.json.gz + meta.json)
"""
import glob, gzip, json, os, shutil, sys, time, traceback

import jax
import jax.numpy as jnp

OUT = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(OUT, exist_ok=True)
META = {"jax": jax.__version__, "devices": [str(d) for d in jax.devices()], "runs": {}}

D, H, L, S, B, V = 512, 8, 4, 256, 16, 8192
TRACED_STEPS = 4


def init(key):
    ks = jax.random.split(key, 2 + 6 * L)
    n = lambda k, s: (jax.random.normal(k, s, jnp.float32) * 0.02).astype(jnp.bfloat16)
    p = {"emb": n(ks[0], (V, D)), "out": n(ks[1], (D, V)), "layers": []}
    for i in range(L):
        k = ks[2 + 6 * i: 8 + 6 * i]
        p["layers"].append({"qkv": n(k[0], (D, 3 * D)), "o": n(k[1], (D, D)),
                            "w1": n(k[2], (D, 4 * D)), "w2": n(k[3], (4 * D, D)),
                            "g1": jnp.ones((D,), jnp.bfloat16), "g2": jnp.ones((D,), jnp.bfloat16)})
    return p


def rms(x, g):
    x32 = x.astype(jnp.float32)
    return (x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6)).astype(x.dtype) * g


def attention(q, k, v, impl):
    if impl == "cudnn":
        return jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="cudnn")
    return jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="xla")


def forward(p, tok, impl):
    x = p["emb"][tok]
    for lp in p["layers"]:
        h = rms(x, lp["g1"])
        q, k, v = jnp.split(h @ lp["qkv"], 3, -1)
        sh = lambda t: t.reshape(B_local(t), S, H, D // H)
        a = attention(sh(q), sh(k), sh(v), impl).reshape(x.shape)
        x = x + a @ lp["o"]
        x = x + jax.nn.gelu(rms(x, lp["g2"]) @ lp["w1"]) @ lp["w2"]
    return (x @ p["out"]).astype(jnp.float32)


def B_local(t):
    return t.shape[0]


def loss_fn(p, tok, impl):
    logits = forward(p, tok[:, :-1], impl)
    tgt = tok[:, 1:]
    lp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(lp, tgt[..., None], -1))


def adam(p, g, m, v, t, lr=1e-3):
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g.astype(jnp.float32), m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * jnp.square(g.astype(jnp.float32)), v, g)
    upd = lambda p, m, v: (p.astype(jnp.float32) - lr * (m / (1 - 0.9 ** t)) /
                           (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8)).astype(p.dtype)
    return jax.tree.map(upd, p, m, v), m, v


def make_step(impl, dp):
    def step(p, m, v, t, tok):
        loss, g = jax.value_and_grad(loss_fn)(p, tok, impl)
        if dp:
            g = jax.lax.pmean(g, "dp")
            loss = jax.lax.pmean(loss, "dp")
        p, m, v = adam(p, g, m, v, t)
        return p, m, v, loss
    if dp:
        from jax.sharding import Mesh, PartitionSpec as P
        try:
            shard_map = jax.shard_map
        except AttributeError:
            from jax.experimental.shard_map import shard_map
        import numpy as np
        mesh = Mesh(np.array(jax.devices()), ("dp",))
        specs = dict(mesh=mesh, in_specs=(P(), P(), P(), P(), P("dp")),
                     out_specs=(P(), P(), P(), P()))
        # Replication checks off: the gradients are per-shard and pmean'd by hand.
        try:
            step = shard_map(step, check_vma=False, **specs)
        except TypeError:
            step = shard_map(step, check_rep=False, **specs)
    return jax.jit(step, donate_argnums=(0, 1, 2))


def pallas_scale():
    """A tiny Pallas kernel (Triton backend on GPU), run once per step if it lowers."""
    from jax.experimental import pallas as pl

    def kern(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2.0 + 1.0

    f = pl.pallas_call(kern, out_shape=jax.ShapeDtypeStruct((1024,), jnp.float32))
    f = jax.jit(f)
    x = jnp.arange(1024, dtype=jnp.float32)
    f(x).block_until_ready()
    return lambda: f(x)


def run(name, dp):
    info = {}
    impl = "cudnn"
    tok_host = jax.random.randint(jax.random.PRNGKey(1), (B, S + 1), 0, V)
    try:
        p = init(jax.random.PRNGKey(0))
        zeros = lambda p: jax.tree.map(lambda a: jnp.zeros(a.shape, jnp.float32), p)
        m, v = zeros(p), zeros(p)
        tok = tok_host
        step = make_step(impl, dp)
        tt = jnp.float32(1.0)
        p, m, v, loss = step(p, m, v, tt, tok)
        loss.block_until_ready()
    except Exception as e:  # cuDNN attention may not lower for this shape/version
        info["cudnn_error"] = repr(e)[:400]
        impl = "xla"
        p = init(jax.random.PRNGKey(0))
        m, v = zeros(p), zeros(p)
        step = make_step(impl, dp)
        p, m, v, loss = step(p, m, v, tt, tok)
        loss.block_until_ready()
    info["attention"] = impl
    extra = None
    try:
        extra = pallas_scale()
        info["pallas"] = "ran"
    except Exception as e:
        info["pallas"] = "failed: " + repr(e)[:300]
    for i in range(2):  # warm-up outside the trace
        p, m, v, loss = step(p, m, v, tt, tok)
    loss.block_until_ready()
    logdir = os.path.join("/tmp/jaxprof", name)
    t0 = time.time()
    with jax.profiler.trace(logdir, create_perfetto_trace=True):
        for i in range(TRACED_STEPS):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                with jax.profiler.TraceAnnotation("data_batch"):
                    tok = jax.device_put(tok_host + i)
                p, m, v, loss = step(p, m, v, tt, tok)
                if extra is not None:
                    extra()
                loss.block_until_ready()
    info["traced_seconds"] = time.time() - t0
    info["loss"] = float(jnp.asarray(loss).reshape(-1)[0])
    files = sorted(glob.glob(os.path.join(logdir, "plugins/profile/*/*")))
    info["files"] = {os.path.relpath(f, logdir): os.path.getsize(f) for f in files}
    tj = [f for f in files if f.endswith(".trace.json.gz")]
    if tj:
        shutil.copy(tj[0], os.path.join(OUT, name + ".trace.json.gz"))
    else:  # no Chrome trace written: keep the XSpace (gzipped) to say what JAX wrote
        for f in files:
            if f.endswith(".xplane.pb"):
                with open(f, "rb") as src, gzip.open(os.path.join(OUT, name + ".xplane.pb.gz"), "wb") as dst:
                    shutil.copyfileobj(src, dst)
    META["runs"][name] = info


for name, dp in (("transformer", False), ("dataparallel", True)):
    try:
        run(name, dp)
    except Exception:
        META["runs"][name] = {"error": traceback.format_exc()[-2000:]}
with open(os.path.join(OUT, "meta.json"), "w") as f:
    json.dump(META, f, indent=1)
print(json.dumps(META, indent=1))
