"""Static checks of a kernel file (docs/kernel.md "Honest measurement"): the patterns by which
kernels are known to cheat a benchmark, found in the file's syntax tree without running it or
importing torch, so they run at `goblin kernel init` and before every bench, on a machine
without a GPU (CI). Each finding names its check, the line and what was seen; the catalogue of
checks and where each pattern was described is data/kernel/exploits.yaml.

The runtime checks of tools/kernel_harness.py stay the real guard (a file can hide anything from
a syntax tree with enough effort); these refuse the common forms early and name them.
"""
import ast

# Functions of the contract that are not the kernel: they may use torch freely.
NOT_KERNEL = {"reference", "baseline", "make_inputs", "flops", "bytes_moved"}

# torch / torch.nn.functional calls that compute (not allocation, views or metadata): in the
# kernel they mean the library does the work (KernelBench's static checker, "torch.* / F.*
# compute inside the kernel").
TORCH_COMPUTE = {
    "matmul", "mm", "bmm", "addmm", "baddbmm", "einsum", "linear", "softmax", "log_softmax", "exp", "log",
    "sum", "mean", "amax", "max", "min", "var", "std", "norm", "rms_norm", "layer_norm", "group_norm",
    "cross_entropy", "nll_loss", "scaled_dot_product_attention", "silu", "sigmoid", "relu", "gelu", "tanh",
    "sqrt", "rsqrt", "cumsum", "sort", "topk", "mul", "add", "div", "sub", "where", "conv1d", "conv2d",
    "logsumexp", "softplus", "dropout", "tensordot", "dot", "outer", "addcmul", "lerp", "pow", "square",
}
# Tensor methods that compute (x.sum(), x.exp()): the same, spelled as a method.
TENSOR_COMPUTE = {"matmul", "mm", "bmm", "softmax", "log_softmax", "exp", "sum", "mean", "amax", "var",
                  "std", "norm", "sigmoid", "relu", "tanh", "sqrt", "rsqrt", "cumsum", "logsumexp", "pow"}
LOWER_PRECISION = {"float16", "half", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                   "float8_e5m2fnuz"}
CONCURRENCY_MODULES = {"threading", "concurrent", "multiprocessing", "asyncio", "_thread"}
STREAM_NAMES = {"Stream", "stream", "ExternalStream", "set_stream"}
SUBCLASS_HOOKS = {"__torch_function__", "__torch_dispatch__", "_make_subclass", "_make_wrapper_subclass",
                  "as_subclass"}
# What the measurement stands on: rebinding any of these (assignment, setattr) is tampering.
TIMER_OWNERS = {"time", "torch", "torch.cuda", "torch.cuda.Event", "torch.cuda.Stream", "torch.Tensor",
                "triton.testing", "json", "builtins", "sys"}
# Ways to reach the harness or the interpreter from inside the kernel file.
HARNESS_REACH = {("sys", "modules"), ("sys", "_getframe"), ("inspect", "currentframe"), ("inspect", "stack"),
                 ("gc", "get_objects"), ("gc", "get_referrers")}
HARNESS_NAMES = {"__main__", "kernel_harness", "kernel_timing", "ctypes", "builtins", "__builtins__"}
CACHE_DECORATORS = {"lru_cache", "cache", "cached_property", "memoize"}
MUTATORS = {"append", "setdefault", "update", "__setitem__", "add", "insert", "extend"}
NATIVE_LOADERS = {"load_inline", "load", "CDLL", "cdll", "PyDLL"}


