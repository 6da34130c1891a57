/* The hand-over between goblin's operator observer (goblin_ops.cpp, a PyTorch C++ extension the
 * hook builds against the job's own torch) and goblin's CUPTI tracer (libgoblin_cupti.so,
 * goblin_cupti_add_ops). Plain C: the two sides are built by different compilers, against
 * different C++ runtimes (the tracer links libstdc++ statically), so only these structs cross.
 *
 * Why an observer of goblin's own: PyTorch's RecordFunction -> NVTX observer formats every op's
 * name and sizes into a string and costs ~2 us per op (bench/results/tracer, session 2026-11-26);
 * this one writes a fixed-size record per op into a per-thread buffer (names interned once) and
 * hands the whole window over once, after it ends. */
#ifndef GOBLIN_OPS_ABI_H
#define GOBLIN_OPS_ABI_H
#include <stdint.h>

/* 2: each input's dtype in the dims stream (Input type), 2026-11-26. */
#define GOBLIN_OPS_ABI_VERSION 2u

/* Record kinds. */
#define GOBLIN_OP_KIND_OP 0u     /* an ATen op, autograd node or record_function range: a cpu_op */
#define GOBLIN_OP_KIND_MODULE 1u /* an nn.Module forward ("nn.Module: Linear_3"): a python_function */

typedef struct goblin_op_record {
  uint64_t start_ns, end_ns; /* clock of goblin_ops_batch.clock_id; end 0: never closed */
  int64_t seq;               /* autograd sequence number, -1 none */
  uint32_t name;             /* index into goblin_ops_batch.names */
  uint32_t thread;           /* index into goblin_ops_batch.threads */
  uint32_t dims_off;         /* index into goblin_ops_batch.dims, UINT32_MAX: no shapes */
  uint32_t kind;             /* GOBLIN_OP_KIND_* */
} goblin_op_record;

/* The two ids a thread has: gettid() (what goblin's tracer has CUPTI record:
 * CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) and pthread_self() (CUPTI's default). The tracer keeps
 * the one its API records use. */
typedef struct goblin_op_thread {
  uint64_t pthread_self;
  uint32_t tid;
  uint32_t pad;
} goblin_op_thread;

/* dims: for the op at dims_off, dims[dims_off] = number of inputs N, then for each input its
 * rank R (-1: not a tensor), its type T (an index into goblin_ops_batch.names: the tensor's dtype
 * as torch.profiler's "Input type" names it, "Scalar" or ""; -1: unknown) and R sizes. */
typedef struct goblin_ops_batch {
  uint32_t abi_version; /* GOBLIN_OPS_ABI_VERSION */
  int32_t clock_id;     /* the clock_gettime clock of the times (CLOCK_MONOTONIC) */
  const goblin_op_record* ops;
  uint64_t n_ops;
  const char* const* names;
  uint64_t n_names;
  const goblin_op_thread* threads;
  uint64_t n_threads;
  const int64_t* dims;
  uint64_t n_dims;
} goblin_ops_batch;

/* Exported by libgoblin_cupti.so: copies the batch into the trace (times converted to CUPTI's
 * clock). Returns the number of records kept, or -1 (tracer not active, ABI mismatch). */
typedef int64_t (*goblin_cupti_add_ops_fn)(const goblin_ops_batch*);

#endif