def dotted(node):
    """'torch.cuda.Event' for an Attribute chain of Names; None otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def is_triton_jit(fn):
    for d in fn.decorator_list:
        name = dotted(d.func if isinstance(d, ast.Call) else d) or ""
        if name.startswith("triton.") or name in ("jit", "autotune", "heuristics") or name.startswith("tl."):
            return True
    return False


class Checker:
    def __init__(self, tree, src):
        self.tree, self.src = tree, src
        self.findings = []
        self.aliases = {}  # local name -> module path (import torch.nn.functional as F)
        self.declared = {}
        for n in tree.body:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                try:
                    self.declared[n.targets[0].id] = ast.literal_eval(n.value)
                except Exception:  # noqa: BLE001 - not a literal: not a declaration
                    pass
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                for a in n.names:
                    self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(n, ast.ImportFrom) and n.module:
                for a in n.names:
                    self.aliases[a.asname or a.name] = f"{n.module}.{a.name}"

    def add(self, check, node, message):
        line = getattr(node, "lineno", 0)
        key = (check, line)
        if all((f["check"], f["line"]) != key for f in self.findings):
            self.findings.append({"check": check, "line": line, "message": f"line {line}: {message}"})

    def resolve(self, node):
        """The dotted name with its first part through the file's imports (F.softmax ->
        torch.nn.functional.softmax)."""
        d = dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = self.aliases.get(head, head)
        return f"{base}.{rest}" if rest else base

    def kernel_functions(self):
        """Module-level functions and class methods the kernel can run: everything but the
        contract's non-kernel functions and Triton's device functions."""
        out = []
        for n in self.tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if n.name not in NOT_KERNEL and not is_triton_jit(n):
                    out.append(n)
            elif isinstance(n, ast.ClassDef):
                out += [m for m in n.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        return out

    def run(self):
        self.whole_file()
        self.module_level_kernel()
        module_mutables = self.module_mutables()
        for fn in self.kernel_functions():
            self.in_kernel(fn, module_mutables)
        return self.findings

    # --- anywhere in the file -----------------------------------------------------------------
    def whole_file(self):
        for n in ast.walk(self.tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
                for m in mods:
                    if m.split(".")[0] in CONCURRENCY_MODULES:
                        self.add("side_stream", n, f"imports {m}: work on another thread or process is not timed")
                    if m.split(".")[0] in ("ctypes", "builtins", "gc", "inspect") or m in ("__main__",):
                        self.add("harness_access", n, f"imports {m}: a kernel file has no use for the interpreter's "
                                                      "internals, which reach the harness's timer and checks")
            elif isinstance(n, ast.ClassDef):
                for b in n.bases:
                    if self.resolve(b) in ("torch.Tensor", "torch._C.TensorBase", "torch._C._TensorBase"):
                        self.add("lazy_output", n, f"class {n.name} subclasses torch.Tensor: a tensor subclass can "
                                                   "return a lazy result computed only when it is compared")
            elif isinstance(n, (ast.FunctionDef, ast.Attribute, ast.Name)):
                name = n.name if isinstance(n, ast.FunctionDef) else (n.attr if isinstance(n, ast.Attribute) else n.id)
                if name in SUBCLASS_HOOKS:
                    self.add("lazy_output", n, f"uses {name}: tensor subclass machinery (lazy or fake outputs)")
                if name in HARNESS_NAMES and not isinstance(n, ast.FunctionDef):
                    self.add("harness_access", n, f"refers to {name}: the harness's module or the interpreter")
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in HARNESS_NAMES:
                self.add("harness_access", n, f"names {n.value!r}: the harness's module or the interpreter")
            if isinstance(n, ast.Attribute):
                r = self.resolve(n)
                if r and tuple(r.split(".")[-2:]) in HARNESS_REACH:
                    self.add("harness_access", n, f"uses {r}: reaches the harness's frames or modules")
                if r and r.split(".")[-1] in STREAM_NAMES and r.startswith("torch.cuda"):
                    self.add("side_stream", n, f"uses {r}: work on a stream the timing does not see")
                if r and (r.endswith("allow_tf32") or r.endswith("reduced_precision_reduction")):
                    self.add("precision_downgrade", n, f"uses {r}: lower-precision math than the reference")
            if isinstance(n, ast.Call):
                r = self.resolve(n.func) or ""
                if r.endswith("set_float32_matmul_precision"):
                    self.add("precision_downgrade", n, "set_float32_matmul_precision: TF32/bf16 math for fp32")
                if r.split(".")[-1] in NATIVE_LOADERS and ("cpp_extension" in r or "ctypes" in r):
                    self.native_source(n, r)
                if r in ("setattr", "delattr") and n.args:
                    tgt = self.resolve(n.args[0]) or ""
                    if tgt in TIMER_OWNERS or tgt.startswith("torch.cuda"):
                        self.add("timer_rebinding", n, f"{r}({tgt}, ...): rebinds what the timing relies on")
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete)):
                targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target]
                for t in targets:
                    if isinstance(t, ast.Attribute):
                        owner = self.resolve(t.value) or ""
                        if owner in TIMER_OWNERS or owner.startswith("torch.cuda"):
                            self.add("timer_rebinding", n, f"assigns {owner}.{t.attr}: rebinds what the timing "
                                                           "relies on (events, synchronize, perf_counter)")

    def native_source(self, call, loader):
        """C++/CUDA compiled from the file: a static container in it is a hidden result cache
        (Wafer's 'hidden C++ result cache')."""
        texts = [c.value for c in ast.walk(call) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        for n in ast.walk(self.tree):  # sources kept in module-level strings
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) > 40:
                texts.append(n.value)
        for t in texts:
            low = t.replace("\n", " ")
            if "static" in low and any(c in low for c in ("map<", "unordered_map", "vector<", "cache", "Tensor ")):
                self.add("result_cache", call, f"{loader}: the native source keeps a static container across "
                                               "calls (a result cache the timing cannot see)")
                return

    def module_level_kernel(self):
        for n in self.tree.body:
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name) and t.id == "kernel":
                        src = self.resolve(n.value) or ""
                        if src in ("reference", "baseline") or src.startswith("torch."):
                            self.add("inherit_and_pass", n, f"kernel = {ast.unparse(n.value)}: the kernel is the "
                                                            "reference or a library function, not a new kernel")
            if isinstance(n, ast.ClassDef):
                for b in n.bases:
                    if isinstance(b, ast.Name) and b.id in ("Model", "Reference") and all(
                            isinstance(s, (ast.Pass, ast.Expr)) for s in n.body):
                        self.add("inherit_and_pass", n, f"class {n.name}({b.id}): pass: inherits the reference")

    def module_mutables(self):
        out = set()
        for n in self.tree.body:
            if isinstance(n, ast.Assign) and isinstance(n.value, (ast.Dict, ast.List, ast.Set, ast.Call)):
                if isinstance(n.value, ast.Call):
                    r = self.resolve(n.value.func) or ""
                    if r.split(".")[-1] not in ("dict", "list", "set", "OrderedDict", "defaultdict",
                                                 "WeakKeyDictionary", "WeakValueDictionary", "deque"):
                        continue
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        out.add(t.id)
        return out

    # --- inside the kernel's own code ---------------------------------------------------------
    def in_kernel(self, fn, module_mutables):
        allow_library = bool(self.declared.get("LIBRARY_KERNEL"))
        for d in fn.decorator_list:
            r = self.resolve(d.func if isinstance(d, ast.Call) else d) or ""
            if r.split(".")[-1] in CACHE_DECORATORS:
                self.add("result_cache", d, f"@{r} on {fn.name}: results served from a cache, not computed")
        for a in fn.args.defaults + fn.args.kw_defaults:
            if isinstance(a, (ast.Dict, ast.List, ast.Set)):
                self.add("result_cache", a, f"{fn.name} keeps a mutable default argument (a cache across calls)")
        empties = {}
        used_as_arg = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Try) and n.handlers:
                self.add("torch_fallback", n, f"try/except in {fn.name}: a kernel that fails falls back to "
                                              "another implementation (the library) and is timed as the kernel")
            if isinstance(n, ast.Call):
                r = self.resolve(n.func) or ""
                last = r.split(".")[-1]
                if r in ("reference", "baseline") or last in ("reference", "baseline") and r.count(".") <= 1:
                    self.add("inherit_and_pass", n, f"{fn.name} calls {r}: the kernel runs the reference")
                if not allow_library and (r.startswith("torch.") or r.startswith("torch.nn.functional")) and \
                        last in TORCH_COMPUTE and not r.startswith("torch.cuda"):
                    self.add("torch_compute", n, f"{fn.name} calls {r}: the library computes the result "
                                                 "(declare LIBRARY_KERNEL = True for a library kernel)")
                elif not allow_library and isinstance(n.func, ast.Attribute) and n.func.attr in TENSOR_COMPUTE \
                        and not r.startswith(("tl.", "triton.", "math.")):
                    self.add("torch_compute", n, f"{fn.name} calls .{n.func.attr}(): tensor compute outside a "
                                                 "kernel of the file's own")
                if isinstance(n.func, ast.Attribute) and n.func.attr in ("half",) or \
                        (isinstance(n.func, ast.Attribute) and n.func.attr == "to" and any(
                            (self.resolve(a) or "").split(".")[-1] in LOWER_PRECISION and
                            (self.resolve(a) or "").startswith("torch.") and
                            (self.resolve(a) or "").split(".")[-1] != "bfloat16" for a in n.args)):
                    self.add("precision_downgrade", n, f"{fn.name} casts to a lower precision than its inputs")
                if isinstance(n.func, ast.Attribute) and n.func.attr in MUTATORS:
                    base = dotted(n.func.value)
                    if base in module_mutables:
                        self.add("result_cache", n, f"{fn.name} stores into module-level {base} (a cache of "
                                                    "results kept across calls)")
                for a in list(n.args) + [k.value for k in n.keywords]:
                    for s in ast.walk(a):
                        if isinstance(s, ast.Name):
                            used_as_arg.add(s.id)
                if isinstance(n.func, ast.Attribute):  # y.copy_(...), y.fill_(...) write y
                    b = dotted(n.func.value)
                    if b:
                        used_as_arg.add(b.split(".")[0])
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) and not allow_library:
                self.add("torch_compute", n, f"{fn.name} uses the @ operator: the library computes the product")
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Subscript) and dotted(t.value) in module_mutables:
                        self.add("result_cache", n, f"{fn.name} stores into module-level {dotted(t.value)} (a "
                                                    "cache of results kept across calls)")
                    if isinstance(t, ast.Attribute) and dotted(t.value) in ("kernel", fn.name):
                        self.add("result_cache", n, f"{fn.name} keeps state on the function object")
                    if isinstance(t, ast.Subscript):  # y[...] = ... writes y
                        b = dotted(t.value)
                        if b:
                            used_as_arg.add(b.split(".")[0])
                if isinstance(n.value, ast.Call) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                    r = self.resolve(n.value.func) or ""
                    if r.split(".")[-1] in ("empty", "empty_like", "empty_strided") and r.startswith("torch"):
                        empties[n.targets[0].id] = n
        for n in ast.walk(fn):
            if isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id in empties \
                    and n.value.id not in used_as_arg:
                self.add("uninitialised_output", n, f"{fn.name} returns {n.value.id} from torch.empty* that "
                                                    "nothing writes: uninitialised memory (it may hold an old "
                                                    "result)")


def check_source(src, path="kernel.py"):
    """[{check, line, message}] for a kernel file's text; [] when nothing was found. A file that
    does not parse is the contract check's to report."""
    try:
        tree = ast.parse(src, filename=path)
    except SyntaxError:
        return []
    return Checker(tree, src).run()


def check_file(path):
    with open(path, encoding="utf-8") as f:
        return check_source(f.read(), path)
