/* dag.h: task-parallel programs in C11, the model of Julia's Dagger.jl.

   Spawn tasks whose arguments say how they touch memory (In, Out, InOut), and
   dag.h infers the DAG, runs it on a work-stealing thread pool, and hands the
   results back. Header-only: in exactly one .c file write

       #define DAG_IMPLEMENTATION
       #include "dag.h"

   and include "dag.h" without the define everywhere else.

   STEP BY STEP
   ============
       DAG_TASK(void, axpy, (double, a), (const double *, x), (double *, y), (size_t, n)) {
           for (size_t i = 0; i < n; i++) y[i] += a * x[i];
       }
       DAG_TASK(double, dot, (const double *, x), (const double *, y), (size_t, n)) {
           double s = 0; for (size_t i = 0; i < n; i++) s += x[i] * y[i]; return s;
       }

       dag_setup(&(dag_desc){ .num_threads = 0 });   // 0: every core (optional)
       DAG_DATADEPS {
           dag_spawn(axpy, Val(2.0), In(x, n), InOut(y, n), Val(n));
           dag_task t = dag_spawn(dot, In(x, n), In(y, n), Val(n));   // after axpy: reads y
           double d; dag_fetch(t, &d);
       }                                   // every task of the block has finished
       dag_shutdown();

   TASKS
   =====
   DAG_TASK(ret, name, (type, param)...) defines `static ret name(...)`, the
   argument record and a descriptor. 0 to 16 parameters; `ret` may be void.
   dag_spawn(name, args...) checks the number of arguments at compile time and
   returns a dag_task handle at once. Each argument is an expression of type
   dag_arg:

       In(p, n)  Out(p, n)  InOut(p, n)      n elements of *p's type
       In(p, rows, cols, ld)                 a 2-D tile: `rows` runs of `cols`
                                             elements, `ld` elements apart
       In(h)                                 a registered dag_data handle
       Val(x)                                a copy of x (converted to the
                                             parameter's type like a C call)
       Fut(t)                                the result of task t (a dependency)
       Ld(p) or Ld(h)                        the leading dimension (elements) of the
                                             task's span that starts at p or is h,
                                             where the task runs: its ld on the CPU,
                                             cols on a device (which packs the runs)
                                             and for a tile of one row (one run)

   The long names DAG_IN, DAG_OUT, DAG_INOUT, DAG_VAL, DAG_FUT and DAG_LD always exist;
   define DAG_NO_SHORT_NAMES to drop the short ones. Each argument must fit
   its parameter, or the spawn fails with DAG_ERR_ARG_TYPE naming the task,
   the argument, both types and the fix: a number parameter takes Val or Fut
   of a number (converted); a pointer to numbers takes spans (or Val of
   pointers) of numbers of its kind and size (int or unsigned for int *); a
   pointer to anything else takes spans and pointers of anything but
   numbers; void * and char pointers take any span or pointer; a struct
   takes a struct of its size. dag_arg_span and registered data carry no
   element type: their element size must match. Argument lists built at run
   time use dag_spawn_args(name, array, count); dag_arg_span, dag_arg_tile and
   dag_arg_data build In/Out/InOut with the access (dag_access) picked at run
   time. dag_spawn_with(&opts, name, ...)
   gives one spawn a name, a scope or a priority; DAG_OPTIONS(.name = "x")
   writes such options in place, in C and C++ alike.

   SEMANTICS
   =========
   Tasks spawned by the same parent (one thread of the program, or one task
   body; two threads are two parents, as in OpenMP) are ordered by their
   spans in spawn order: read after write, write after read, write after
   write. Reads never order each other. Spans alias by memory
   overlap: exact repeats of a span take an O(1) hash path, partial overlaps
   (2-D tiles against rows, columns and other tiles included) an interval
   tree. The result always equals running the tasks one after another. Tasks
   start while the spawning code is still running.

   A task is finished when its body has returned and every task its body
   spawned has finished, so nested spawns are always waited for.

   A thread that waits (dag_fetch, dag_wait, a region end) runs tasks
   meanwhile: inside a task body, first the children it pushed (newest
   first), then other tasks below that body, and tasks pinned to its
   worker, never unrelated ones, so a body may wait for any task without
   deadlocking on its own stack; when it can run nothing (or
   DAG_STACK_BUDGET bytes of nested tasks fill its stack) while work it
   may not run is queued, it blocks and a reserve thread runs tasks in its
   place. A wait that can never end (a task waiting for itself, for a task
   that depends on it, or for one that waits for it) returns
   DAG_ERR_WAIT_CYCLE. In a body, dag_wait_all() waits for the tasks that
   body spawned (OpenMP's taskwait). dag_options .run_inline = 1 runs a
   task on the spawning thread, finished when dag_spawn returns (OpenMP's
   if(0): .run_inline = n < 20 is a recursion's cut-off); .final = 1 does
   so for the task and everything below it.

   RESULTS AND CANCELLATION
   ========================
   dag_fetch takes the result: fetched again, passed as a Fut or released
   after, the handle is DAG_ERR_STALE_HANDLE, never a wrong value (a
   failed fetch spends nothing). A result nobody fetched outlives its
   region, for dag_fetch, dag_wait and Fut from any thread, until
   dag_release(t); what is kept is the result alone (its bytes plus at
   most 32). .keep_results = 1 keeps results for any number of fetches
   until dag_release; .discard_results = 1 in a region's options drops its
   tasks' unfetched results when it ends. dag_get_stats() counts records in
   use (tasks_live) and kept results; void tasks keep nothing. A task run
   inside its spawn (.run_inline, .final) on the main thread or in a body,
   with at most 64 bytes of arguments and 8 of result, keeps nothing
   either: its handle holds the result, for every fetch.
   dag_cancel(t) stops a task not yet started (DAG_ERR_CANCELLED) with its
   dependents; a running body sees dag_cancelled() and returns early;
   dag_region_cancel() cancels the innermost waiting region's tasks, and
   dag_cancel_siblings() in a body the region its task was spawned in; a
   cancel reaches the tasks a cancelled running task spawns.

   REGIONS (block macros; function forms dag_region_begin/dag_region_end)
   =======
       DAG_DATADEPS { }       on exit every task spawned inside has finished;
                              the first error goes to dag_last_region_result()
       DAG_SEQUENTIAL { }     each spawn depends on the previous one; waits on exit
       DAG_BULK { }           inside DAG_SEQUENTIAL: the block's tasks are one step
                              and run in parallel (data order still holds)
       DAG_WITH_OPTIONS(.scope = ..., .priority = ...) { }   options for every
                              spawn inside, nested spawns included
   Leaving a block by return, goto or break skips its end: blocks opened
   after it nest inside it until the end of an enclosing region, dag_wait_all,
   the end of the task body or dag_shutdown reports DAG_ERR_UNBALANCED_REGION
   and closes it. A block is a one-turn loop: continue inside it ends the
   block (its end runs, as at its closing brace) and goes on after the block,
   not to the next turn of a loop around it; test before the block instead.

   SCOPES
   ======
   Workers are numbered from 1; worker 1 is the thread that called dag_setup
   (it runs tasks whenever it waits). dag_scope(.thread = 2) pins a task to
   worker 2, .threads = DAG_THREAD_BIT(1) | DAG_THREAD_BIT(3) to a set (the
   first 64 workers), .all_threads = 1 to any. dag_scope_union joins scopes.
   A scope no worker satisfies fails the spawn with DAG_ERR_SCOPE.

   IDLE WORKERS AND THE ENVIRONMENT
   ================================
   An idle worker spins block_time_us (5 ms, about what libgomp spins) after
   its last task, then sleeps (DAG_WAIT_DEFAULT); DAG_WAIT_ACTIVE always
   spins (fastest hand-off, a core per idle worker), DAG_WAIT_PASSIVE
   sleeps at once (no idle CPU, a wake-up per hand-off). dag_desc fields
   left at 0 come from the environment:
       DAG_NUM_THREADS   num_threads
       DAG_WAIT_POLICY   wait_policy (active, passive)
       DAG_BLOCKTIME     block_time_us (200us, 5ms, 2s; bare = ms, as KMP_BLOCKTIME)
       DAG_LOG           log_level (none, error, warn, info)
       DAG_TRACE         trace_path: a Perfetto trace written at dag_shutdown (or,
                         without one, at exit when every task has finished; a
                         warning says which)
       DAG_DEVICES       devices: none (CPU only), or e.g. cuda,opencl:2
       DAG_SIMULATE_RANKS  simulate_ranks (with -DDAG_BACKEND_MPI): one process
                         makes rank 0's decisions of this many ranks
   and one setting has no field (-DDAG_BACKEND_MPI):
       DAG_MPI_PROGRESS  workers (the default: idle workers complete messages
                         too) or thread (the progress thread alone)
   All of them are resolved in one place, >>defaults.

   ERRORS AND LOGGING
   ==================
   Every call returns a dag_result; dag_result_string() names it. A task fails
   with dag_fail(code, fmt, ...); everything that depends on it is cancelled
   with DAG_ERR_DEPENDENCY_FAILED, and dag_task_message() names the failed task.
   Misuse (NULL or empty spans, a wrong fetch size, spawning after shutdown,
   an impossible scope) is reported through dag_desc.logger, in every build
   (NDEBUG included: a release build must not crash where a debug one reports).

   TRACING
   =======
   dag_trace_enable(1) records every task (name, worker, start, end) and every
   inferred edge; dag_trace_write_json() writes Chrome trace JSON (open it in
   Perfetto), dag_trace_write_svg() a Gantt chart any browser shows, and
   dag_trace_write_dot() the DAG for Graphviz.

   BUILD OPTIONS
   =============
   Each is #defined before dag.h is included (or given with -D); those the
   implementation reads count in the file that defines DAG_IMPLEMENTATION.
   Defaults are set in one place, >>build options.
   DAG_USE_PTHREADS          map threads onto pthreads instead of C11
                             <threads.h> (automatic where <threads.h> is
                             missing, and as C++; ThreadSanitizer builds need it)
   DAG_NO_SHORT_NAMES        no In/Out/InOut/Val/Fut/Ld
   DAG_NO_SPAWN_FRONT        every spawn through dag_spawn_desc, none packed
                             where it is written (>>spawn-site checks)
   DAG_MALLOC(n), DAG_FREE(p), DAG_REALLOC(p, n)   the allocator: all three or
                             none (malloc, free, realloc)
   DAG_ASSERT(c)             assert(c): checks of dag.h's own invariants
   DAG_HELGRIND              name the happens-before edges of the atomics for
                             helgrind
   DAG_MAX_REGISTERED        2^24: spans registered at once (dag_data_register,
                             a dag_array's tiles); 8 bytes of dag.h's state per
                             1024
   DAG_STACK_BUDGET          2 MiB: the bytes of a thread's stack that nested
                             tasks may fill before a waiting thread blocks (and
                             a reserve thread stands in) rather than runs more;
                             on a smaller stack, half of what it has left
   DAG_MAX_RESERVE_THREADS   256: the most reserve threads at once
   DAG_SLEEP_SAFETY_MS       100: a sleeping worker looks for work at least this
                             often (a wake-up is never lost; this bounds the
                             cost of a bug)
   DAG_DEFAULT_BLOCK_TIME_US 5000: an idle worker's spin before it sleeps, when
                             neither dag_desc.block_time_us nor DAG_BLOCKTIME
                             says
   DAG_MPI_MAX_RANKS         1024: the most ranks (-DDAG_BACKEND_MPI); each
                             owned span keeps two sets of this many bits
   DAG_KERNEL_GRAIN          4096 (dag_kernels.h): a CPU launch of a kernel
                             makes no chunk smaller than this many items
   DAG_ARRAY_PANEL_ROWS      4096 (dag_array.h): rows per task, at most, in the
                             panel updates of a wrapped matrix's factorisation
   Link with the thread library (-pthread).

   BACKENDS AND DEVICES
   ====================
   The CPU (C11 threads) is always on. Any combination of these adds devices
   (or #define DAG_BACKEND_X, empty or 1, before including dag.h); a flag is
   DAG_BACKEND_<NAME>, the backend's name in code DAG_<NAME> (>>flags), and
   another spelling (-DDAG_CUDA, -DDAG_USE_CUDA, -Ddag_backend_cuda) is an
   #error naming the flag:
     -DDAG_BACKEND_OPENCL      libOpenCL.so.1, loaded at run time (no SDK)
     -DDAG_BACKEND_CUDA        the CUDA runtime, linked statically:
                               -I<cuda>/include ... -lcudart_static -lrt -ldl
     -DDAG_BACKEND_HIP         libamdhip64, loaded at run time (no SDK)
     -DDAG_BACKEND_LEVEL_ZERO  libze_loader.so.1, loaded at run time (headers
                               from libze-dev)
   A backend that finds no device says why and the others do the work.
   DAG_KERNEL tasks (dag_kernels.h) whose scope allows a device run there:
   dag_scope(.opencl.one = 2); .cuda, .hip and .level_zero alike, each with
   .one, .set (DAG_DEVICE_BIT(1) | ...) and .all = 1; .any_processor = 1
   (the cost model picks by estimated finish time; the estimates go into
   the trace), and unions with CPU scopes. OpenCL builds kernels from their
   text at run time; CUDA, HIP and Level Zero use builds made ahead of time
   (dag_kernels.h says how).
   The default scope is the CPU. Data moves by itself: each span has replicas
   per device, kept coherent (MSI); only stale bytes move; overlapping dirty
   replicas are written back first; copies and kernels queue in order on the
   device; a per-device pool and LRU eviction under dag_desc.device_memory_limit.
   A device task counts as finished once queued: DAG_DATADEPS, dag_wait and
   dag_fetch from the program, dag_wait_all and dag_synchronize return with
   host memory current. dag_memory_stats() reports each device's memory.
   dag_backend_available(), dag_device_count() and dag_backend_status() say
   what was found, or why not in the driver's own words.

   WHERE THINGS ARE
   ================
   Each part starts with a marker: search for ">>name". The parts in file
   order, under the layer each belongs to (tools/check_layers.py checks this
   list, and that a function calls no later layer but for a named few):
     public:     >>flags >>results >>handles >>backends >>scopes >>args >>api
                 >>arg-constructors >>spawn-site checks >>macros >>generated tables
     platform:   >>language >>customisation >>build options >>threads >>hints
     records:    >>records >>pool >>task >>regions >>context >>deque >>worker
                 >>data >>state
     seams:      >>device seam >>mpi seam
     base:       >>logging >>pool implementation >>deque implementation
     scheduler:  >>sleep >>ready >>lifecycle >>convert >>trace recording
                 >>region pool >>causes >>kept results >>execute >>find work
                 >>helping
     deps:       >>spans >>domain >>dependencies
     spawn:      >>scope queries >>guests >>context management >>data implementation
                 >>undeferred >>spawn
     completion: >>waiting >>regions implementation >>fail >>detach
     set-up:     >>environment >>defaults >>setup >>shutdown
                 >>opencl text of a kernel >>stats
     output:     >>trace output >>svg gantt chart
     includes:   >>other layers

   Each layer uses the ones above it. The devices (OpenCL, CUDA, HIP, Level
   Zero) live in dag_backends/dag_device.h and one file per backend, the
   ranks in dag_backends/dag_mpi.h; dag.h reaches them only through the
   calls its seams declare, and a CPU-only build never reads them.

   LICENSE: MIT, see the end of this file.
*/
#ifndef DAG_H_INCLUDED
#define DAG_H_INCLUDED

/* >>flags: one naming rule. A switch read at compile time is a macro named
   for what it does: DAG_BACKEND_<NAME> compiles a backend in (OPENCL, CUDA,
   HIP, LEVEL_ZERO, MPI: -DDAG_BACKEND_CUDA), and the BUILD OPTIONS are the
   others. The backends' names in code, read at run time, are the
   dag_backend enum DAG_<NAME> (dag_backend_status(DAG_CUDA)); a flag used
   in code in their place stops the build (below). A flag spelled any other
   plausible way would be ignored, or break that enum, so each stops the
   build here naming the right one. */
#if defined(DAG_OPENCL) || defined(DAG_USE_OPENCL) || defined(DAG_ENABLE_OPENCL) || defined(DAG_WITH_OPENCL) || \
    defined(DAG_HAS_OPENCL) || defined(DAG_BACKEND_OpenCL) || defined(DAG_BACKEND_opencl) || \
    defined(dag_backend_opencl) || defined(DAG_BACKEND_CL) || defined(DAG_BACKEND_OCL) || defined(DAG_OCL)
#error "dag.h: the flag that compiles OpenCL in is -DDAG_BACKEND_OPENCL (flags are DAG_BACKEND_<NAME>; DAG_OPENCL is its name in code)"
#undef DAG_OPENCL   /* so that this is the one error, not the enum's after it */
#endif
#if defined(DAG_CUDA) || defined(DAG_USE_CUDA) || defined(DAG_ENABLE_CUDA) || defined(DAG_WITH_CUDA) || \
    defined(DAG_HAS_CUDA) || defined(DAG_BACKEND_Cuda) || defined(DAG_BACKEND_cuda) || defined(dag_backend_cuda) || \
    defined(DAG_BACKEND_NVIDIA)
#error "dag.h: the flag that compiles CUDA in is -DDAG_BACKEND_CUDA (flags are DAG_BACKEND_<NAME>; DAG_CUDA is its name in code)"
#undef DAG_CUDA   /* so that this is the one error, not the enum's after it */
#endif
#if defined(DAG_HIP) || defined(DAG_USE_HIP) || defined(DAG_ENABLE_HIP) || defined(DAG_WITH_HIP) || \
    defined(DAG_HAS_HIP) || defined(DAG_BACKEND_Hip) || defined(DAG_BACKEND_hip) || defined(dag_backend_hip) || \
    defined(DAG_BACKEND_ROCM) || defined(DAG_BACKEND_AMD)
#error "dag.h: the flag that compiles HIP in is -DDAG_BACKEND_HIP (flags are DAG_BACKEND_<NAME>; DAG_HIP is its name in code)"
#undef DAG_HIP   /* so that this is the one error, not the enum's after it */
#endif
#if defined(DAG_LEVEL_ZERO) || defined(DAG_USE_LEVEL_ZERO) || defined(DAG_ENABLE_LEVEL_ZERO) || \
    defined(DAG_WITH_LEVEL_ZERO) || defined(DAG_HAS_LEVEL_ZERO) || defined(DAG_BACKEND_LevelZero) || \
    defined(DAG_BACKEND_level_zero) || defined(dag_backend_level_zero) || defined(DAG_BACKEND_LEVELZERO) || \
    defined(DAG_LEVELZERO) || defined(DAG_BACKEND_ZE) || defined(DAG_ZE) || defined(DAG_BACKEND_L0) || \
    defined(DAG_BACKEND_ONEAPI)
#error "dag.h: the flag that compiles Level Zero in is -DDAG_BACKEND_LEVEL_ZERO (flags are DAG_BACKEND_<NAME>; DAG_LEVEL_ZERO is its name in code)"
#undef DAG_LEVEL_ZERO   /* so that this is the one error, not the enum's after it */
#endif
#if defined(DAG_MPI) || defined(DAG_USE_MPI) || defined(DAG_ENABLE_MPI) || defined(DAG_WITH_MPI) || \
    defined(DAG_HAS_MPI) || defined(DAG_BACKEND_Mpi) || defined(DAG_BACKEND_mpi) || defined(dag_backend_mpi)
#error "dag.h: the flag that runs over MPI ranks is -DDAG_BACKEND_MPI (flags are DAG_BACKEND_<NAME>)"
#endif

/* A flag is on when defined as 1 (-DDAG_BACKEND_X) or as nothing (#define
   DAG_BACKEND_X). From here on, one that is on reads as written below: 1
   in #if, and in code a name that says what to write instead, so that
   dag_backend_status(DAG_BACKEND_CUDA), whose 1 would be DAG_OPENCL, stops
   the build. DAG__ON(flag) is 1 for a flag that is on, in any of these
   forms, and 0 for one not defined (it arrives as its own name). `defined`
   cannot come out of a macro, and this can: so the #if tests, the device
   table and the kernels' records are all made from the backend list. */
#define DAG__CAT(a, b) DAG__CAT_(a, b)
#define DAG__CAT_(a, b) a##b
/* The casts and null pointers of the macros that expand in the program's code: C++'s own words in
   C++, so that -Wold-style-cast and -Wzero-as-null-pointer-constant find nothing of dag.h's there */
#ifdef __cplusplus
#define DAG__CAST(T, x) static_cast<T>(x)
#define DAG__NULL nullptr
#else
#define DAG__CAST(T, x) ((T)(x))
#define DAG__NULL NULL
#endif
#define DAG__SECOND_X(...) DAG__SECOND(__VA_ARGS__)
#define DAG__SECOND(a, b, ...) b
#define DAG__ON(flag) DAG__ON_(flag)
#define DAG__ON_(value) DAG__CAT(DAG__ON_WRITTEN_, DAG__SECOND_X(DAG__PROBE_WRITTEN value, 0, ~))(value)
#define DAG__PROBE_WRITTEN(...) ~, 1,
#define DAG__ON_WRITTEN_1(value) 1
#define DAG__ON_WRITTEN_0(value) DAG__SECOND_X(DAG__PROBE_##value, 0, ~)
#define DAG__PROBE_ ~, 1,
#define DAG__PROBE_1 ~, 1,
#if DAG__ON(DAG_BACKEND_OPENCL)
#undef DAG_BACKEND_OPENCL
#define DAG_BACKEND_OPENCL (1 + DAG_BACKEND_OPENCL_is_a_build_flag__in_code_the_backend_is_DAG_OPENCL)
#endif
#if DAG__ON(DAG_BACKEND_CUDA)
#undef DAG_BACKEND_CUDA
#define DAG_BACKEND_CUDA (1 + DAG_BACKEND_CUDA_is_a_build_flag__in_code_the_backend_is_DAG_CUDA)
#endif
#if DAG__ON(DAG_BACKEND_HIP)
#undef DAG_BACKEND_HIP
#define DAG_BACKEND_HIP (1 + DAG_BACKEND_HIP_is_a_build_flag__in_code_the_backend_is_DAG_HIP)
#endif
#if DAG__ON(DAG_BACKEND_LEVEL_ZERO)
#undef DAG_BACKEND_LEVEL_ZERO
#define DAG_BACKEND_LEVEL_ZERO (1 + DAG_BACKEND_LEVEL_ZERO_is_a_build_flag__in_code_the_backend_is_DAG_LEVEL_ZERO)
#endif
#if DAG__ON(DAG_BACKEND_MPI)
#undef DAG_BACKEND_MPI
#define DAG_BACKEND_MPI (1 + DAG_BACKEND_MPI_is_a_build_flag__not_a_dag_backend)
#endif

/* OpenCL C (clang -x cl, making the kernels' SPIR-V) reads only the macros. */
#if !defined(__OPENCL_C_VERSION__)

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>   /* Val keeps a small value inside the argument */

#ifdef __cplusplus
#include <initializer_list>   /* dag_spawn's argument array: C++ has no compound literals */
#include <cstring>            /* (std::memcpy) */
#define DAG__ARGS(...) (std::initializer_list<dag_arg>{__VA_ARGS__}.begin())
/* each argument converted for its parameter, whose type C++ knows at the spawn (dag__param_arg) */
#define DAG__ARGS_OF(name, ...) DAG__ARGS(DAG__MAPI(DAG__PARAM_ARG, name, __VA_ARGS__))
#define DAG__PARAM_ARG(name, i, x) dag__param_arg<decltype(name##__args::a##i)>(x)
extern "C" {
#else
/* Each argument must be a dag_arg (Val, In, Out, InOut, Fut...): a bare number would otherwise
   fill an argument's first field by brace elision and be refused only at run time, with words
   about something else. C++'s list refuses it already. */
#define DAG__ARGS(...) ((dag_arg[]){DAG__MAP(dag_spawn_argument_must_be_Val_In_Out_InOut_or_Fut, __VA_ARGS__)})
#define DAG__ARGS_OF(name, ...) DAG__ARGS(__VA_ARGS__)
#endif

/* >>results: one list builds the enum and the messages */
#define DAG__RESULTS(X) \
    X(DAG_OK, "ok") \
    X(DAG_ERR_TASK_FAILED, "a task failed") \
    X(DAG_ERR_DEPENDENCY_FAILED, "dependency failed") \
    X(DAG_ERR_NULL_SPAN, "a span has a NULL pointer and a nonzero count") \
    X(DAG_ERR_EMPTY_SPAN, "a span has zero elements") \
    X(DAG_ERR_BAD_TILE, "a 2-D span has more columns than its leading dimension") \
    X(DAG_ERR_ARG_COUNT, "wrong number of arguments for the task") \
    X(DAG_ERR_ARG_TYPE, "an argument does not fit the task's parameter") \
    X(DAG_ERR_FETCH_SIZE, "dag_fetch: the output's size differs from the task's result") \
    X(DAG_ERR_NO_RESULT, "dag_fetch on a task that returns void") \
    X(DAG_ERR_INVALID_HANDLE, "invalid (zero) handle") \
    X(DAG_ERR_STALE_HANDLE, "stale handle: the task's result was fetched already or released, or it is from an earlier set-up") \
    X(DAG_ERR_BAD_DATA, "unknown or unregistered data handle") \
    X(DAG_ERR_SHUT_DOWN, "the runtime is shut down") \
    X(DAG_ERR_UNBALANCED_REGION, "unbalanced region: a block was left without its end") \
    X(DAG_ERR_SCOPE, "no processor satisfies the scope") \
    X(DAG_ERR_OUT_OF_MEMORY, "out of memory") \
    X(DAG_ERR_THREAD, "could not start a worker thread") \
    X(DAG_ERR_INVALID_ARGUMENT, "invalid argument") \
    X(DAG_ERR_KERNEL_BUILD, "a kernel did not build (the task's message has the compiler's log)") \
    X(DAG_ERR_DEVICE, "a device operation failed") \
    X(DAG_ERR_IO, "a file could not be read or written") \
    X(DAG_ERR_NOT_POSITIVE_DEFINITE, "the matrix is not positive definite (the message names the tile and column)") \
    X(DAG_ERR_WAIT_CYCLE, "a wait that can never end: the task waited for needs the waiting task to finish first") \
    X(DAG_ERR_CANCELLED, "the task was cancelled (dag_cancel, dag_region_cancel or dag_cancel_siblings)") \
    X(DAG_ERR_DIVERGED, "the ranks diverged: they made different collective calls (the log names the first that differs)")

#define DAG__RESULT_ENUM(name, text) name,
typedef enum dag_result { DAG__RESULTS(DAG__RESULT_ENUM) DAG__RESULT_COUNT } dag_result;
/* dag_fail may use its own codes from here on; dag_result_string names them
   "user error". */
enum { DAG_USER_ERROR = 1000 };

/* DAG_LOG_NONE is for dag_desc.log_level only: no message at all. */
typedef enum dag_log_level { DAG_LOG_NONE = -1, DAG_LOG_ERROR = 1, DAG_LOG_WARN, DAG_LOG_INFO } dag_log_level;

typedef struct dag_logger {
    /* item: the dag_result the message is about; message: one line, no '\n' */
    void (*func)(dag_log_level level, int item, const char *message, void *user_data);
    void *user_data;
} dag_logger;

/* >>handles: a record pointer plus a generation, so a reused record is
   caught. A task that ran inside its spawn and returned a result of at
   most a pointer's size has no record left: its handle carries the result
   (the bytes where ptr is, their size and type in gen). */
struct dag__task;
typedef struct dag_task {
    struct dag__task *ptr;
    uint32_t gen;
    uint32_t bits;         /* private: has a result (bit 0), set-up cycle (bits 1-29), carries its result (bit 30),
                              a rank layer's task (bit 31) */
} dag_task;
typedef struct dag_data { uint64_t id; } dag_data;

/* >>backends: which processors exist, and why not. One list gives the
   enum, the scope's fields, every table of names, the device table
   (dag_backends/dag_device.h) and the kernels' records (dag_kernels.h).
   A row: X(enum, scope field (also the long word DAG_DEVICES takes), name,
   word (the short word DAG_DEVICES takes; also the suffix of a kernel's
   record, axpy__ze, and of the backend's table, dag__ze_ops), a device's
   name, the -D flag that compiles it in, whether kernels come built ahead
   of time (1: dag_kernels.h declares their records), how a kernel gets a
   build for it). The CPU comes first (0); its scope fields are the thread
   ones, so only the device backends have a row here. DAG__BACKENDS_K
   passes k on to X as a last argument (dag_kernels.h: the kernel's name);
   X may end in `...` to take only the columns it needs. */
#define DAG__DEVICE_BACKENDS_K(X, k) \
    X(DAG_OPENCL, opencl, "OpenCL", opencl, "OpenCL device", DAG_BACKEND_OPENCL, 0, "", k) \
    X(DAG_CUDA, cuda, "CUDA", cuda, "CUDA GPU", DAG_BACKEND_CUDA, 1, \
      "compile the file that defines it with nvcc -DDAG_BACKEND_CUDA and link that object", k) \
    X(DAG_HIP, hip, "HIP", hip, "HIP GPU", DAG_BACKEND_HIP, 1, \
      "embed its hipcc --genco code object with tools/dag_embed.py --hip and link that file", k) \
    X(DAG_LEVEL_ZERO, level_zero, "Level Zero", ze, "Level Zero device", DAG_BACKEND_LEVEL_ZERO, 1, \
      "embed its SPIR-V with tools/dag_embed.py --level-zero and link that file", k)
#define DAG__BACKENDS_K(X, k) X(DAG_CPU, cpu, "CPU", cpu, "worker", , 0, "", k) DAG__DEVICE_BACKENDS_K(X, k)
#define DAG__DEVICE_BACKENDS(X) DAG__DEVICE_BACKENDS_K(X, ~)
#define DAG__BACKENDS(X) DAG__BACKENDS_K(X, ~)
#define DAG__BACKEND_ENUM(e, ...) e,
typedef enum dag_backend { DAG__BACKENDS(DAG__BACKEND_ENUM) DAG_BACKEND_COUNT } dag_backend;

/* >>scopes */
#define DAG_THREAD_BIT(n) (UINT64_C(1) << ((n) - 1))
#define DAG_RANK(r) ((r) + 1)
#define DAG_DEVICE_BIT(n) (UINT64_C(1) << ((n) - 1))
/* Where a task may run on one backend's devices: one device, a set, or all
   of them. Three names that cannot be mistaken for each other. */
typedef struct dag_device_scope {
    uint64_t set;        /* a set of devices: DAG_DEVICE_BIT(n) | ... */
    int one;             /* one device, 1-based; 0 = unset */
    int all;             /* every device of the backend */
} dag_device_scope;
#define DAG__SCOPE_FIELD(e, field, ...) dag_device_scope field;
typedef struct dag_scope {
    int thread;          /* one worker, 1-based; 0 = unset */
    int rank;            /* many nodes (dag_mpi.h): DAG_RANK(r) runs the task on MPI rank r; 0 = where
                            its first written data lives */
    uint64_t threads;    /* a set of workers: DAG_THREAD_BIT(n) | ... */
    int all_threads;     /* any worker (also what an empty scope means) */
    int any_processor;   /* the cost model picks among every worker and device */
    /* devices run kernels only. One dag_device_scope per backend, named as in
       DAG__DEVICE_BACKENDS: .opencl, .cuda, .hip, .level_zero; for example
       dag_scope(.cuda.one = 2) or dag_scope(.opencl.all = 1) */
    DAG__DEVICE_BACKENDS(DAG__SCOPE_FIELD)
} dag_scope;
#define dag_scope(...) ((dag_scope){__VA_ARGS__})
/* For code that spreads work over what a scope allows (dag_array.h does):
   the part of `scope` that names `backend`'s devices (NULL for DAG_CPU or no scope),
   whether device n (1-based) is in such a part, and whether the scope lets
   tasks run on the CPU's workers (a scope that names only devices does not). */
dag_device_scope *dag_scope_part(const dag_scope *scope, dag_backend backend);
bool dag_device_scope_has(dag_device_scope part, int device);
bool dag_scope_has_cpu(dag_scope scope);
#define DAG_MAX_DEVICES 16   /* devices of all backends together */

typedef struct dag_options {
    const char *name;    /* shown in traces and errors instead of the task's name */
    int priority;        /* > 0: runs before unprioritised ready tasks, higher first */
    dag_scope scope;     /* empty: inherited, or any worker */
    int discard_results; /* 1: results are dropped when their region ends (no dag_fetch after it) */
    int keep_results;    /* 1: dag_fetch leaves the result for more fetches and Futs, until dag_release
                            (the tasks spawned here only, not what their bodies spawn) */
    int run_inline;      /* 1: runs on the spawning thread, finished when dag_spawn returns (after its
                            predecessors: OpenMP's if(0)); a cut-off for recursion: .run_inline = n < 20
                            (the tasks spawned here only: .final reaches what their bodies spawn) */
    int final;           /* 1: this task and everything its body spawns, at any depth, run inline (OpenMP's final) */
} dag_options;

/* How an idle worker waits for work (OpenMP's OMP_WAIT_POLICY). */
typedef enum dag_wait_policy {
    DAG_WAIT_DEFAULT = 0,   /* spin block_time_us after the last task, then sleep */
    DAG_WAIT_ACTIVE,        /* always spin: the fastest hand-off, a core per idle worker */
    DAG_WAIT_PASSIVE        /* sleep at once: no idle CPU, a wake-up per hand-off */
} dag_wait_policy;

typedef struct dag_desc {
    int num_threads;     /* workers including the calling thread; 0 = DAG_NUM_THREADS, else one per core */
    int throttle;        /* ready tasks queued per worker before the spawner runs
                            one itself; 0 = 64 */
    int trace;           /* record a trace from the start */
    dag_logger logger;   /* 0 = errors and warnings to stderr */
    size_t device_memory_limit;   /* bytes of data each device may hold; 0 = its memory */
    int no_library_kernels;   /* 1: kernels run their own builds, never a library routine standing in
                                 (dag_library_kernel: the vendor BLAS for dag_blas.h's tiles) */
    dag_wait_policy wait_policy;   /* 0 = DAG_WAIT_POLICY (active, passive), else DAG_WAIT_DEFAULT */
    int block_time_us;   /* DAG_WAIT_DEFAULT: how long an idle worker spins before it sleeps;
                            0 = DAG_BLOCKTIME (200us, 5ms, 2s; a bare number is ms), else 5000 */
    dag_log_level log_level;   /* the least severe level logged; 0 = DAG_LOG (none, error, warn,
                                  info), else warnings for the default logger, all for yours */
    const char *trace_path;    /* record a trace and write it here (Perfetto JSON) at dag_shutdown;
                                  NULL = DAG_TRACE */
    const char *devices;       /* devices the program may use: "none" (CPU only), or a list such
                                  as "cuda,opencl:2" (numbers from 1); NULL = DAG_DEVICES, else all */
    size_t rank_cache_limit;   /* many nodes (dag_mpi.h): bytes of other ranks' data each rank keeps
                                  copies of (least recently used dropped first); 0 = no limit */
    int simulate_ranks;        /* many nodes: this process makes rank 0's decisions of this many ranks,
                                  without MPI: nothing is sent, no task placed on one rank runs, and
                                  dag_get_rank_stats counts every rank; 0 = DAG_SIMULATE_RANKS */
} dag_desc;

typedef struct dag_stats {
    uint64_t tasks_spawned, tasks_run, tasks_stolen, tasks_inlined;   /* tasks_run: finished, their bodies
                                     run or skipped (a cancelled task, or one whose dependency failed) */
    uint64_t records_allocated;   /* task records ever carved from slabs */
    size_t tasks_live;            /* task records in use now: tasks not finished, finished ones whose
                                     result a region still holds for dag_fetch (see results_kept for the
                                     rest), and finished ones still named as a span's last access in their
                                     spawner's dependency table (at most one a span: a later spawn on the
                                     span, or dag_wait_all, lets them go) */
    size_t bytes_per_task;        /* bytes of one task record */
    size_t record_bytes;          /* bytes held by task-record slabs */
    int reserve_threads;          /* threads started to stand in for waits that blocked */
    int reserve_peak;             /* most of them in service at once */
    int blocked_waits;            /* threads blocked in a wait right now */
    uint64_t sleeps;              /* times an idle thread went to sleep (each costs a wake-up later) */
    uint64_t spawner_waits;       /* times a spawner far ahead of the workers stopped to let them catch up
                                     (docs/guide.md, "How far a spawner runs ahead") */
    size_t results_kept;          /* results kept past their regions, for dag_fetch (dag_release drops one) */
    size_t failures_described;    /* failure descriptions held (what dag_task_message and the logs say): one
                                     per failure that a task record or region can still report (a result
                                     kept past its region keeps its own copy, counted in results_kept) */
    size_t result_bytes;          /* bytes the kept results hold, headers and such copies included */
    size_t events_pending;        /* dag_detach events not yet fulfilled */
    uint64_t rank_messages_sent;  /* many nodes (dag_mpi.h): messages this rank sent to others (dag_rank_stats) */
    uint64_t rank_bytes_sent;     /* and their bytes */
    uint64_t rank_copies_dropped; /* copies of other ranks' data this rank dropped (dag_desc.rank_cache_limit) */
    uint64_t rank_critical_path;  /* the longest chain of collective tasks, in tasks (data messages not counted) */
    size_t rank_tasks_kept;       /* tasks run on one rank this rank still answers waits and Futs of (void and
                                     discarded ones go when their DAG_DATADEPS ends, the others at dag_release) */
} dag_stats;

/* Many nodes: one rank's share, since dag_setup, as every rank decides it
   (dag_get_rank_stats). Messages are data, Fut values and the outcomes of
   collective waits. */
typedef struct dag_rank_stats {
    uint64_t tasks;                                /* collective spawns it runs */
    uint64_t messages_sent, bytes_sent;            /* to other ranks */
    uint64_t messages_received, bytes_received;    /* from other ranks */
} dag_rank_stats;

/* >>args */
typedef struct dag_arg {
    uint8_t kind;        /* dag__arg_kind */
    uint8_t mode;        /* dag_access, for spans and data; value: 1 when `task` holds a copy of its bytes */
    uint8_t tag;         /* value: the C type (DAG__TYPE_TAGS); span: 2 for a 2-D tile */
    uint8_t elem;        /* span: its elements' C type (DAG__TYPE_TAGS, DAG__TAG_OTHER; 0: not known, as from
                            dag_arg_span and registered data); value: what a pointer points to (0: no pointer) */
    uint32_t size;       /* value: bytes; span: bytes per element */
    const void *ptr;     /* value: its bytes (NULL: in `task`'s bytes, as C++'s Val keeps a small value, whose
                            temporary dies with its statement); span: first element */
    size_t count;        /* span: elements (1-D) or rows (2-D) */
    size_t cols, ld;     /* 2-D span: elements per row, elements between rows */
    dag_task task;       /* Fut */
    dag_data data;       /* registered data */
} dag_arg;
/* dag_spawn's arguments pass through this (as C, where it builds the argument array), so that
   anything but a dag_arg stops the build here, by this name */
#ifndef __cplusplus
static inline dag_arg dag_spawn_argument_must_be_Val_In_Out_InOut_or_Fut(dag_arg a) { return a; }
#endif

enum { DAG__ARG_VALUE = 1, DAG__ARG_SPAN, DAG__ARG_DATA, DAG__ARG_FUTURE, DAG__ARG_LD };
/* How a task uses a span or registered data: what In, Out and InOut give */
typedef enum dag_access { DAG_ACCESS_IN = 1, DAG_ACCESS_OUT = 2, DAG_ACCESS_INOUT = 3 } dag_access;

/* A parameter as spawns check their arguments against it. tag: its C type
   when it is a number (DAG__TYPE_TAGS), else 0. pointee: 0 when it is not a
   pointer; DAG__ANY_POINTEE for void * and the char pointers (raw bytes,
   which C lets alias anything); else DAG__POINTEE(tag, bytes) of what it
   points to, a C number type or DAG__TAG_OTHER (a struct, a pointer...: its
   bytes are not compared). A span of the pointee's own type has that code
   too, so the common spawn passes with one comparison. decl: "const double
   * x", for messages. */
typedef struct dag__param { uint32_t offset, size, tag, pointee; const char *decl; } dag__param;
#define DAG__ANY_POINTEE 0xffffffffu
#define DAG__POINTEE(tag, bytes) (DAG__CAST(uint32_t, tag) << 24 | DAG__CAST(uint32_t, bytes))
/* tags beyond the C number types (DAG__TYPE_TAGS has 1 to 15): what a span's
   elements or a pointer's target are when they are not numbers */
enum { DAG__TAG_OTHER = 16, DAG__TAG_VOID = 17 };

/* A kernel compiled ahead of time for one backend (dag_kernels.h says how):
   nvcc's __global__ function for CUDA; for HIP a code object (an offload
   bundle from hipcc --genco) and for Level Zero a SPIR-V module, each with
   the kernel's name in it. */
typedef struct dag_native_kernel {
    const char *symbol;            /* the kernel's name in the image */
    const void *entry;             /* CUDA: the __global__ function */
    const unsigned char *image;    /* HIP, Level Zero: the module's bytes */
    size_t image_size;
} dag_native_kernel;

/* One argument of a kernel as a device gets it: a value's bytes, or a span's
   memory on the device (a device pointer; for OpenCL, its cl_mem). */
typedef struct dag_kernel_arg {
    const void *value;   /* a value: its bytes */
    size_t size;
    void *buffer;        /* a span: its memory on the device (NULL for a value) */
} dag_kernel_arg;

/* A library routine standing in for a portable kernel on one backend's
   devices (dag_blas.h binds cuBLAS, cuSOLVER, rocBLAS, rocSOLVER and
   CLBlast to its tiles this way; DAG_KERNEL_OR_LIBRARY in dag_kernels.h
   attaches routines to a kernel). Where one loads, the device layer calls
   it instead of launching the kernel, after the arguments' copies, on the
   queue (stream) the kernel would have gone on. */
typedef struct dag_library_kernel {
    dag_backend backend;
    const char *routine;   /* its name, for logs: "cublasDgemm_v2" */
    /* loads the library, the first time: false when it is absent, and the kernel runs its own
       builds (or elsewhere). Called with the device layer's lock held. */
    bool (*load)(void);
    /* queues the routine. queue: CUDA and HIP, a stream of the device (cudaStream_t, hipStream_t)
       with the device current; OpenCL, a pointer to its cl_command_queue. device: the backend's
       device index, from 0. n: the launch range; args: the kernel's parameters after it.
       event: OpenCL only, where the caller wants a completion event, the cl_event of the
       routine's last command (left NULL, the backend marks the queue itself); NULL otherwise.
       self: this record (one function may serve several, told apart by user_data).
       Returns 0, or the library's error code. */
    int (*call)(const struct dag_library_kernel *self, void *queue, int device, size_t n, const dag_kernel_arg *args,
                int num_args, void **event);
    /* optional: releases what call made for the device (a library handle), at dag_shutdown,
       with queue as for call */
    void (*release)(void *queue, int device);
    const void *user_data;
} dag_library_kernel;

/* A portable kernel (dag_kernels.h makes these): its text, the parameters
   as written, "((type, name), ...)", and the body (OpenCL builds it at run
   time), its ahead-of-time builds by backend (native[DAG_CUDA]; 0 where the
   program has none), and the library routines that may stand in for it
   (NULL-terminated; NULL: none). */
typedef struct dag_kernel_source {
    const char *name;
    const char *params;
    const char *body;
    const dag_native_kernel *native[DAG_BACKEND_COUNT];
    const dag_library_kernel *const *libraries;
} dag_kernel_source;

typedef struct dag_task_desc {
    const char *name;
    void (*run)(void *args, void *result);
    int num_params;
    const dag__param *params;
    size_t args_size;
    size_t result_size;     /* 0 for void */
    int result_tag;
    const dag_kernel_source *kernel;   /* DAG_KERNEL launches: may run on a device */
    uint32_t result_pointee;           /* a pointer result: what it points to (a parameter's pointee); 0 otherwise */
} dag_task_desc;

typedef enum dag_region_kind {
    DAG_REGION_DATADEPS = 1, DAG_REGION_SEQUENTIAL, DAG_REGION_BULK, DAG_REGION_OPTIONS
} dag_region_kind;
typedef struct dag_region { uint32_t depth; uint32_t serial; } dag_region;

/* >>api */
dag_result dag_setup(const dag_desc *desc);     /* desc may be NULL */
dag_result dag_shutdown(void);
bool dag_is_setup(void);
int dag_num_threads(void);
int dag_current_worker(void);                   /* 1-based; 0 outside the pool */

dag_task dag_spawn_desc(const dag_task_desc *task, const dag_arg *args, int num_args,
                        const dag_options *options);
dag_result dag_wait(dag_task t);
bool dag_ready(dag_task t);
dag_result dag_fetch_bytes(dag_task t, void *out, size_t size);
dag_result dag__fetch_as(dag_task t, void *out, size_t size, int tag);   /* dag_fetch: out's C type's tag too */
/* dag_task's bits: the set-up cycle a handle notes, and a handle that carries its task's result
   (a task run inside its spawn, see >>handles) */
#define DAG__EPOCH_MASK 0x1fffffffu
#define DAG__VALUE_HANDLE 0x40000000u
extern uint32_t dag__live_epoch;   /* the running set-up cycle, 0 while none runs (gcc's __atomic builtins) */
extern uint32_t dag__data_gen_floor;   /* the first data generation of the running set-up cycle (see >>data) */
/* A fetch's output (want: the tag of the type it points to, DAG__TYPE_TAGS, DAG__TAG_OTHER for a
   struct or pointer, 0 not known) against a result of the same size (have: its tag, 0 for a struct
   or pointer) whose bits would be read as another kind's: floating against integer, or a number
   against a struct or pointer. */
static inline bool dag__kinds_differ(int want, int have) {
    bool want_number = want >= 1 && want <= 15, have_number = have >= 1 && have <= 15;
    if (want_number && have_number) return want != have && (want >= 13) != (have >= 13);
    return want_number ? !have_number : want == DAG__TAG_OTHER && have_number;
}
/* Whether a handle is of this set-up cycle (one of an earlier one points at memory given back, or holds a
   result of a run that is over) */
static inline bool dag__handle_current(dag_task h) {
    return ((h.bits >> 1) & DAG__EPOCH_MASK) == (__atomic_load_n(&dag__live_epoch, __ATOMIC_RELAXED) & DAG__EPOCH_MASK);
}
/* The handle of a task that ran inside its spawn and returned a result of
   at most a pointer's size: the result itself, with its size and type, so
   that neither the task's record nor its region keeps anything (OpenMP's
   if(0) costs a call; so does this). Every fetch of it gives the result. */
static inline bool dag__value_handle(dag_task h) { return (h.bits & DAG__VALUE_HANDLE) != 0; }
static inline size_t dag__value_size(dag_task h) { return h.gen & 0xffu; }
static inline int dag__value_tag(dag_task h) { return DAG__CAST(int, (h.gen >> 8) & 0xffu); }
/* Such a handle's result goes into `out` as it is: its size and kind, and its set-up cycle's */
static inline bool dag__value_fetchable(dag_task h, const void *out, size_t size, int tag) {
    return size == dag__value_size(h) && out && !dag__kinds_differ(tag, dag__value_tag(h)) && dag__handle_current(h);
}
/* dag_fetch: the result a handle carries is a move where the fetch is written (the size and the
   kind known there); anything else, the library */
static inline dag_result dag__fetch_here(dag_task h, void *out, size_t size, int tag) {
    if (dag__value_handle(h) && size <= sizeof h.ptr && dag__value_fetchable(h, out, size, tag)) {
        memcpy(out, &h.ptr, size);
        return DAG_OK;
    }
    return dag__fetch_as(h, out, size, tag);
}
dag_result dag_wait_all(void);
dag_result dag_task_result(dag_task t);          /* without waiting: DAG_OK while running */
/* Why t failed, or "": "task 'a' failed: <dag_fail's words>", "task 'a' was
   cancelled", "dependency failed: task 'a' failed: <its words>". The text
   stays valid until 8 more calls on the same thread. */
const char *dag_task_message(dag_task t);
/* Cancellation (Dagger's cancel!): a task not yet started never runs and
   fails with DAG_ERR_CANCELLED, its dependents with DAG_ERR_DEPENDENCY_FAILED;
   a running one sees dag_cancelled() return true, and is cancelled once it
   has seen that (it should return early; one that never asks finishes as
   usual); a finished one is left as it is. dag_region_cancel
   does that to every task of the innermost open DAG_DATADEPS or
   DAG_SEQUENTIAL of the caller (or its root), spawned or to be spawned. A
   cancel reaches the whole subtree: the tasks a cancelled running task's
   body spawns, and those of blocks inside a cancelled block, are cancelled
   too. */
dag_result dag_cancel(dag_task t);
void dag_region_cancel(void);
/* Inside a body: cancels the block its task was spawned in (TBB's
   task_group::cancel() from one of the group's tasks, OpenMP's cancel
   taskgroup): the siblings not started never run, running ones (this task
   too) see dag_cancelled(). DAG_ERR_INVALID_ARGUMENT outside a body. */
dag_result dag_cancel_siblings(void);
bool dag_cancelled(void);                        /* inside a body: was its task cancelled? */
/* Drops t's result: kept past its region otherwise, for dag_fetch (a result
   costs its own bytes plus 32 until then; dag_get_stats counts them), and a
   failure kept for dag_wait (a void task's too). A spent handle (fetched,
   or released already) returns DAG_ERR_STALE_HANDLE and changes nothing.
   A void task that finished fine keeps nothing once its region has ended
   (or dag_wait_all returned): releasing its handle then is DAG_OK, however
   often, since no record is left to tell whether it was released before. */
dag_result dag_release(dag_task t);
/* Detached work (OpenMP's detach clause, omp_fulfill_event): a body that
   hands its work to something outside dag.h (an MPI request, a device's
   callback, a thread of the program's) calls dag_detach(); its task then
   finishes, and its dependents start, only once dag_fulfill(event, DAG_OK)
   has been called, from any thread, before or after the body returns. A
   status other than DAG_OK fails the task with that code (its dependents
   are cancelled, as for dag_fail). Each event is fulfilled once: a second
   call, or an event dag_detach did not give, returns DAG_ERR_INVALID_HANDLE
   and changes nothing. Waits, region ends and dag_shutdown wait for a
   detached task as for a body still running; dag_get_stats counts the
   events not yet fulfilled. Any thread may fulfil, the spawner included:
   a body run inside its spawn (run_inline, final, or a void task its
   spawner ran at once because plenty was queued) that detaches ends its
   spawn all the same, its task unfinished until the fulfilment (a
   run_inline spawn that first waits for predecessors waits for the
   fulfilment too). */
typedef struct dag_event { uint64_t id; } dag_event;   /* id 0: no event */
dag_event dag_detach(void);
dag_result dag_fulfill(dag_event event, int status);   /* DAG_OK, a dag_result, or a code from DAG_USER_ERROR up */

void dag_fail(int code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

dag_region dag_region_begin(dag_region_kind kind, const dag_options *options);
dag_result dag_region_end(dag_region region);
dag_result dag_last_region_result(void);

dag_data dag_data_register(void *ptr, size_t count, size_t elem_size);
/* A 2-D tile as one handle: rows runs of cols elements, ld elements apart
   (In(p, rows, cols, ld)'s shape), e.g. a block of a column-major matrix
   is (its columns, its rows, the matrix's ld). */
dag_data dag_data_register_tile(void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size);
dag_result dag_data_unregister(dag_data data);   /* waits for tasks touching it */
/* dag_data_unregister for scratch: what devices hold of it is dropped, not
   brought home (its host bytes are left as they are at the call: what was
   last brought home, by a region's end for an ordinary span; StarPU's
   starpu_data_unregister_no_coherency). */
dag_result dag_data_discard(dag_data data);
void *dag_data_pointer(dag_data data);
/* Whether a data handle is of an earlier set-up cycle, whose dag_shutdown took its span with it (every
   generation a cycle gives is above every earlier cycle's, and none is 0: see dag__data_register_span) */
static inline bool dag__data_earlier_setup(dag_data h) {
    return (h.id >> 32) && DAG__CAST(uint32_t, h.id >> 32) < __atomic_load_n(&dag__data_gen_floor, __ATOMIC_RELAXED);
}

/* Many nodes (-DDAG_BACKEND_MPI, run under mpirun; see dag_backends/dag_mpi.h):
   every rank runs the same program. A span registered with _on(rank, ...)
   lives on that rank (the others may pass NULL: dag.h keeps their copies);
   a task runs where its first written such span lives, or on
   dag_scope(.rank = DAG_RANK(r)). Without MPI there is one rank, 0. */
int dag_rank(void);
int dag_num_ranks(void);
dag_rank_stats dag_get_rank_stats(int rank);   /* any rank's; zeros without MPI */
dag_data dag_data_register_on(int rank, void *ptr, size_t count, size_t elem_size);
dag_data dag_data_register_tile_on(int rank, void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size);

dag_scope dag_scope_union(dag_scope a, dag_scope b);
/* The scope a spawn here would get when it names none (from DAG_WITH_OPTIONS
   and the task being run); empty: any worker. Libraries place their tasks
   with it (dag_array.h spreads tiles over the devices it names). */
dag_scope dag_scope_in_force(void);

void dag_trace_enable(int on);   /* the trace holds the tasks spawned while it is on */
void dag_trace_clear(void);
dag_result dag_trace_write_json(const char *path);
dag_result dag_trace_write_dot(const char *path);
/* A Gantt chart of the trace as SVG (open it in a browser): a row per
   worker and per device, a bar per task coloured by its name, its name
   and times in the bar's tooltip. */
dag_result dag_trace_write_svg(const char *path);

bool dag_backend_available(dag_backend backend);
int dag_device_count(dag_backend backend);        /* CPU: worker threads */
const char *dag_backend_status(dag_backend backend);   /* what it found, or why it is unavailable */

/* Device memory. Data lives in host memory; a task on a device works on a
   replica there. dag_synchronize waits for every task the caller spawned (like
   dag_wait_all, returning the first error), then for every device of the backend, and
   brings what they wrote back to host memory. */
typedef struct dag_memory_info {
    size_t used;                  /* bytes of replicas on the device */
    size_t pool;                  /* bytes of freed buffers kept for reuse */
    size_t free;                  /* bytes the limit still allows: total - used - pool */
    size_t total;                 /* dag_desc.device_memory_limit, or the device's memory */
    size_t max_buffer;            /* bytes one span may have there (0: up to total); a larger one
                                     fails to go there, or runs on the CPU where its scope allows */
    uint64_t bytes_to_device, bytes_to_host, evictions;
} dag_memory_info;
dag_result dag_memory_stats(dag_backend backend, int device, dag_memory_info *out);   /* device: 1-based */
dag_result dag_synchronize(dag_backend backend);
/* Whether a vendor library routine (dag_blas.h's: cuBLAS, cuSOLVER, rocBLAS, rocSOLVER, CLBlast) stands
   in for `kernel` (a DAG_KERNEL_OR_LIBRARY's name##__cl) on every device `scope` names, at least one:
   false where a device would run the kernel's own text, with no such device, or under
   dag_desc.no_library_kernels. Loads the libraries it asks about. */
bool dag_library_stands_in(const dag_kernel_source *kernel, const dag_scope *scope);
/* A registered span that stays on the device between regions (Dagger's
   @mutable GPU arrays): region ends leave it there; dag_data_pointer,
   dag_synchronize and dag_data_unregister bring it home. */
dag_data dag_data_register_resident(void *ptr, size_t count, size_t elem_size);
dag_data dag_data_register_resident_tile(void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size);
/* Owned by `rank` (dag_data_register_tile_on) and resident there; the
   other ranks' copies are ordinary. */
dag_data dag_data_register_resident_tile_on(int rank, void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size);

/* The kernel as OpenCL C, the bounds guard inserted (malloc'd; free it). */
char *dag_kernel_opencl_source(const dag_kernel_source *kernel);

/* What the trace recorded of each task: where it ran and, for tasks the
   cost model placed, why (the estimates it compared). */
typedef struct dag_trace_record {
    const char *name;
    dag_backend backend;          /* DAG_CPU or the device's backend */
    int processor;                /* worker (1-based) for the CPU (0: a thread of the program outside the
                                     pool), else the device (1-based) */
    double start_us, end_us;      /* on the host: a device task's span is its enqueueing */
    uint64_t bytes_moved;         /* to the processor before it ran */
    int status;
    char placement[256];          /* "cpu 120.0us | cl1 40.2us+3.1us copy+0.0us queue" or "" (whole entries:
                                     " | ..." where the rest would not fit) */
} dag_trace_record;
size_t dag_trace_records(dag_trace_record *out, size_t max);   /* returns how many there are */

dag_stats dag_get_stats(void);
const char *dag_result_string(int result);
void dag_log(dag_log_level level, int item, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* >>arg-constructors
   In, Out and InOut pick the access where they are written; code that picks
   it at run time (a library spawning on a user's behalf, as dag_array.h does)
   builds the same arguments with these. */
static inline dag_arg dag__arg(uint8_t kind, int mode, const void *p, size_t count, size_t elem, size_t cols,
                               size_t ld) {
    dag_arg a;
    a.kind = kind; a.mode = DAG__CAST(uint8_t, mode); a.tag = 0; a.elem = 0;
    a.size = elem > UINT32_MAX ? 0 : DAG__CAST(uint32_t, elem);   /* (0: refused at the spawn, with the reason) */
    a.ptr = p; a.count = count; a.cols = cols; a.ld = ld;
    a.task.ptr = DAG__NULL; a.task.gen = 0; a.data.id = 0;
    return a;
}
/* count elements of elem_size bytes from p, as In(p, count) */
static inline dag_arg dag_arg_span(dag_access access, const void *p, size_t count, size_t elem_size) {
    return dag__arg(DAG__ARG_SPAN, access, p, count, elem_size, 0, 0);
}
/* a tile: rows of cols elements each, ld elements apart, as In(p, rows, cols, ld) */
static inline dag_arg dag_arg_tile(dag_access access, const void *p, size_t rows, size_t cols, size_t ld,
                                   size_t elem_size) {
    dag_arg a = dag__arg(DAG__ARG_SPAN, access, p, rows, elem_size, cols, ld);
    a.tag = 2;   /* two dimensions, even when cols is 0 */
    return a;
}
/* registered data, as In(h) */
static inline dag_arg dag_arg_data(dag_access access, dag_data h) {
    dag_arg a = dag__arg(DAG__ARG_DATA, access, DAG__NULL, 0, 0, 0, 0);
    a.data = h;
    return a;
}
static inline dag_arg dag__arg_value(int tag, size_t size, const void *bytes) {
    dag_arg a = dag__arg(DAG__ARG_VALUE, 0, bytes, 0, size, 0, 0);
    a.tag = DAG__CAST(uint8_t, tag);
    return a;
}
/* C's Val: a value of up to 16 bytes is also copied into the argument itself (mode 1 says so), and the
   library reads that copy, so that an argument array built ahead of its spawn (dag_spawn_args, filled
   in a loop) outlives the compound literal that held the value, as C++'s Val does; the spawn front,
   in the literal's own statement, reads the literal, and the copy is a dead store the compiler drops.
   A larger value is read through the literal, which lives to the end of the block that made it. */
static inline dag_arg dag__arg_value_kept(int tag, size_t size, const void *bytes) {
    dag_arg a = dag__arg_value(tag, size, bytes);
    if (size <= sizeof(dag_task)) {
        memcpy(&a.task, bytes, size);
        a.mode = 1;
    }
    return a;
}
/* In/Out/InOut and Val note the C type of the elements or of the target
   (DAG__REF_TAG), which the spawn checks against the parameter */
static inline dag_arg dag__arg_elem(dag_arg a, int elem) {
    a.elem = DAG__CAST(uint8_t, elem);
    return a;
}
/* Ld: a value argument, the leading dimension (elements) of the task's span that starts where `h` or
   `p` does, as the processor running the task holds it (dag__spawn_desc resolves it) */
static inline dag_arg dag__arg_ld_data(dag_data h) {
    dag_arg a = dag__arg(DAG__ARG_LD, 0, DAG__NULL, 0, 0, 0, 0);
    a.data = h;
    return a;
}
static inline dag_arg dag__arg_ld_ptr(const void *p) {
    return dag__arg(DAG__ARG_LD, 0, p, 0, 0, 0, 0);
}
static inline dag_arg dag__arg_future(dag_task t) {
    dag_arg a = dag__arg(DAG__ARG_FUTURE, 0, DAG__NULL, 0, 0, 0, 0);
    a.task = t;
    return a;
}

/* >>spawn-site checks. What every spawn's arguments and options are checked with first (the library's
   dag__spawn_plain too), here so that a spawn site can see them: */
/* On every spawn with options: every field ORed, without a branch. */
#define DAG__SCOPE_BITS(e, field, ...) | s->field.set | DAG__CAST(unsigned, s->field.one | s->field.all)
static inline bool dag__scope_empty(const dag_scope *s) {
    return !(s->threads | DAG__CAST(unsigned, s->thread | s->rank | s->all_threads | s->any_processor)
             DAG__DEVICE_BACKENDS(DAG__SCOPE_BITS));
}
/* Options that say only run_inline (BOTS's and OpenMP's if() cut-off,
   written at every spawn of a recursion): 1; none set at all: 0 (a plain
   spawn); anything else: -1 (dag__spawn merges them). */
static inline int dag__options_run_inline_only(const dag_options *o) {
    if (o->name || o->priority || o->discard_results || o->keep_results || o->final || !dag__scope_empty(&o->scope))
        return -1;
    return o->run_inline != 0;
}
/* A Val that the spawn would take as it is: a number of the parameter's own
   type, a struct of its size, or a pointer to what the parameter points to
   (or to anything, for void * and char *). */
static inline bool dag__plain_value(const dag_arg *a, const dag__param *p) {
    if (a->kind != DAG__ARG_VALUE || a->tag != p->tag) return false;
    if (a->tag) return true;
    if (a->size != p->size || !a->elem != !p->pointee) return false;
    return !a->elem || p->pointee == DAG__ANY_POINTEE || DAG__CAST(uint32_t, a->elem) == p->pointee >> 24;
}
#define DAG__FRONT_ARGS 64   /* = the record's DAG__INLINE_ARGS */
dag_task dag__spawn_packed(const dag_task_desc *desc, const void *packed);       /* queued (or run now if it must) */
dag_task dag__spawn_packed_now(const dag_task_desc *desc, const void *packed);   /* asked to run inline */
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(__CUDACC__) && !defined(DAG_NO_SPAWN_FRONT)
/* No options but run_inline, and arguments that are all plain Vals of a
   record's size. (This and the front are always inline: a copy out of
   line, which a compiler may make of a function spawned from in many
   places, would check at run time and then again in dag_spawn_desc.) */
static inline __attribute__((always_inline)) bool dag__front_plain(const dag_task_desc *d, const dag_arg *args, int n,
                                                                   const dag_options *o) {
    if ((o && dag__options_run_inline_only(o) < 0) || n != d->num_params || d->args_size > DAG__FRONT_ARGS) return false;
#pragma GCC unroll 16
    for (int i = 0; i < n; i++)
        if (!dag__plain_value(&args[i], &d->params[i])) return false;
    return true;
}
/* Where the compiler sees that those checks hold whatever the values are
   (the task's description and the Vals' types are constants at the spawn
   site), the spawn packs its arguments here, in a few stores, and the
   argument array and the options are never built: the common spawn, and
   OpenMP's if(0), at about a call's cost. Anywhere else (another compiler,
   -O0, nvcc, arguments known only at run time) this is dag_spawn_desc. */
static inline __attribute__((always_inline)) dag_task dag__spawn_front(const dag_task_desc *d, const dag_arg *args, int n,
                                                                        const dag_options *o) {
    bool plain = dag__front_plain(d, args, n, o);   /* (a variable: a call in __builtin_constant_p counts as unknown) */
    if (__builtin_constant_p(plain) && plain) {
        /* as aligned as a record's argument bytes: the body may read them here (dag__run_here) */
        union { unsigned char bytes[DAG__FRONT_ARGS]; long double align; } __attribute__((aligned(16))) packed;
#pragma GCC unroll 16
        for (int i = 0; i < n; i++)
            __builtin_memcpy(packed.bytes + d->params[i].offset, args[i].ptr ? args[i].ptr : (const void *)&args[i].task,
                             d->params[i].size);
        const void *bytes = n ? packed.bytes : NULL;   /* (no bytes: none to read) */
        return o && o->run_inline ? dag__spawn_packed_now(d, bytes) : dag__spawn_packed(d, bytes);
    }
    return dag_spawn_desc(d, args, n, o);
}
#define DAG__SPAWN_FRONT dag__spawn_front
#else
#define DAG__SPAWN_FRONT dag_spawn_desc
#endif

#endif /* !__OPENCL_C_VERSION__ */

/* >>macros */
#define DAG__EXPAND(...) __VA_ARGS__
/* Whether a return type is void itself (1) and not void *, void const * or another type (0): its first
   token pasted onto DAG__VOID_ERASED_ leaves nothing of `void` alone (Gustedt's test for an empty
   argument, which holds for any tokens a type can have after it). */
#define DAG__VOID_ERASED_void
#define DAG__IS_VOID(t) DAG__IS_EMPTY(DAG__CAT(DAG__VOID_ERASED_, t))
#define DAG__ARG16(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, ...) _15
#define DAG__HAS_COMMA(...) DAG__ARG16(__VA_ARGS__, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, ~)
#define DAG__COMMA_IF_CALLED(...) ,
#define DAG__IS_EMPTY(...) \
    DAG__IS_EMPTY_(DAG__HAS_COMMA(__VA_ARGS__), DAG__HAS_COMMA(DAG__COMMA_IF_CALLED __VA_ARGS__), \
                   DAG__HAS_COMMA(__VA_ARGS__()), DAG__HAS_COMMA(DAG__COMMA_IF_CALLED __VA_ARGS__()))
#define DAG__IS_EMPTY_(a, b, c, d) DAG__HAS_COMMA(DAG__PASTE5(DAG__EMPTY_CASE_, a, b, c, d))
#define DAG__PASTE5(a, b, c, d, e) a##b##c##d##e
#define DAG__EMPTY_CASE_0001 ,
#define DAG__IF_0(a, b) b
#define DAG__IF_1(a, b) a
#define DAG__IF_VOID(t) DAG__CAT(DAG__IF_, DAG__IS_VOID(t))
#define DAG__PT(p) DAG__PT_ p
#define DAG__PT_(t, n) t
#define DAG__PN(p) DAG__PN_ p
#define DAG__PN_(t, n) n

#if defined(__GNUC__) || defined(__clang__)
#define DAG__UNUSED __attribute__((unused))
#else
#define DAG__UNUSED
#endif

/* C type tags, so Val and Fut convert like a C call: Val(2) into a double. */
#ifdef __cplusplus
#define DAG__BOOL bool
#else
#define DAG__BOOL _Bool
#endif
#define DAG__TYPE_TAGS(X) \
    X(DAG__BOOL, 1) X(char, 2) X(signed char, 3) X(unsigned char, 4) X(short, 5) \
    X(unsigned short, 6) X(int, 7) X(unsigned int, 8) X(long, 9) X(unsigned long, 10) \
    X(long long, 11) X(unsigned long long, 12) X(float, 13) X(double, 14) X(long double, 15)
/* A parameter's pointee code (dag__param): the tags of char, signed char and
   unsigned char are 2 to 4, and their pointers take any span */
#define DAG__POINTEE_OF_TAG(tag, bytes) ((tag) >= 2 && (tag) <= 4 ? DAG__ANY_POINTEE : DAG__POINTEE(tag, bytes))
#ifdef __cplusplus
/* C++ has no _Generic: tags come from templates, so Val, Ld and Fut convert into a parameter as in C,
   and spans and pointers are checked as in C */
} /* extern "C" */
#include <cstddef>
#include <type_traits>
template <typename T> struct dag__tag { enum { value = 0, size = 0 }; };
#define DAG__TAG_SPEC(T, n) template <> struct dag__tag<T> { enum { value = n, size = sizeof(T) }; };
DAG__TYPE_TAGS(DAG__TAG_SPEC)
/* A type's tag as C's _Generic gives it: qualifiers dropped, an enum is its underlying type. */
template <typename T, bool = std::is_enum<T>::value> struct dag__val_tag : dag__tag<typename std::remove_cv<T>::type> {};
template <typename T> struct dag__val_tag<T, true> : dag__tag<typename std::underlying_type<T>::type> {};
/* What a pointer points to (DAG__REF_TAG): 0 for no pointer */
template <typename T> struct dag__ref_tag { enum { value = 0 }; };
template <typename T> struct dag__ref_tag<T *> {
    typedef typename std::remove_cv<T>::type E;
    enum { value = std::is_void<E>::value           ? DAG__TAG_VOID
                   : dag__val_tag<E>::value != 0 ? static_cast<int>(dag__val_tag<E>::value)
                                                 : DAG__TAG_OTHER };
};
template <> struct dag__ref_tag<std::nullptr_t> { enum { value = DAG__TAG_VOID }; };
template <typename T> struct dag__pointee { static const uint32_t value = 0; };
template <typename T> struct dag__pointee<T *> {
    typedef typename std::remove_cv<T>::type E;
    static const uint32_t value = std::is_void<E>::value ? DAG__ANY_POINTEE
                                : dag__val_tag<E>::value != 0 ? DAG__POINTEE_OF_TAG(dag__val_tag<E>::value, dag__val_tag<E>::size)
                                : DAG__POINTEE(DAG__TAG_OTHER, 0);
};
/* A task's parameters and result, and a fetch's output, are moved as bytes: a type with a copy
   constructor or destructor of its own (std::string, std::vector) or a reference would be copied
   wrong, so each is checked where it is named. */
#define DAG__BYTES_ONLY "dag.h moves a task's parameters and result as bytes: each must be trivially copyable " \
    "(no reference, std::string, std::vector or other type with a copy constructor or destructor of its own; " \
    "pass a pointer and a count, or a span, instead)"
template <typename T> struct dag__bytes_tag {
    static_assert(std::is_trivially_copyable<T>::value && !std::is_reference<T>::value, DAG__BYTES_ONLY);
    enum { value = dag__val_tag<T>::value };
};
template <typename T> static inline T *dag__bytes_out(T *out) {
    static_assert(std::is_trivially_copyable<T>::value, DAG__BYTES_ONLY);
    return out;
}
#define DAG__FETCH_OUT(out) dag__bytes_out(out)
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
/* An exception that leaves a body fails its task with the exception's words: unwinding through the
   runtime's frames (C, which knows nothing of it) would leave a worker's state half changed. */
#include <exception>
#define DAG__GUARDED(...) \
    try { __VA_ARGS__ } \
    catch (const std::exception &dag__e) { dag_fail(DAG_ERR_TASK_FAILED, "an exception left the task: %s", dag__e.what()); } \
    catch (...) { dag_fail(DAG_ERR_TASK_FAILED, "an exception left the task"); }
#else
#define DAG__GUARDED(...) __VA_ARGS__
#endif
extern "C" {
#define DAG__TAG_OF(x) 0
#define DAG__TAG_OF_TYPE(T) dag__bytes_tag<T>::value
#define DAG__POINTEE_OF_TYPE(T) dag__pointee<T>::value
#define DAG__REF_TAG(x) dag__ref_tag<typename std::decay<decltype(x)>::type>::value
#else
#define DAG__FETCH_OUT(out) (out)
#define DAG__GUARDED(...) __VA_ARGS__
#define DAG__TAG_ASSOC(T, n) T: n,
#define DAG__TAG_OF(x) _Generic((x), DAG__TYPE_TAGS(DAG__TAG_ASSOC) default: 0)
#define DAG__TAG_OF_TYPE(T) DAG__TAG_OF(*(T *)0)
/* Whether x is a pointer: _Generic cannot say it of every pointer type, gcc and clang can. Elsewhere
   a struct counts as a pointer too, and only sizes tell them apart. */
#if defined(__GNUC__) || defined(__clang__)
#define DAG__IS_POINTER(x) (__builtin_classify_type(x) == 5)   /* 5: pointer_type_class */
#else
#define DAG__IS_POINTER(x) 1
#endif
#define DAG__QUALIFIED(T, v) T *: v, const T *: v, volatile T *: v, const volatile T *: v,
#define DAG__REF_ASSOC(T, n) DAG__QUALIFIED(T, n)
/* What pointer x points to: a C number type's tag, DAG__TAG_VOID, DAG__TAG_OTHER, or 0: x is no pointer */
#define DAG__REF_TAG(x) \
    _Generic((x), DAG__TYPE_TAGS(DAG__REF_ASSOC) DAG__QUALIFIED(void, DAG__TAG_VOID) \
             default: DAG__IS_POINTER(x) ? DAG__TAG_OTHER : 0)
#define DAG__POINTEE_ASSOC(T, n) DAG__QUALIFIED(T, DAG__POINTEE_OF_TAG(n, sizeof(T)))
#define DAG__POINTEE_OF_TYPE(T) \
    _Generic(*(T *)0, DAG__TYPE_TAGS(DAG__POINTEE_ASSOC) DAG__QUALIFIED(void, DAG__ANY_POINTEE) \
             default: DAG__IS_POINTER(*(T *)0) ? DAG__POINTEE(DAG__TAG_OTHER, 0) : 0)
#endif

#define DAG__STR(...) DAG__STR_(__VA_ARGS__)
#define DAG__STR_(...) #__VA_ARGS__
/* p: (type, name) */
#define DAG__PARAM(s, field, p) \
    { DAG__CAST(uint32_t, offsetof(s, field)), DAG__CAST(uint32_t, sizeof(DAG__PT(p))), \
      DAG__CAST(uint32_t, DAG__TAG_OF_TYPE(DAG__PT(p))), DAG__CAST(uint32_t, DAG__POINTEE_OF_TYPE(DAG__PT(p))), \
      DAG__STR(DAG__PT(p) DAG__PN(p)) }
#define DAG__RUN_VOID(ret, name, call) (void)dag__r; name(DAG__EXPAND call(dag__p));
#define DAG__RUN_VALUE(ret, name, call) *DAG__CAST(ret *, dag__r) = name(DAG__EXPAND call(dag__p));
#define DAG__TASK_DEF(ret, name, n, proto, fields, call, params) \
    static ret name(DAG__EXPAND proto); \
    typedef struct name##__args { DAG__EXPAND fields } name##__args; \
    enum { name##__nparams = n }; \
    static void name##__run(void *dag__a, void *dag__r) { \
        name##__args *dag__p = DAG__CAST(name##__args *, dag__a); \
        (void)dag__p; \
        DAG__GUARDED(DAG__IF_VOID(ret)(DAG__RUN_VOID, DAG__RUN_VALUE)(ret, name, call)) \
    } \
    static const dag__param name##__params[] = DAG__EXPAND params; \
    DAG__UNUSED static const dag_task_desc name##__desc = { \
        #name, name##__run, n, name##__params, sizeof(name##__args), \
        DAG__IF_VOID(ret)(0, sizeof(ret)), DAG__IF_VOID(ret)(0, DAG__TAG_OF_TYPE(ret)), DAG__NULL, \
        DAG__IF_VOID(ret)(0u, DAG__CAST(uint32_t, DAG__POINTEE_OF_TYPE(ret))) }; \
    static ret name(DAG__EXPAND proto)

#ifdef __cplusplus
#define DAG__CHECK_COUNT(name, n) \
    ([] { static_assert((n) == name##__nparams, "dag_spawn: wrong number of arguments for this task"); }())
#else
#define DAG__CHECK_COUNT(name, n) \
    ((void)sizeof(struct { _Static_assert((n) == name##__nparams, \
        "dag_spawn: wrong number of arguments for this task"); int dag__x; }))
#endif

/* >>generated tables (argument counting, per-arity expansions) */
#define DAG__NARG(...) DAG__NARG_(__VA_ARGS__, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define DAG__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, n, ...) n
#define DAG__PROTO_0() void
#define DAG__FIELDS_0() char dag__none;
#define DAG__CALL_0(a) 
#define DAG__PARAMS_0(s) {{0, 0, 0, 0, 0}}
#define DAG__PROTO_1(p0) DAG__PT(p0) DAG__PN(p0)
#define DAG__FIELDS_1(p0) DAG__PT(p0) a0;
#define DAG__CALL_1(a) a->a0
#define DAG__PARAMS_1(s, p0) {DAG__PARAM(s, a0, p0)}
#define DAG__PROTO_2(p0, p1) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1)
#define DAG__FIELDS_2(p0, p1) DAG__PT(p0) a0; DAG__PT(p1) a1;
#define DAG__CALL_2(a) a->a0, a->a1
#define DAG__PARAMS_2(s, p0, p1) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1)}
#define DAG__PROTO_3(p0, p1, p2) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2)
#define DAG__FIELDS_3(p0, p1, p2) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2;
#define DAG__CALL_3(a) a->a0, a->a1, a->a2
#define DAG__PARAMS_3(s, p0, p1, p2) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2)}
#define DAG__PROTO_4(p0, p1, p2, p3) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3)
#define DAG__FIELDS_4(p0, p1, p2, p3) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3;
#define DAG__CALL_4(a) a->a0, a->a1, a->a2, a->a3
#define DAG__PARAMS_4(s, p0, p1, p2, p3) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3)}
#define DAG__PROTO_5(p0, p1, p2, p3, p4) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4)
#define DAG__FIELDS_5(p0, p1, p2, p3, p4) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4;
#define DAG__CALL_5(a) a->a0, a->a1, a->a2, a->a3, a->a4
#define DAG__PARAMS_5(s, p0, p1, p2, p3, p4) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4)}
#define DAG__PROTO_6(p0, p1, p2, p3, p4, p5) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5)
#define DAG__FIELDS_6(p0, p1, p2, p3, p4, p5) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5;
#define DAG__CALL_6(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5
#define DAG__PARAMS_6(s, p0, p1, p2, p3, p4, p5) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5)}
#define DAG__PROTO_7(p0, p1, p2, p3, p4, p5, p6) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6)
#define DAG__FIELDS_7(p0, p1, p2, p3, p4, p5, p6) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6;
#define DAG__CALL_7(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6
#define DAG__PARAMS_7(s, p0, p1, p2, p3, p4, p5, p6) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6)}
#define DAG__PROTO_8(p0, p1, p2, p3, p4, p5, p6, p7) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7)
#define DAG__FIELDS_8(p0, p1, p2, p3, p4, p5, p6, p7) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7;
#define DAG__CALL_8(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7
#define DAG__PARAMS_8(s, p0, p1, p2, p3, p4, p5, p6, p7) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7)}
#define DAG__PROTO_9(p0, p1, p2, p3, p4, p5, p6, p7, p8) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8)
#define DAG__FIELDS_9(p0, p1, p2, p3, p4, p5, p6, p7, p8) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8;
#define DAG__CALL_9(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8
#define DAG__PARAMS_9(s, p0, p1, p2, p3, p4, p5, p6, p7, p8) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8)}
#define DAG__PROTO_10(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8), DAG__PT(p9) DAG__PN(p9)
#define DAG__FIELDS_10(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8; DAG__PT(p9) a9;
#define DAG__CALL_10(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8, a->a9
#define DAG__PARAMS_10(s, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8), DAG__PARAM(s, a9, p9)}
#define DAG__PROTO_11(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8), DAG__PT(p9) DAG__PN(p9), DAG__PT(p10) DAG__PN(p10)
#define DAG__FIELDS_11(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8; DAG__PT(p9) a9; DAG__PT(p10) a10;
#define DAG__CALL_11(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8, a->a9, a->a10
#define DAG__PARAMS_11(s, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8), DAG__PARAM(s, a9, p9), DAG__PARAM(s, a10, p10)}
#define DAG__PROTO_12(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8), DAG__PT(p9) DAG__PN(p9), DAG__PT(p10) DAG__PN(p10), DAG__PT(p11) DAG__PN(p11)
#define DAG__FIELDS_12(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8; DAG__PT(p9) a9; DAG__PT(p10) a10; DAG__PT(p11) a11;
#define DAG__CALL_12(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8, a->a9, a->a10, a->a11
#define DAG__PARAMS_12(s, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8), DAG__PARAM(s, a9, p9), DAG__PARAM(s, a10, p10), DAG__PARAM(s, a11, p11)}
#define DAG__PROTO_13(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8), DAG__PT(p9) DAG__PN(p9), DAG__PT(p10) DAG__PN(p10), DAG__PT(p11) DAG__PN(p11), DAG__PT(p12) DAG__PN(p12)
#define DAG__FIELDS_13(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8; DAG__PT(p9) a9; DAG__PT(p10) a10; DAG__PT(p11) a11; DAG__PT(p12) a12;
#define DAG__CALL_13(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8, a->a9, a->a10, a->a11, a->a12
#define DAG__PARAMS_13(s, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8), DAG__PARAM(s, a9, p9), DAG__PARAM(s, a10, p10), DAG__PARAM(s, a11, p11), DAG__PARAM(s, a12, p12)}
#define DAG__PROTO_14(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8), DAG__PT(p9) DAG__PN(p9), DAG__PT(p10) DAG__PN(p10), DAG__PT(p11) DAG__PN(p11), DAG__PT(p12) DAG__PN(p12), DAG__PT(p13) DAG__PN(p13)
#define DAG__FIELDS_14(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8; DAG__PT(p9) a9; DAG__PT(p10) a10; DAG__PT(p11) a11; DAG__PT(p12) a12; DAG__PT(p13) a13;
#define DAG__CALL_14(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8, a->a9, a->a10, a->a11, a->a12, a->a13
#define DAG__PARAMS_14(s, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8), DAG__PARAM(s, a9, p9), DAG__PARAM(s, a10, p10), DAG__PARAM(s, a11, p11), DAG__PARAM(s, a12, p12), DAG__PARAM(s, a13, p13)}
#define DAG__PROTO_15(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8), DAG__PT(p9) DAG__PN(p9), DAG__PT(p10) DAG__PN(p10), DAG__PT(p11) DAG__PN(p11), DAG__PT(p12) DAG__PN(p12), DAG__PT(p13) DAG__PN(p13), DAG__PT(p14) DAG__PN(p14)
#define DAG__FIELDS_15(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8; DAG__PT(p9) a9; DAG__PT(p10) a10; DAG__PT(p11) a11; DAG__PT(p12) a12; DAG__PT(p13) a13; DAG__PT(p14) a14;
#define DAG__CALL_15(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8, a->a9, a->a10, a->a11, a->a12, a->a13, a->a14
#define DAG__PARAMS_15(s, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8), DAG__PARAM(s, a9, p9), DAG__PARAM(s, a10, p10), DAG__PARAM(s, a11, p11), DAG__PARAM(s, a12, p12), DAG__PARAM(s, a13, p13), DAG__PARAM(s, a14, p14)}
#define DAG__PROTO_16(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15) DAG__PT(p0) DAG__PN(p0), DAG__PT(p1) DAG__PN(p1), DAG__PT(p2) DAG__PN(p2), DAG__PT(p3) DAG__PN(p3), DAG__PT(p4) DAG__PN(p4), DAG__PT(p5) DAG__PN(p5), DAG__PT(p6) DAG__PN(p6), DAG__PT(p7) DAG__PN(p7), DAG__PT(p8) DAG__PN(p8), DAG__PT(p9) DAG__PN(p9), DAG__PT(p10) DAG__PN(p10), DAG__PT(p11) DAG__PN(p11), DAG__PT(p12) DAG__PN(p12), DAG__PT(p13) DAG__PN(p13), DAG__PT(p14) DAG__PN(p14), DAG__PT(p15) DAG__PN(p15)
#define DAG__FIELDS_16(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15) DAG__PT(p0) a0; DAG__PT(p1) a1; DAG__PT(p2) a2; DAG__PT(p3) a3; DAG__PT(p4) a4; DAG__PT(p5) a5; DAG__PT(p6) a6; DAG__PT(p7) a7; DAG__PT(p8) a8; DAG__PT(p9) a9; DAG__PT(p10) a10; DAG__PT(p11) a11; DAG__PT(p12) a12; DAG__PT(p13) a13; DAG__PT(p14) a14; DAG__PT(p15) a15;
#define DAG__CALL_16(a) a->a0, a->a1, a->a2, a->a3, a->a4, a->a5, a->a6, a->a7, a->a8, a->a9, a->a10, a->a11, a->a12, a->a13, a->a14, a->a15
#define DAG__PARAMS_16(s, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15) {DAG__PARAM(s, a0, p0), DAG__PARAM(s, a1, p1), DAG__PARAM(s, a2, p2), DAG__PARAM(s, a3, p3), DAG__PARAM(s, a4, p4), DAG__PARAM(s, a5, p5), DAG__PARAM(s, a6, p6), DAG__PARAM(s, a7, p7), DAG__PARAM(s, a8, p8), DAG__PARAM(s, a9, p9), DAG__PARAM(s, a10, p10), DAG__PARAM(s, a11, p11), DAG__PARAM(s, a12, p12), DAG__PARAM(s, a13, p13), DAG__PARAM(s, a14, p14), DAG__PARAM(s, a15, p15)}
#define DAG__TASK_2(ret, name) DAG__TASK_DEF(ret, name, 0, (DAG__PROTO_0()), (DAG__FIELDS_0()), (DAG__CALL_0), (DAG__PARAMS_0(name##__args)))
#define DAG__TASK_3(ret, name, p0) DAG__TASK_DEF(ret, name, 1, (DAG__PROTO_1(p0)), (DAG__FIELDS_1(p0)), (DAG__CALL_1), (DAG__PARAMS_1(name##__args, p0)))
#define DAG__TASK_4(ret, name, p0, p1) DAG__TASK_DEF(ret, name, 2, (DAG__PROTO_2(p0, p1)), (DAG__FIELDS_2(p0, p1)), (DAG__CALL_2), (DAG__PARAMS_2(name##__args, p0, p1)))
#define DAG__TASK_5(ret, name, p0, p1, p2) DAG__TASK_DEF(ret, name, 3, (DAG__PROTO_3(p0, p1, p2)), (DAG__FIELDS_3(p0, p1, p2)), (DAG__CALL_3), (DAG__PARAMS_3(name##__args, p0, p1, p2)))
#define DAG__TASK_6(ret, name, p0, p1, p2, p3) DAG__TASK_DEF(ret, name, 4, (DAG__PROTO_4(p0, p1, p2, p3)), (DAG__FIELDS_4(p0, p1, p2, p3)), (DAG__CALL_4), (DAG__PARAMS_4(name##__args, p0, p1, p2, p3)))
#define DAG__TASK_7(ret, name, p0, p1, p2, p3, p4) DAG__TASK_DEF(ret, name, 5, (DAG__PROTO_5(p0, p1, p2, p3, p4)), (DAG__FIELDS_5(p0, p1, p2, p3, p4)), (DAG__CALL_5), (DAG__PARAMS_5(name##__args, p0, p1, p2, p3, p4)))
#define DAG__TASK_8(ret, name, p0, p1, p2, p3, p4, p5) DAG__TASK_DEF(ret, name, 6, (DAG__PROTO_6(p0, p1, p2, p3, p4, p5)), (DAG__FIELDS_6(p0, p1, p2, p3, p4, p5)), (DAG__CALL_6), (DAG__PARAMS_6(name##__args, p0, p1, p2, p3, p4, p5)))
#define DAG__TASK_9(ret, name, p0, p1, p2, p3, p4, p5, p6) DAG__TASK_DEF(ret, name, 7, (DAG__PROTO_7(p0, p1, p2, p3, p4, p5, p6)), (DAG__FIELDS_7(p0, p1, p2, p3, p4, p5, p6)), (DAG__CALL_7), (DAG__PARAMS_7(name##__args, p0, p1, p2, p3, p4, p5, p6)))
#define DAG__TASK_10(ret, name, p0, p1, p2, p3, p4, p5, p6, p7) DAG__TASK_DEF(ret, name, 8, (DAG__PROTO_8(p0, p1, p2, p3, p4, p5, p6, p7)), (DAG__FIELDS_8(p0, p1, p2, p3, p4, p5, p6, p7)), (DAG__CALL_8), (DAG__PARAMS_8(name##__args, p0, p1, p2, p3, p4, p5, p6, p7)))
#define DAG__TASK_11(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8) DAG__TASK_DEF(ret, name, 9, (DAG__PROTO_9(p0, p1, p2, p3, p4, p5, p6, p7, p8)), (DAG__FIELDS_9(p0, p1, p2, p3, p4, p5, p6, p7, p8)), (DAG__CALL_9), (DAG__PARAMS_9(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8)))
#define DAG__TASK_12(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9) DAG__TASK_DEF(ret, name, 10, (DAG__PROTO_10(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9)), (DAG__FIELDS_10(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9)), (DAG__CALL_10), (DAG__PARAMS_10(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9)))
#define DAG__TASK_13(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10) DAG__TASK_DEF(ret, name, 11, (DAG__PROTO_11(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10)), (DAG__FIELDS_11(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10)), (DAG__CALL_11), (DAG__PARAMS_11(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10)))
#define DAG__TASK_14(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11) DAG__TASK_DEF(ret, name, 12, (DAG__PROTO_12(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11)), (DAG__FIELDS_12(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11)), (DAG__CALL_12), (DAG__PARAMS_12(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11)))
#define DAG__TASK_15(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12) DAG__TASK_DEF(ret, name, 13, (DAG__PROTO_13(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12)), (DAG__FIELDS_13(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12)), (DAG__CALL_13), (DAG__PARAMS_13(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12)))
#define DAG__TASK_16(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13) DAG__TASK_DEF(ret, name, 14, (DAG__PROTO_14(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13)), (DAG__FIELDS_14(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13)), (DAG__CALL_14), (DAG__PARAMS_14(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13)))
#define DAG__TASK_17(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14) DAG__TASK_DEF(ret, name, 15, (DAG__PROTO_15(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14)), (DAG__FIELDS_15(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14)), (DAG__CALL_15), (DAG__PARAMS_15(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14)))
#define DAG__TASK_18(ret, name, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15) DAG__TASK_DEF(ret, name, 16, (DAG__PROTO_16(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15)), (DAG__FIELDS_16(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15)), (DAG__CALL_16), (DAG__PARAMS_16(name##__args, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15)))
#define DAG__SPAWN_1(opts, name) (DAG__CHECK_COUNT(name, 0), DAG__SPAWN_FRONT(&name##__desc, DAG__NULL, 0, (opts)))
#define DAG__SPAWN_2(opts, name, ...) (DAG__CHECK_COUNT(name, 1), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 1, (opts)))
#define DAG__SPAWN_3(opts, name, ...) (DAG__CHECK_COUNT(name, 2), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 2, (opts)))
#define DAG__SPAWN_4(opts, name, ...) (DAG__CHECK_COUNT(name, 3), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 3, (opts)))
#define DAG__SPAWN_5(opts, name, ...) (DAG__CHECK_COUNT(name, 4), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 4, (opts)))
#define DAG__SPAWN_6(opts, name, ...) (DAG__CHECK_COUNT(name, 5), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 5, (opts)))
#define DAG__SPAWN_7(opts, name, ...) (DAG__CHECK_COUNT(name, 6), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 6, (opts)))
#define DAG__SPAWN_8(opts, name, ...) (DAG__CHECK_COUNT(name, 7), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 7, (opts)))
#define DAG__SPAWN_9(opts, name, ...) (DAG__CHECK_COUNT(name, 8), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 8, (opts)))
#define DAG__SPAWN_10(opts, name, ...) (DAG__CHECK_COUNT(name, 9), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 9, (opts)))
#define DAG__SPAWN_11(opts, name, ...) (DAG__CHECK_COUNT(name, 10), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 10, (opts)))
#define DAG__SPAWN_12(opts, name, ...) (DAG__CHECK_COUNT(name, 11), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 11, (opts)))
#define DAG__SPAWN_13(opts, name, ...) (DAG__CHECK_COUNT(name, 12), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 12, (opts)))
#define DAG__SPAWN_14(opts, name, ...) (DAG__CHECK_COUNT(name, 13), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 13, (opts)))
#define DAG__SPAWN_15(opts, name, ...) (DAG__CHECK_COUNT(name, 14), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 14, (opts)))
#define DAG__SPAWN_16(opts, name, ...) (DAG__CHECK_COUNT(name, 15), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 15, (opts)))
#define DAG__SPAWN_17(opts, name, ...) (DAG__CHECK_COUNT(name, 16), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), 16, (opts)))
#define DAG__MAP(m, ...) DAG__CAT(DAG__MAP_, DAG__NARG(__VA_ARGS__))(m, __VA_ARGS__)
#define DAG__MAP_1(m, p0) m(p0)
#define DAG__MAP_2(m, p0, p1) m(p0), m(p1)
#define DAG__MAP_3(m, p0, p1, p2) m(p0), m(p1), m(p2)
#define DAG__MAP_4(m, p0, p1, p2, p3) m(p0), m(p1), m(p2), m(p3)
#define DAG__MAP_5(m, p0, p1, p2, p3, p4) m(p0), m(p1), m(p2), m(p3), m(p4)
#define DAG__MAP_6(m, p0, p1, p2, p3, p4, p5) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5)
#define DAG__MAP_7(m, p0, p1, p2, p3, p4, p5, p6) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6)
#define DAG__MAP_8(m, p0, p1, p2, p3, p4, p5, p6, p7) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7)
#define DAG__MAP_9(m, p0, p1, p2, p3, p4, p5, p6, p7, p8) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8)
#define DAG__MAP_10(m, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8), m(p9)
#define DAG__MAP_11(m, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8), m(p9), m(p10)
#define DAG__MAP_12(m, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8), m(p9), m(p10), m(p11)
#define DAG__MAP_13(m, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8), m(p9), m(p10), m(p11), m(p12)
#define DAG__MAP_14(m, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8), m(p9), m(p10), m(p11), m(p12), m(p13)
#define DAG__MAP_15(m, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8), m(p9), m(p10), m(p11), m(p12), m(p13), m(p14)
#define DAG__MAP_16(m, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15) m(p0), m(p1), m(p2), m(p3), m(p4), m(p5), m(p6), m(p7), m(p8), m(p9), m(p10), m(p11), m(p12), m(p13), m(p14), m(p15)
#define DAG__MAPI(m, c, ...) DAG__CAT(DAG__MAPI_, DAG__NARG(__VA_ARGS__))(m, c, __VA_ARGS__)
#define DAG__MAPI_1(m, c, p0) m(c, 0, p0)
#define DAG__MAPI_2(m, c, p0, p1) m(c, 0, p0), m(c, 1, p1)
#define DAG__MAPI_3(m, c, p0, p1, p2) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2)
#define DAG__MAPI_4(m, c, p0, p1, p2, p3) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3)
#define DAG__MAPI_5(m, c, p0, p1, p2, p3, p4) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4)
#define DAG__MAPI_6(m, c, p0, p1, p2, p3, p4, p5) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5)
#define DAG__MAPI_7(m, c, p0, p1, p2, p3, p4, p5, p6) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6)
#define DAG__MAPI_8(m, c, p0, p1, p2, p3, p4, p5, p6, p7) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7)
#define DAG__MAPI_9(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8)
#define DAG__MAPI_10(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8), m(c, 9, p9)
#define DAG__MAPI_11(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8), m(c, 9, p9), m(c, 10, p10)
#define DAG__MAPI_12(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8), m(c, 9, p9), m(c, 10, p10), m(c, 11, p11)
#define DAG__MAPI_13(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8), m(c, 9, p9), m(c, 10, p10), m(c, 11, p11), m(c, 12, p12)
#define DAG__MAPI_14(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8), m(c, 9, p9), m(c, 10, p10), m(c, 11, p11), m(c, 12, p12), m(c, 13, p13)
#define DAG__MAPI_15(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8), m(c, 9, p9), m(c, 10, p10), m(c, 11, p11), m(c, 12, p12), m(c, 13, p13), m(c, 14, p14)
#define DAG__MAPI_16(m, c, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15) m(c, 0, p0), m(c, 1, p1), m(c, 2, p2), m(c, 3, p3), m(c, 4, p4), m(c, 5, p5), m(c, 6, p6), m(c, 7, p7), m(c, 8, p8), m(c, 9, p9), m(c, 10, p10), m(c, 11, p11), m(c, 12, p12), m(c, 13, p13), m(c, 14, p14), m(c, 15, p15)

/* DAG_TASK(ret, name, (type, param)...) { body } */
#define DAG_TASK(...) DAG__CAT(DAG__TASK_, DAG__NARG(__VA_ARGS__))(__VA_ARGS__)
#define dag_spawn(...) DAG__CAT(DAG__SPAWN_, DAG__NARG(__VA_ARGS__))(DAG__NULL, __VA_ARGS__)
#define dag_spawn_with(options, ...) DAG__CAT(DAG__SPAWN_, DAG__NARG(__VA_ARGS__))((options), __VA_ARGS__)
#define dag_spawn_args(name, args, num_args) dag_spawn_desc(&name##__desc, (args), (num_args), NULL)
/* the output's size must be the result's, and a float result does not go into an integer (or the
   other way): dag_fetch_bytes checks the size only */
#define dag_fetch(t, out) dag__fetch_here((t), DAG__FETCH_OUT(out), sizeof(*(out)), DAG__REF_TAG(out))

#define DAG_IN(...) DAG__CAT(DAG__SPAN_, DAG__NARG(__VA_ARGS__))(DAG_ACCESS_IN, __VA_ARGS__)
#define DAG_OUT(...) DAG__CAT(DAG__SPAN_, DAG__NARG(__VA_ARGS__))(DAG_ACCESS_OUT, __VA_ARGS__)
#define DAG_INOUT(...) DAG__CAT(DAG__SPAN_, DAG__NARG(__VA_ARGS__))(DAG_ACCESS_INOUT, __VA_ARGS__)
#define DAG__NEEDS_A_COUNT "In, Out and InOut of a pointer take a count: In(p, n), or In(p, rows, cols, ld) for a tile " \
    "(alone they take a dag_data handle)"
#define DAG__NO_ARRAY_VALUES "Val of an array or a string: a task takes no array by value; pass a pointer " \
    "(Val(&a[0]), Val((const char *)s)) or the array itself as In(a, n)"
#ifdef __cplusplus
#define DAG__SPAN_1(mode, h) dag_arg_data(mode, h)
#else
/* A compile-time check inside an expression: C11 lets a struct hold a _Static_assert. */
#define DAG__STATIC_CHECK(cond, msg) ((void)sizeof(struct { _Static_assert(cond, msg); int dag__unused; }))
#define DAG__SPAN_1(mode, h) \
    (DAG__STATIC_CHECK(_Generic((h), dag_data: 1, default: 0), DAG__NEEDS_A_COUNT), \
     dag_arg_data(mode, _Generic((h), dag_data: (h), default: (dag_data){0})))
#endif
#define DAG__SPAN_2(mode, p, n) dag__arg_elem(dag_arg_span(mode, (p), DAG__CAST(size_t, n), sizeof(*(p))), DAG__REF_TAG(p))
#define DAG__SPAN_3(mode, a, b, c) dag__In_Out_InOut_take_1_2_or_4_arguments
#define DAG__SPAN_4(mode, p, rows, cols, ld) \
    dag__arg_elem(dag_arg_tile(mode, (p), DAG__CAST(size_t, rows), DAG__CAST(size_t, cols), DAG__CAST(size_t, ld), \
                               sizeof(*(p))), DAG__REF_TAG(p))
#define DAG_FUT(t) dag__arg_future(t)
#ifdef __cplusplus
} /* extern "C" */
static inline dag_arg dag__arg_ld(dag_data h) { return dag__arg_ld_data(h); }
static inline dag_arg dag__arg_ld(const void *p) { return dag__arg_ld_ptr(p); }
#define DAG_LD(x) dag__arg_ld(x)
/* The C++ form of the set-up: dag_setup({.num_threads = 2}) in C++20, or
   dag_setup(desc) with a dag_desc variable (C's &(dag_desc){...} is not C++) */
static inline dag_result dag_setup(const dag_desc &desc) { return dag_setup(&desc); }
static inline const dag_options *dag__options_of(const dag_options &o) { return &o; }   /* DAG_OPTIONS */
template <typename T> static inline dag_arg dag_arg_data(dag_access, T *) {
    static_assert(!std::is_same<T, T>::value, DAG__NEEDS_A_COUNT);
    return dag_arg();
}
template <typename T> static inline dag_arg dag_arg_data(dag_access, const T &) {   /* In(v) of a std::vector... */
    static_assert(!std::is_same<T, T>::value, "In, Out and InOut of a container take its elements and their count: "
                  "In(v.data(), v.size())");
    return dag_arg();
}
template <typename T> static inline dag_arg dag__val_cpp(const T &x) {
    static_assert(sizeof(dag_task) == 16, "a small value fits in dag_arg's task field");
    if (sizeof(T) <= sizeof(dag_task)) {
        /* a copy in the argument itself: an argument array built ahead of
           its spawn (dag_spawn_args) outlives this statement's temporaries */
        dag_arg a = dag__arg_value(dag__val_tag<T>::value, sizeof(T), nullptr);
        std::memcpy(&a.task, &x, sizeof(T));
        return dag__arg_elem(a, dag__ref_tag<T>::value);
    }
    /* a larger value: the temporary lives to the end of the spawn's statement */
    return dag__arg_elem(dag__arg_value(dag__val_tag<T>::value, sizeof(T), &x), dag__ref_tag<T>::value);
}
/* The pointer a C++ call would pass: converted to the parameter's type where it converts */
template <typename P, typename T> static inline P dag__pointer_for(T *p, std::true_type) { return static_cast<P>(p); }
template <typename P, typename T> static inline T *dag__pointer_for(T *p, std::false_type) { return p; }
/* Val of a pointer to a class keeps its type until the spawn knows the parameter's
   (dag__param_arg), so that it is converted as a C++ call converts it: Val(&derived) for a Base *
   parameter points at the Base part (with multiple inheritance, another address), and a pointer to
   a class the parameter's is no base of stops the build. Anywhere else (an argument array, a ?:
   between Vals) it is the dag_arg of its bytes. Every other Val is a dag_arg at once: a ?: of two
   Vals of different types stays a dag_arg, and numbers are converted at the spawn, as in C (0 and
   NULL, an integer in C++, are a null pointer there). */
template <typename T> struct dag__class_pointer {
    T p;
    operator dag_arg() const { return dag__val_cpp(p); }
};
template <typename T> struct dag__val_kind {   /* what Val(x) gives for an x of type T */
    typedef dag_arg type;
    static dag_arg make(const T &x) { return dag__val_cpp(x); }
};
template <typename T> struct dag__val_kind<T *> {
    typedef std::is_class<typename std::remove_cv<T>::type> to_class;
    typedef typename std::conditional<to_class::value, dag__class_pointer<T *>, dag_arg>::type type;
    static dag__class_pointer<T *> of(T *x, std::true_type) { return dag__class_pointer<T *>{x}; }
    static dag_arg of(T *x, std::false_type) { return dag__val_cpp(x); }
    static type make(T *x) { return of(x, to_class()); }
};
template <typename T> static inline typename dag__val_kind<T>::type dag__val_of(const T &x) {
    static_assert(!std::is_array<T>::value, DAG__NO_ARRAY_VALUES);
    static_assert(std::is_trivially_copyable<T>::value, DAG__BYTES_ONLY);
    return dag__val_kind<T>::make(x);
}
/* a function is passed as its address, as C's Val and a C++ call pass it */
template <typename R, typename... A> static inline dag_arg dag__val_of(R (&f)(A...)) { return dag__val_cpp(&f); }
/* A temporary of more than 16 bytes: its Val points at it, and it is gone at the end of the statement.
   Among dag_spawn's arguments that is after the spawn copied it; stored in a dag_arg for later it
   would dangle, so that stops the build. */
template <typename T> struct dag__val_temporary {
    const T *x;
    template <typename U = T> operator dag_arg() const {
        static_assert(sizeof(U) == 0, "Val of a temporary of more than 16 bytes, kept in a dag_arg: it points at the "
                      "temporary, gone at the end of this statement; name it first (S s = ...; Val(s)), or write the "
                      "Val among dag_spawn's arguments");
        return dag_arg();
    }
};
template <typename T, typename = typename std::enable_if<!std::is_lvalue_reference<T>::value &&
                                                         (sizeof(T) > sizeof(dag_task))>::type>
static inline dag__val_temporary<T> dag__val_of(T &&x) {
    static_assert(!std::is_array<T>::value, DAG__NO_ARRAY_VALUES);
    static_assert(std::is_trivially_copyable<T>::value, DAG__BYTES_ONLY);
    return dag__val_temporary<T>{&x};
}
template <typename P> static inline dag_arg dag__param_arg(const dag_arg &a) { return a; }
template <typename P, typename T> static inline dag_arg dag__param_arg(const dag__val_temporary<T> &v) {
    return dag__val_cpp(*v.x);   /* (the temporary lives to the end of the spawn's statement) */
}
template <typename P, typename T> static inline dag_arg dag__param_arg(const dag__class_pointer<T *> &v) {
    typedef typename std::remove_cv<typename std::remove_pointer<P>::type>::type PE;
    static_assert(!std::is_pointer<P>::value || !std::is_class<PE>::value || std::is_convertible<T *, P>::value,
                  "Val of a pointer to a class for a parameter that points to another class it does not derive "
                  "from (a C++ call would refuse it too)");
    return dag__val_cpp(dag__pointer_for<P>(v.p, std::is_convertible<T *, P>()));
}
template <typename P, typename X> static inline dag_arg dag__param_arg(const X &) {
    static_assert(!std::is_same<X, X>::value, "each argument of dag_spawn is Val(x), In, Out, InOut, Ld or Fut: "
                  "a bare value is none of them (write Val(x))");
    return dag_arg();
}
#define DAG_VAL(x) dag__val_of(x)
extern "C" {
#else
/* An array of a C scalar type decays to a pointer of another size (an
   array of exactly a pointer's size slips through: C11 cannot tell it) */
#define DAG__SCALAR_POINTER_ASSOC(T, n) T *: 1, const T *: 1,
#define DAG__IS_ARRAY(x) (_Generic((x), DAG__TYPE_TAGS(DAG__SCALAR_POINTER_ASSOC) default: 0) && sizeof(x) != sizeof(void *))
#define DAG_VAL(x) \
    (DAG__STATIC_CHECK(!DAG__IS_ARRAY(x), DAG__NO_ARRAY_VALUES), \
     dag__arg_elem(dag__arg_value_kept(DAG__TAG_OF(x), sizeof(x), (__typeof__(x)[1]){x}), DAG__REF_TAG(x)))
#define DAG_LD(x) _Generic((x), dag_data: dag__arg_ld_data, default: dag__arg_ld_ptr)(x)
#endif
#define dag_register(ptr, count) dag_data_register((ptr), (count), sizeof(*(ptr)))
#define dag_register_tile(ptr, rows, cols, ld) dag_data_register_tile((ptr), (rows), (cols), (ld), sizeof(*(ptr)))

/* A block is two one-turn loops: the outer one ends the region, the inner one holds the program's
   block, so that a `break` or `continue` in it leaves it through its end, as its closing brace does.
   `open` tells the two apart: a break leaves the inner loop without clearing it, and is warned of,
   since a C reader takes it for a break out of a loop around the block. */
#if defined(__cplusplus)
/* In C++ the block's end runs also when an exception, a return or a goto leaves the block: its tasks
   may use the frame's std::vectors, which unwinding is about to destroy, so the block waits for them
   first (as a TBB task_group or a std::async future does). */
struct dag__block {
    dag_region region;
    int open;
    dag__block(dag_region_kind kind, const dag_options *options) : region(dag_region_begin(kind, options)), open(1) {}
    ~dag__block() {
        if (region.depth) dag_region_end(region);
    }
    dag__block(const dag__block &) = delete;
    dag__block &operator=(const dag__block &) = delete;
};
#define DAG__BLOCK_START(b, kind, options) dag__block b((kind), options)
#elif !defined(__OPENCL_C_VERSION__)
typedef struct dag__block { dag_region region; int open; } dag__block;
static inline dag__block dag__block_begin(dag_region_kind kind, const dag_options *options) {
    dag__block b;
    b.region = dag_region_begin(kind, options);
    b.open = 1;
    return b;
}
#define DAG__BLOCK_START(b, kind, options) dag__block b = dag__block_begin((kind), options)
#endif
#if !defined(__OPENCL_C_VERSION__)
static inline void dag__block_end(dag__block *b) {
    if (b->open)
        dag_log(DAG_LOG_WARN, DAG_OK, "a break inside a DAG_DATADEPS, DAG_SEQUENTIAL, DAG_BULK or "
                "DAG_WITH_OPTIONS block leaves that block (its end runs), not a loop around it");
    dag_region_end(b->region);
    b->region.depth = 0;
}
#endif
#define DAG__REGION_BLOCK(kind, ...) \
    for (DAG__BLOCK_START(DAG__CAT(dag__rg, __LINE__), kind, __VA_ARGS__); \
         DAG__CAT(dag__rg, __LINE__).region.depth; dag__block_end(&DAG__CAT(dag__rg, __LINE__))) \
        for (; DAG__CAT(dag__rg, __LINE__).open; DAG__CAT(dag__rg, __LINE__).open = 0)
#define DAG_DATADEPS DAG__REGION_BLOCK(DAG_REGION_DATADEPS, NULL)
#define DAG_SEQUENTIAL DAG__REGION_BLOCK(DAG_REGION_SEQUENTIAL, NULL)
#define DAG_BULK DAG__REGION_BLOCK(DAG_REGION_BULK, NULL)
#define DAG_WITH_OPTIONS(...) DAG__REGION_BLOCK(DAG_REGION_OPTIONS, DAG_OPTIONS(__VA_ARGS__))
/* Options written where they are used, in C and C++ alike:
   dag_spawn_with(DAG_OPTIONS(.run_inline = n < 20), fib, Val(n - 1)). They
   live to the end of the statement; dag.h copies what it keeps. */
#ifdef __cplusplus
/* Designated initializers are C++20, an extension before it, which __extension__ lets -pedantic
   take. (g++'s -Wextra names each field left out, though C's rule zeroes them as C++'s does: the
   guide says how to quiet it.) */
#if defined(__GNUC__)
#define DAG_OPTIONS(...) (__extension__ dag__options_of(dag_options{__VA_ARGS__}))
#else
#define DAG_OPTIONS(...) dag__options_of(dag_options{__VA_ARGS__})
#endif
#else
#define DAG_OPTIONS(...) ((const dag_options *)&(dag_options){__VA_ARGS__})
#endif

#ifndef DAG_NO_SHORT_NAMES
#define In DAG_IN
#define Out DAG_OUT
#define InOut DAG_INOUT
#define Val DAG_VAL
#define Fut DAG_FUT
#define Ld DAG_LD
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DAG_H_INCLUDED */

/* ======================================================================== */
/*                            IMPLEMENTATION                                */
/* ======================================================================== */
#ifdef DAG_IMPLEMENTATION
#ifndef DAG_IMPLEMENTATION_INCLUDED
#define DAG_IMPLEMENTATION_INCLUDED
/* gcc's ThreadSanitizer warns of every fence (-Wtsan: it does not model them), so a -Werror build
   under it stopped; the work-stealing deque's fences stand beside seq_cst atomics, which it does model */
#if defined(__SANITIZE_THREAD__) && !defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#define DAG__TSAN_WARNING_OFF
#endif

/* >>language: C11, or C++17 and later. The implementation is written in
   C11; as C++ its atomics, thread-local storage and alignment map onto
   <atomic>, thread_local and alignas, and its threads onto pthreads. The
   device backends and the rank layer are C only: each stops at an #error. */
#ifdef __cplusplus
#if __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#error "dag.h: the implementation (DAG_IMPLEMENTATION) compiled as C++ needs C++17 (-std=c++17) or later"
#endif
#include <atomic>
#define DAG__ATOMIC(T) std::atomic<T>
#define DAG__THREAD_LOCAL thread_local
#define DAG__ALIGNAS(n) alignas(n)
#define DAG__STATIC_ASSERT(cond, msg) static_assert(cond, msg)
using std::memory_order_relaxed; using std::memory_order_acquire; using std::memory_order_release;
using std::memory_order_acq_rel; using std::memory_order_seq_cst;
using std::atomic_init; using std::atomic_load; using std::atomic_load_explicit; using std::atomic_store;
using std::atomic_store_explicit; using std::atomic_exchange; using std::atomic_exchange_explicit;
using std::atomic_compare_exchange_strong; using std::atomic_compare_exchange_strong_explicit;
using std::atomic_compare_exchange_weak; using std::atomic_compare_exchange_weak_explicit;
using std::atomic_fetch_add; using std::atomic_fetch_add_explicit; using std::atomic_fetch_sub;
using std::atomic_fetch_sub_explicit; using std::atomic_fetch_or; using std::atomic_fetch_or_explicit;
using std::atomic_fetch_and; using std::atomic_fetch_and_explicit; using std::atomic_thread_fence;
using std::atomic_signal_fence;
#ifndef DAG_USE_PTHREADS
#define DAG_USE_PTHREADS   /* <threads.h> is C's */
#endif
#else
#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "dag.h: the implementation needs C11 (-std=c11 or later), or C++17 as C++"
#endif
#if defined(__STDC_NO_ATOMICS__)
#error "dag.h: the implementation needs C11 <stdatomic.h>"
#endif
#include <stdatomic.h>
#define DAG__ATOMIC(T) _Atomic(T)
#define DAG__THREAD_LOCAL _Thread_local
#define DAG__ALIGNAS(n) _Alignas(n)
#define DAG__STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#include <stdarg.h>
#include <stdio.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>    /* (a Val's conversion into its parameter: the ranges) */
#include <limits.h>
#include <math.h>     /* (INFINITY) */
#include <stdlib.h>
#include <string.h>

/* >>customisation: the allocator hooks come as a set */
#if defined(DAG_MALLOC) || defined(DAG_FREE) || defined(DAG_REALLOC)
#if !defined(DAG_MALLOC) || !defined(DAG_FREE) || !defined(DAG_REALLOC)
#error "dag.h: define all of DAG_MALLOC, DAG_FREE and DAG_REALLOC, or none"
#endif
#else
#define DAG_MALLOC(n) malloc(n)
#define DAG_FREE(p) free(p)
#define DAG_REALLOC(p, n) realloc((p), (n))
#endif
#ifndef DAG_ASSERT
#include <assert.h>
#define DAG_ASSERT(c) assert(c)
#endif

/* >>build options: the numbers a program may set (BUILD OPTIONS above
   says what each does), with their defaults */
#ifndef DAG_MAX_REGISTERED
#define DAG_MAX_REGISTERED (1u << 24)
#endif
#ifndef DAG_STACK_BUDGET
#define DAG_STACK_BUDGET (2u << 20)
#endif
#ifndef DAG_MAX_RESERVE_THREADS
#define DAG_MAX_RESERVE_THREADS 256
#endif
#ifndef DAG_SLEEP_SAFETY_MS
#define DAG_SLEEP_SAFETY_MS 100
#endif
#ifndef DAG_DEFAULT_BLOCK_TIME_US
#define DAG_DEFAULT_BLOCK_TIME_US 5000
#endif
#ifndef DAG_MPI_MAX_RANKS
#define DAG_MPI_MAX_RANKS 1024
#endif
#if DAG_MPI_MAX_RANKS < 1
#error "dag.h: DAG_MPI_MAX_RANKS must be at least 1"
#endif

/* >>threads: a handful of primitives (thread, mutex, condition variable,
   yield, clock) on C11 <threads.h>, or on pthreads where <threads.h> is
   missing (__STDC_NO_THREADS__, macOS) or with DAG_USE_PTHREADS
   (ThreadSanitizer crashes on glibc's thrd_create). Part of dag.h, so
   dag.h alone builds a CPU program. */
#include <time.h>

#if !defined(DAG_USE_PTHREADS) && defined(__STDC_NO_THREADS__)
#define DAG_USE_PTHREADS
#endif

#if defined(DAG_USE_PTHREADS)
#include <pthread.h>
#include <sched.h>
typedef pthread_t dag__thread;
typedef pthread_mutex_t dag__mutex;
typedef pthread_cond_t dag__cond;
typedef void *(*dag__pthread_fn)(void *);

typedef struct dag__thread_start {
    int (*fn)(void *);
    void *arg;
} dag__thread_start;

static void *dag__pthread_trampoline(void *p) {
    dag__thread_start s = *(dag__thread_start *)p;
    free(p);
    return (void *)(intptr_t)s.fn(s.arg);
}
static int dag__thread_create(dag__thread *t, int (*fn)(void *), void *arg) {
    dag__thread_start *s = (dag__thread_start *)malloc(sizeof *s);
    if (!s) return -1;
    s->fn = fn;
    s->arg = arg;
    if (pthread_create(t, NULL, dag__pthread_trampoline, s) != 0) {
        free(s);
        return -1;
    }
    return 0;
}
static void dag__thread_join(dag__thread t) { pthread_join(t, NULL); }
static void dag__mutex_init(dag__mutex *m) { pthread_mutex_init(m, NULL); }
static void dag__mutex_destroy(dag__mutex *m) { pthread_mutex_destroy(m); }
static void dag__mutex_lock(dag__mutex *m) { pthread_mutex_lock(m); }
static inline bool dag__mutex_trylock(dag__mutex *m) { return pthread_mutex_trylock(m) == 0; }
static void dag__mutex_unlock(dag__mutex *m) { pthread_mutex_unlock(m); }
static void dag__cond_init(dag__cond *c) { pthread_cond_init(c, NULL); }
static void dag__cond_destroy(dag__cond *c) { pthread_cond_destroy(c); }
static void dag__cond_signal(dag__cond *c) { pthread_cond_signal(c); }
/* Waits at most until the absolute TIME_UTC deadline. */
static void dag__cond_timedwait(dag__cond *c, dag__mutex *m, const struct timespec *deadline) {
    pthread_cond_timedwait(c, m, deadline);
}
static void dag__cond_wait(dag__cond *c, dag__mutex *m) { pthread_cond_wait(c, m); }
/* a per-thread value whose destructor runs when the thread exits */
typedef pthread_key_t dag__tss;
static int dag__tss_create(dag__tss *k, void (*dtor)(void *)) { return pthread_key_create(k, dtor); }
static void dag__tss_delete(dag__tss k) { pthread_key_delete(k); }
static void dag__tss_set(dag__tss k, void *v) { pthread_setspecific(k, v); }
static void dag__thread_yield(void) { sched_yield(); }
#else
#include <threads.h>
typedef thrd_t dag__thread;
typedef mtx_t dag__mutex;
typedef cnd_t dag__cond;

static int dag__thread_create(dag__thread *t, int (*fn)(void *), void *arg) {
    return thrd_create(t, fn, arg) == thrd_success ? 0 : -1;
}
static void dag__thread_join(dag__thread t) { thrd_join(t, NULL); }
static void dag__mutex_init(dag__mutex *m) { mtx_init(m, mtx_plain); }
static void dag__mutex_destroy(dag__mutex *m) { mtx_destroy(m); }
static void dag__mutex_lock(dag__mutex *m) { mtx_lock(m); }
static inline bool dag__mutex_trylock(dag__mutex *m) { return mtx_trylock(m) == thrd_success; }
static void dag__mutex_unlock(dag__mutex *m) { mtx_unlock(m); }
static void dag__cond_init(dag__cond *c) { cnd_init(c); }
static void dag__cond_destroy(dag__cond *c) { cnd_destroy(c); }
static void dag__cond_signal(dag__cond *c) { cnd_signal(c); }
static void dag__cond_timedwait(dag__cond *c, dag__mutex *m, const struct timespec *deadline) {
    cnd_timedwait(c, m, deadline);
}
static void dag__cond_wait(dag__cond *c, dag__mutex *m) { cnd_wait(c, m); }
typedef tss_t dag__tss;
static int dag__tss_create(dag__tss *k, void (*dtor)(void *)) { return tss_create(k, dtor) == thrd_success ? 0 : -1; }
static void dag__tss_delete(dag__tss k) { tss_delete(k); }
static void dag__tss_set(dag__tss k, void *v) { tss_set(k, v); }
static void dag__thread_yield(void) { thrd_yield(); }
#endif

/* Nanoseconds on the TIME_UTC clock. C11 hides clock_gettime under -std=c11,
 * so timespec_get is the portable choice. */
static uint64_t dag__now_ns(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* A TIME_UTC deadline in nanoseconds as the timespec a timed wait takes. */
static struct timespec dag__timespec_of(uint64_t ns) {
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

/* Number of online cores, or 0 if unknown. */
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
static int dag__core_count(void) {
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 0;
#else
    return 0;
#endif
}

/* >>hints: to the compiler (likely branches, inlining), the processor (a
   spin's pause) and helgrind */
#if defined(__GNUC__) || defined(__clang__)
#define DAG__LIKELY(x) __builtin_expect(!!(x), 1)
#define DAG__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define DAG__NOINLINE __attribute__((noinline))
#define DAG__HOT inline __attribute__((always_inline))   /* steps of the hot paths (spawn, run, fetch), one function in the end */
#else
#define DAG__LIKELY(x) (x)
#define DAG__UNLIKELY(x) (x)
#define DAG__NOINLINE
#define DAG__HOT inline
#endif
#if defined(__x86_64__) || defined(__i386__)
#define DAG__PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define DAG__PAUSE() __asm__ __volatile__("yield")
#else
#define DAG__PAUSE() ((void)0)
#endif

/* helgrind cannot see C11 atomics: a DAG_HELGRIND build names the
   happens-before edges they create, and hides the deque's index words. */
#if defined(DAG_HELGRIND)
#include <valgrind/helgrind.h>
#define DAG__HB(p) ANNOTATE_HAPPENS_BEFORE(p)
#define DAG__HA(p) ANNOTATE_HAPPENS_AFTER(p)
#define DAG__HG_IGNORE(p, n) VALGRIND_HG_DISABLE_CHECKING(p, n)
#else
#define DAG__HB(p) ((void)0)
#define DAG__HA(p) ((void)0)
#define DAG__HG_IGNORE(p, n) ((void)0)
#endif

/* >>records: the core's sizes and records, named ahead of their parts */
#define DAG__CACHE_LINE 64
#define DAG__INLINE_ARGS 64       /* argument bytes kept in the task record */
#define DAG__INLINE_RESULT 16     /* result bytes kept in the task record */
#define DAG__MAX_PARAMS 16
#define DAG__GUARD (1 << 30)      /* keeps a task unready while its spawn is in progress */

typedef struct dag__task dag__task;
typedef struct dag__region dag__region;
typedef struct dag__worker dag__worker;
typedef struct dag__context dag__context;
typedef struct dag__domain dag__domain;
typedef struct dag__plan dag__plan;
typedef struct dag__span dag__span;   /* see >>spans */

/* A count only its owner thread adds to, which dag_get_stats reads from
   any thread while tasks run: relaxed atomics, as cheap as a plain add. */
#define DAG__COUNT(x, n) \
    atomic_store_explicit(&(x), atomic_load_explicit(&(x), memory_order_relaxed) + (n), memory_order_relaxed)

/* >>pool: fixed-size objects per thread. The owner allocates and frees
   without atomics; other threads give objects back through an atomic stack
   that the owner drains when its own list runs dry. No malloc in steady state. */
typedef struct dag__free_node { struct dag__free_node *next; } dag__free_node;
typedef struct dag__pool {
    DAG__ALIGNAS(DAG__CACHE_LINE) dag__free_node *local;
    DAG__ALIGNAS(DAG__CACHE_LINE) DAG__ATOMIC(dag__free_node *) remote;   /* its own line: other threads write it */
    DAG__ALIGNAS(DAG__CACHE_LINE) size_t object_size;
    void **slabs;
    size_t num_slabs, cap_slabs;
    DAG__ATOMIC(uint64_t) objects;    /* carved so far (DAG__COUNT: dag_get_stats reads it) */
} dag__pool;

/* >>task */
typedef struct dag__edge { dag__task *succ; struct dag__edge *next; dag__pool *home; } dag__edge;
#define DAG__CLOSED ((dag__edge *)(uintptr_t)1)   /* successor list of a finished task */

/* Rarely needed parts of a task, pooled apart to keep the record small. */
typedef struct dag__extra {
    dag__task *futures[DAG__MAX_PARAMS];  /* producer of each Fut parameter (a ref each) */
    void *heap_args;                      /* argument record over DAG__INLINE_ARGS */
    void *heap_result;                    /* result over DAG__INLINE_RESULT */
    char *message;                        /* failure text */
    char *name;                           /* a copy of dag_options' (the program's may be a local buffer) */
    dag_scope scope;
    int has_scope;
    int has_futures;
    int has_options;
    dag_options inherited;                /* options its children start from */
    int priority;
    uint32_t discard_owner;               /* discard_results from a DAG_WITH_OPTIONS block: its serial (its end
                                             drops the result), else 0 */
    uint64_t trace_id;
    dag__plan *plan;                      /* its spans, while devices are in use */
    dag__pool *home;
} dag__extra;

enum {
    DAG__TF_UNDEFERRED = 2,    /* runs inside its spawn, on the spawner's stack */
    DAG__TF_PLACED = 4,        /* scoped or prioritised: goes through make_ready, never inline */
    DAG__TF_DISCARD = 8,       /* its result is dropped when its region ends (discard_results) */
    DAG__TF_ALWAYS_RUNS = 16,  /* runs even when cancelled or a dependency failed: the rank layer's
                                  messages, whose other side waits for them (its body looks) */
    DAG__TF_KEEP = 32,         /* dag_fetch leaves its result (keep_results) */
    DAG__TF_NO_REGION = 64,    /* run inside its spawn before its spawner had a region: region NULL until a
                                  need for it makes one (dag__inline_region) */
};

/* The first cache line holds everything a spawn writes and a finishing
   thread touches, so a task handed to another core moves one line each way. */
/* A record's own cache lines, in its pool: dag__task_alloc's pool spaces
   them by whole lines (dag__pool_init). The type asks no more than 16 bytes'
   alignment, so that a record on the stack (a task run inside its spawn)
   costs its frame no realignment. */
struct dag__task {
    DAG__ALIGNAS(16) DAG__ATOMIC(dag__edge *) succ;  /* successors; DAG__CLOSED once finished */
    DAG__ATOMIC(int32_t) pending;                /* unfinished predecessors (+ DAG__GUARD while spawning) */
    DAG__ATOMIC(int32_t) refs;
    DAG__ATOMIC(uint32_t) gen;
    DAG__ATOMIC(int32_t) status;                 /* dag_result or user code; 0 while fine */
    DAG__ATOMIC(int16_t) waiters;                /* threads in dag_wait on it */
    DAG__ATOMIC(int16_t) cancel;                 /* dag_cancel asked it to stop */
    uint32_t flags;                         /* DAG__TF_* */
    const dag_task_desc *desc;
    dag__region *region;                    /* the waiting region it counts toward */
    dag__extra *extra;                      /* rare parts, or NULL */
    DAG__ATOMIC(const char *) failed_dep;       /* name of a failed predecessor: cancels this */
    /* set once per record, or only by rare paths */
    dag__pool *home;                        /* pool it returns to (fixed for the record's life) */
    dag__region *child_root;                /* root region of its body's spawns (NULL between uses) */
    dag__task *next;                        /* mailbox, injection queue, failed list */
    DAG__ATOMIC(int32_t) ended;                  /* 1: its region has ended (result kept or dropped, failure
                                               reported); 2: dag_release asked to drop its result */
    DAG__ATOMIC(int32_t) seen;                   /* failed: its spawner's body was told (dag__failure_seen) */
    /* the task whose body spawned it (a link: dag__region_parent), and how
       deep that nesting is: a waiting body asks whether a task is below it
       (dag__descends_from) of tasks it does not hold, so they are atomic */
    DAG__ATOMIC(dag__task *) parent;
    DAG__ATOMIC(uint32_t) level;
    DAG__ATOMIC(uint32_t) retained_at;           /* its place in its region's `retained`, while there (atomic: a
                                               stale handle's fetch reads it, see dag__retained_take) */
    DAG__ALIGNAS(16) unsigned char args[DAG__INLINE_ARGS];
    DAG__ALIGNAS(16) unsigned char result[DAG__INLINE_RESULT];
};

/* >>regions */
typedef struct dag__task_list { dag__task **items; size_t count, cap; } dag__task_list;

/* Counting a region's tasks: while the region is open, `count` sits at
   DAG__OPEN minus the finished ones, and the spawner counts its spawns in
   the plain `spawned`, so a spawn touches no shared line. Closing subtracts
   DAG__OPEN - spawned: `count` becomes exactly the unfinished tasks and its
   last decrement lands on 0 (a waiter wakes) or, when a body that ended
   closed it, on DAG__OWNER (the body's task finishes). */
#define DAG__OPEN ((int64_t)1 << 60)
#define DAG__OWNER ((int64_t)1 << 40)

struct dag__region {
    DAG__ALIGNAS(DAG__CACHE_LINE) DAG__ATOMIC(int64_t) count;   /* see above; written by finishing tasks */
    DAG__ATOMIC(int32_t) cancelled;             /* dag_region_cancel: its unstarted tasks do not run */
    DAG__ATOMIC(uint64_t) cancel_seen;          /* cancel_gen << 1 | whether a cancel reaches it, as last seen */
    DAG__ALIGNAS(DAG__CACHE_LINE) int64_t spawned;         /* owner only */
    int64_t stalled_at, stalled_live;      /* owner only: count and live tasks when dag__backpressure last gave up waiting
                                              (stalled_at 0: it has not) */
    DAG__ATOMIC(int32_t) first_error;           /* first failure of a task of its own */
    DAG__ATOMIC(int32_t) first_cancel;          /* first dependency failure */
    DAG__ATOMIC(dag__task *) failed;           /* failed tasks, held for dag_wait (via next) */
    DAG__ATOMIC(int64_t) failed_count;         /* how many are held there */
    int64_t failed_sweep_at;               /* owner only: more held than this, spent ones go (dag__failed_sweep) */
    DAG__ATOMIC(const char *) failed_name;     /* the task whose failure came first */
    DAG__ATOMIC(int64_t) unseen;               /* failures the owner's body was not told of (dag__failure_seen) */
    DAG__ATOMIC(dag__worker *) waiter;         /* a thread asleep until count reaches 0 */
    dag__task_list retained;               /* tasks with results, held for dag_fetch */
    dag__task *owner_task;                 /* task roots: the task whose body spawns here */
    dag__task *parent;                     /* the task whose body spawns here (NULL: a program thread) */
    dag__task *parent_link;                /* the same as its tasks' records keep it (dag__region_parent) */
    dag__region *outer;                    /* enclosing region in the same context */
    dag__region *counter;                  /* where its tasks count: itself if it waits */
    dag__region *seq;                      /* governing DAG_SEQUENTIAL, if any */
    dag__region *bulk;                     /* open DAG_BULK inside seq, if any */
    dag__task_list prev;                   /* seq: the step the next spawn follows */
    dag__task_list step;                   /* bulk: tasks of this step */
    const char *cancel;                    /* a failed step before it: cancels its spawns */
    bool scoped;                           /* options.scope is not empty: read by every spawn */
    bool options_set;                      /* options may be other than zero (dag__region_set_options) */
    bool plain;                            /* no name, priority, scope or discard_results in options
                                              (dag__options_plain): read by every spawn */
    int kind;                              /* dag_region_kind, 0 for a root */
    uint32_t depth, serial;
    uint32_t discard_owner;                /* the serial of the block whose options set discard_results, or 0 */
    int spawn_error;                       /* first spawn that failed inside */
    int spawn_failures;                    /* how many: only the first is logged (see dag__spawn_err) */
    int inner_error;                       /* an options block's: the first failure of a region ended in it */
    dag_options options;                   /* options in force inside (dag__region_set_options); a
                                              spawn reads name and priority, at its start */
};

/* A task's parent as its record keeps it: a record on a stack (a task run
   inside its spawn: dag__run_here, dag__spawn's undeferred) is marked in the
   low bit, so that a look at a task nobody holds never follows it
   (dag__may_descend_from). A region works it out once for its tasks. */
#define DAG__PARENT_ON_STACK ((uintptr_t)1)
static inline dag__task *dag__parent_link(dag__task *parent) {
    return parent && !parent->home ? (dag__task *)((uintptr_t)parent | DAG__PARENT_ON_STACK) : parent;
}
static inline void dag__region_parent(dag__region *r, dag__task *parent) {
    r->parent = parent;
    r->parent_link = dag__parent_link(parent);
}
static inline dag__task *dag__parent_of(const dag__task *link) {
    return (dag__task *)((uintptr_t)link & ~DAG__PARENT_ON_STACK);
}
static inline bool dag__parent_on_stack(const dag__task *link) { return ((uintptr_t)link & DAG__PARENT_ON_STACK) != 0; }

/* >>context: who is spawning. One per external thread, one per running task
   body (on the stack of the thread that runs it). Dependencies are inferred
   among the spawns of one context. */
struct dag__context {
    dag__task *task;                       /* NULL for an external thread */
    dag__domain *domain;                   /* created on the first span */
    dag__region *root;                     /* created on the first spawn of a body */
    dag__region *top;                      /* innermost open region, or root */
    uint32_t depth, serial;
    const dag_options *base;               /* options inherited from the parent (its extra's); NULL: none */
    int64_t deque_mark;                    /* its thread's deque bottom when the body began (see >>find work) */
    dag__context *next_guest;              /* list of external contexts */
    dag__region *events;                   /* a body run inside its spawn: its dag_detach events (see >>detach) */
    dag__context *spawner;                 /* the context this thread was in when the body began: for a
                                              body run inside its spawn, its spawner's */
    bool detached;                         /* the body called dag_detach */
};

/* >>deque: Chase-Lev work-stealing deque (Le, Pop, Cohen, Zappa Nardelli 2013) */
typedef struct dag__ring { int64_t size; DAG__ATOMIC(dag__task *) *slots; struct dag__ring *older; } dag__ring;
typedef struct dag__deque {
    DAG__ALIGNAS(DAG__CACHE_LINE) DAG__ATOMIC(int64_t) top;
    DAG__ALIGNAS(DAG__CACHE_LINE) DAG__ATOMIC(int64_t) bottom;
    int64_t top_seen;   /* owner only: a past value of top, which only grows */
    DAG__ATOMIC(dag__ring *) ring;
} dag__deque;

/* >>worker */
struct dag__worker {
    dag__deque deque;
    int index;                             /* 0-based; scopes say index + 1; -1 for guests */
    int guest_no;                          /* a guest's number from 0, for its own row in a trace */
    uint64_t rng;
    dag__mutex mail_lock;
    dag__task *mail_head, *mail_tail;      /* tasks scoped to this worker */
    DAG__ATOMIC(int32_t) mail_count;
    DAG__ATOMIC(uint64_t) mail_mask;            /* workers the mailbox holds work for (see dag__mail) */
    /* sleeping (see >>sleep) */
    dag__mutex park_lock;                  /* with cond: where it sleeps, or parks as a reserve */
    dag__cond cond;
    DAG__ATOMIC(int) sleep_state;               /* DAG__AWAKE, DAG__ASLEEP, DAG__WOKEN (a waker claimed it) */
    DAG__ATOMIC(uint64_t) sleeps;               /* read by dag_get_stats while it runs */
    DAG__ATOMIC(uint64_t) spawner_waits;        /* dag__backpressure's waits; the same */
    dag__pool tasks, edges, extras;
    DAG__ATOMIC(uint64_t) spawned, run, stolen, inlined;   /* its own counts (DAG__COUNT), read by dag_get_stats */
    DAG__ATOMIC(uint64_t) ran_at_spawn;                     /* spawned, run and inlined at once: one count for three */
    DAG__ATOMIC(uint64_t) records_out, records_back;       /* task records it took from a pool, and gave back */
    uint64_t steal_pause_ns, steal_after;  /* see dag__run_found */
    dag__task *isolate;                    /* see dag__find_work */
    struct dag__suspension *suspended;     /* bodies under this thread's running task that wait, having run
                                              others' tasks on top (no reserve thread could start; innermost first) */
    int64_t isolate_mark;                  /* isolate's deque_mark */
    dag__region *free_regions;             /* recycled regions of its own (see >>region pool) */
    int num_free_regions;
    int just_stole;
    /* waiting (see >>helping) */
    uintptr_t stack_base;                  /* the stack's depth when the thread came to dag.h */
    uintptr_t stack_budget;                /* what nested tasks may fill below it (dag__stack_mark) */
    DAG__ATOMIC(const void *) waiting_for;     /* a task or region, while asleep in a wait */
    DAG__ATOMIC(int) blocked;                   /* stuck in a wait inside a body: a reserve runs in its place */
    dag__task *blocked_task, *blocked_on;  /* the waiting body and what it waits for (under wait_lock) */
    DAG__ATOMIC(int) parked;                    /* a reserve thread out of service (set under sleep_lock) */
    DAG__ATOMIC(int) looking;                   /* 1 while it runs no task: it looks for one, sleeps, or is outside */
                                           /* dag.h (dag__others_running reads it; dag__help_until sets it) */
    /* trace */
    dag__mutex trace_lock;                 /* its trace, grown here while a program thread reads it */
    struct dag__trace_event *events;
    size_t num_events, cap_events;
    struct dag__trace_edge *trace_edges;
    size_t num_trace_edges, cap_trace_edges;
    dag__thread thread;
    dag__worker *next_guest;
    dag__context *guest_ctx;               /* a guest's context */
    int retired;                           /* a guest whose thread exited: ready for reuse */
};

typedef struct dag__trace_event {
    uint64_t id;
    const char *name;
    char *name_copy;           /* its own copy of a name from dag_options (freed with the event) */
    int worker;
    int processor;             /* 0 the CPU, 1 + d device d */
    uint64_t start, end;
    uint64_t bytes_moved;
    char *placement;           /* the cost model's estimates, or NULL */
    int status;
} dag__trace_event;
typedef struct dag__trace_edge { uint64_t from, to; } dag__trace_edge;

/* >>data: registered spans, in pages of DAG__DATA_PAGE slots made as they
   are needed; the pages' directory (8 bytes a page, in dag__g) has room for
   DAG_MAX_REGISTERED spans registered at once (a dag_array tile is one) */
#define DAG__DATA_PAGE 1024
#define DAG__DATA_PAGES ((DAG_MAX_REGISTERED + DAG__DATA_PAGE - 1) / DAG__DATA_PAGE)
DAG__STATIC_ASSERT(DAG_MAX_REGISTERED >= 1 && DAG__DATA_PAGES <= 0xffffffffu / DAG__DATA_PAGE,
               "DAG_MAX_REGISTERED: from 1 to 2^32 - 1024 (a handle's index is 32 bits)");
/* a registered span: rows runs of width bytes, stride apart (rows 1: one run) */
/* owned: an array's tile or a table's chunk (dag__data_owned), which only its object lets go of */
typedef struct dag__data_slot { void *ptr; size_t rows, width, stride, elem; uint32_t gen, next_free; int live, owned; } dag__data_slot;

/* >>state */
typedef struct dag__state {
    DAG__ATOMIC(int) phase;                     /* 0 never set up, 1 running, 2 shut down, 3 starting, 4 a child of
                                                   fork() of a running one (dag__forked_child) */
    uint32_t epochs;                       /* set-up cycles so far */
    dag_desc desc;
    int num_workers;
    int throttle;
    dag__worker *workers;
    DAG__ATOMIC(int) stop;
    dag__mutex sleep_lock;                 /* reserve threads' service, the guest list's growth */
    DAG__ATOMIC(int) sleepers;
    DAG__ATOMIC(int) asymmetric_fence;      /* see >>sleep: set by the first set-up that registers */
    uint64_t spin_ns;                      /* an idle worker's spin before it sleeps (UINT64_MAX: always) */
    int cores;                             /* more threads than this: spinners yield */
    /* ready tasks from threads outside the pool */
    dag__mutex inject_lock;
    dag__task *inject_head, *inject_tail;
    DAG__ATOMIC(int32_t) inject_count;
    /* ready tasks with a priority */
    dag__mutex prio_lock;
    dag__task **heap;
    size_t heap_count, heap_cap;
    DAG__ATOMIC(int32_t) prio_count;
    /* reserve threads (>>helping): workers beyond num_workers that stand in
       for threads blocked in a wait, in workers[num_workers...] */
    int cap_workers;                       /* num_workers + the most reserve threads */
    DAG__ATOMIC(int) num_slots;                 /* workers started: num_workers + reserve threads */
    DAG__ATOMIC(int) blocked;                   /* threads blocked in a wait */
    DAG__ATOMIC(int) reserve_active;            /* reserve threads in service */
    DAG__ATOMIC(int) reserve_failed;            /* a reserve thread could not start (see dag__help_until) */
    int reserve_peak;                      /* most reserve threads ever in service at once */
    dag__mutex wait_lock;                  /* the blocked_task / blocked_on pairs */
    DAG__ATOMIC(uint64_t) cancel_gen;           /* cancels made so far (see dag__cancel_asked); 0: none */
    /* results kept past their regions (>>kept results) */
    dag__mutex kept_lock;
    struct dag__kept **kept_buckets;
    size_t kept_buckets_n, kept_count, kept_bytes;
    /* external threads other than the one that set up; a thread that exits
       leaves its records for the next one (see dag__guest_exit) */
    dag__mutex guest_lock;
    dag__tss guest_key;
    int guest_key_ok;
    DAG__ATOMIC(dag__worker *) guests;         /* only ever grows at its head: walked without a lock (dag__guests) */
    dag__context *guest_contexts;
    DAG__ATOMIC(int) closing;                   /* dag_shutdown has begun: exiting threads leave their drain to it */
    DAG__ATOMIC(int) guest_calls;               /* spawns and waits threads outside the pool are inside (>>guests) */
    DAG__ATOMIC(int) first_vacant;              /* the thread that set up (worker 1) exited: the next one takes its place */
    DAG__ATOMIC(int) exits_running;             /* guest exits draining now: dag_shutdown waits for them */
    DAG__ATOMIC(int) late_running;              /* calls that may read records while dag_shutdown drains (dag_fulfill,
                                                   refused waits, >>guests): it frees nothing before they are out */
    DAG__ATOMIC(int) late_closed;               /* set by dag_shutdown once every task has finished */
    /* trace */
    DAG__ATOMIC(int) tracing;
    DAG__ATOMIC(uint64_t) next_trace_id;
    DAG__ATOMIC(uint64_t) trace_epoch;   /* the trace's time 0 (atomic: a thread outside the pool may clear the trace) */
    char *trace_path;                      /* written at dag_shutdown (dag_desc.trace_path, DAG_TRACE) */
    /* backends */
    bool backend_ok[DAG_BACKEND_COUNT];
    char backend_status[DAG_BACKEND_COUNT][256];
    DAG__ATOMIC(int) fallback_said[DAG_BACKEND_COUNT];   /* the info line for a scope whose devices are absent */
    /* settings without a dag_desc field (>>defaults) */
    const char *devices_from;              /* where desc.devices came from: "dag_desc.devices" or "DAG_DEVICES" */
    bool ranks_progress_thread;            /* DAG_MPI_PROGRESS=thread: the rank layer's thread alone completes messages */
    /* data */
    dag__mutex data_lock;
    DAG__ATOMIC(dag__data_slot *) data_pages[DAG__DATA_PAGES];
    uint32_t data_count;
    uint32_t data_free;                    /* index + 1 of a free slot, 0 = none */
    uint32_t data_gen_top;                 /* the highest generation any set-up cycle gave (never reset) */
    /* detached events (>>detach) */
    dag__mutex event_lock;
    struct dag__event_slot *events;
    uint32_t events_cap, events_used, event_free;
    size_t events_pending;
} dag__state;

static dag__state dag__g;
uint32_t dag__live_epoch;   /* outside dag__g: inline fetches read it where they are written */
uint32_t dag__data_gen_floor;
static DAG__THREAD_LOCAL dag__worker *dag__tls_worker;
static DAG__THREAD_LOCAL dag__context *dag__tls_ctx;
static DAG__THREAD_LOCAL uint32_t dag__tls_epoch;   /* the set-up cycle dag__tls_ctx belongs to */
static DAG__THREAD_LOCAL dag_result dag__tls_last_region = DAG_OK;
/* the body run inside its spawn whose spawn this thread runs at once now (dag__run_spawned), NULL if none */
static DAG__THREAD_LOCAL dag__context *dag__tls_inline_spawner;
static DAG__THREAD_LOCAL uint32_t dag__tls_down_said;   /* 1 + the set-up cycle after which it said "shut down" */
static DAG__THREAD_LOCAL bool dag__tls_guest;   /* a thread outside the pool, with a context of its own */
/* The blocks a call found open above it and closed (dag__close_abandoned): their own end, if it
   comes, then says which call closed them, not "closed twice". */
static DAG__THREAD_LOCAL struct { const dag__context *ctx; uint32_t first, last; const char *by; } dag__tls_closed;
static dag__context dag__main_ctx;

/* >>device seam: all the core asks of the device layer. Its answers live in
   dag_backends/dag_device.h, included at the end of the implementation
   when a backend is compiled in; a CPU-only build gets the answers below,
   which the compiler folds away. */
#define DAG__NONE(x) ((void)(x))   /* a stub's unused argument */
enum { DAG__HOME_KEEP, DAG__HOME_FORGET, DAG__HOME_DISCARD };   /* dag__data_home's how */
#define DAG__BACKEND_ON(e, field, name, word, device, flag, ...) DAG__ON(flag) ||
#if DAG__DEVICE_BACKENDS(DAG__BACKEND_ON) 0   /* some -DDAG_BACKEND_X of the list */
#ifdef __cplusplus
#error "dag.h: the device backends are C11: define DAG_IMPLEMENTATION in a .c file (the rest of the program may be C++)"
#endif
#define DAG__HAS_DEVICES 1
static bool dag__devices_used(void);   /* a task may run on a device: spawns record their spans */
static void dag__devices_note_kernel(const dag_task_desc *desc, const dag_scope *s);
static uint64_t dag__scope_devices(const dag_scope *s, const dag_kernel_source *k);   /* bit d: device d */
static bool dag__library_stands_in(const dag_kernel_source *k, const dag_scope *s);
static int dag__devices_num(void);
static dag_backend dag__device_backend(int d);
static int dag__device_ordinal(int d);   /* within its backend, from 0 */
static int dag__device_index(dag_backend b, int ordinal);   /* -1: none */
static const char *dag__dev_name(int d, char *buf, size_t size);
static const char *dag__dev_short_name(int d, char *buf, size_t size);
static void dag__plan_attach(dag__worker *w, dag__task *t, const dag_arg *args, int num_args, const dag__span *spans,
                             const int *modes, const size_t *elems, int num_spans, const int8_t *span_of_param,
                             const dag_scope *scope);
static bool dag__device_prepare(dag__worker *w, dag__task *t);   /* true: queued on a device, or failed */
static void dag__plan_finished(dag__plan *p);
static void dag__trace_plan(dag__trace_event *e, const dag__plan *p);   /* where it ran, and why */
static int dag__devices_settle(bool all, bool forget);   /* host memory current again */
static int dag__data_home(const dag__data_slot *s, int how);
static void dag__data_keep_on_device(const dag__data_slot *s);
static void dag__device_memory(int d, dag_memory_info *out);
static int dag__devices_synchronize(dag_backend b);
static void dag__devices_setup(const uint64_t allowed[DAG_BACKEND_COUNT], const char *spec, const char *from);
static void dag__devices_shutdown(void);
static void dag__devices_trace_json(FILE *f, int first_row);   /* a track per device lane, a slice per command */
static void dag__devices_trace_clear(void);
#else
#define DAG__HAS_DEVICES 0
static inline bool dag__devices_used(void) { return false; }
static inline void dag__devices_note_kernel(const dag_task_desc *desc, const dag_scope *s) { DAG__NONE(desc); DAG__NONE(s); }
static inline bool dag__library_stands_in(const dag_kernel_source *k, const dag_scope *s) { DAG__NONE(k); DAG__NONE(s); return false; }
static inline uint64_t dag__scope_devices(const dag_scope *s, const dag_kernel_source *k) {
    DAG__NONE(s); DAG__NONE(k);
    return 0;
}
static inline int dag__devices_num(void) { return 0; }
static inline dag_backend dag__device_backend(int d) { DAG__NONE(d); return DAG_CPU; }
static inline int dag__device_ordinal(int d) { return d; }
static inline int dag__device_index(dag_backend b, int ordinal) { DAG__NONE(b); DAG__NONE(ordinal); return -1; }
static inline const char *dag__dev_name(int d, char *buf, size_t size) { DAG__NONE(d); DAG__NONE(size); return buf; }
static inline const char *dag__dev_short_name(int d, char *buf, size_t size) { return dag__dev_name(d, buf, size); }
static inline void dag__plan_attach(dag__worker *w, dag__task *t, const dag_arg *args, int num_args,
                                    const dag__span *spans, const int *modes, const size_t *elems, int num_spans,
                                    const int8_t *span_of_param, const dag_scope *scope) {
    DAG__NONE(w); DAG__NONE(t); DAG__NONE(args); DAG__NONE(num_args); DAG__NONE(spans); DAG__NONE(modes);
    DAG__NONE(elems); DAG__NONE(num_spans); DAG__NONE(span_of_param); DAG__NONE(scope);
}
static inline bool dag__device_prepare(dag__worker *w, dag__task *t) { DAG__NONE(w); DAG__NONE(t); return false; }
static inline void dag__plan_finished(dag__plan *p) { DAG__NONE(p); }
static inline void dag__trace_plan(dag__trace_event *e, const dag__plan *p) { DAG__NONE(e); DAG__NONE(p); }
static inline int dag__devices_settle(bool all, bool forget) { DAG__NONE(all); DAG__NONE(forget); return 0; }
static inline int dag__data_home(const dag__data_slot *s, int how) { DAG__NONE(s); DAG__NONE(how); return 0; }
static inline void dag__data_keep_on_device(const dag__data_slot *s) { DAG__NONE(s); }
static inline void dag__device_memory(int d, dag_memory_info *out) { DAG__NONE(d); DAG__NONE(out); }
static inline int dag__devices_synchronize(dag_backend b) { DAG__NONE(b); return 0; }
static inline void dag__devices_setup(const uint64_t allowed[DAG_BACKEND_COUNT], const char *spec, const char *from) {
    DAG__NONE(allowed); DAG__NONE(spec); DAG__NONE(from);
}
static inline void dag__devices_shutdown(void) {}
static inline void dag__devices_trace_json(FILE *f, int first_row) { DAG__NONE(f); DAG__NONE(first_row); }
static inline void dag__devices_trace_clear(void) {}
#endif

/* >>mpi seam: what the core asks of the rank layer (dag_backends/dag_mpi.h,
   included at the end of the implementation with -DDAG_BACKEND_MPI), and
   the calls of the core it may use. The program thread's spawns are
   collective: every rank makes them in the same order, and the rank layer
   decides where each runs. Without it, one rank. */
/* The calls after which data is current on each owner, collective over ranks */
/* (WAIT_SPAWNED: dag_table.h's wait inside the program's block, which stays open) */
enum { DAG__MPI_END_DATADEPS, DAG__MPI_END_SEQUENTIAL, DAG__MPI_END_WAIT_ALL, DAG__MPI_END_WAIT_SPAWNED, DAG__MPI_END_SHUTDOWN };
/* The core's calls for the rank layer, defined in the core's layers (with
   dag__cancel_asked, dag__cause_new, dag__cause_drop and dag__cause_what; task records are
   only passed by pointer). The main context is the program's: that of
   the thread that set up, outside any task. */
static inline bool dag__is_main(const dag__context *ctx);
static inline bool dag__on_main(void);   /* this thread runs in the main context */
static inline uint32_t dag__main_open_regions(void);
static inline dag_task dag__main_refuse(int code, const char *fmt, ...);   /* a spawn of the main context refused */
static inline dag__task *dag__body_task(void);   /* the task whose body this thread runs */
static inline const char *dag__task_cause(dag__task *t);   /* why its input failed ("name\0what"); NULL: it did not */
static inline void dag__task_fail(dag__task *t, int status, const char *cause);   /* quietly, unless already failed */
static inline const char *dag__handle_cause(dag_task h);   /* dag__task_cause of h's record, held (dag__cause_drop it);
                                                             NULL once it has gone */
/* A result read for another rank, which the program's own fetch or release of it must not take
   away: held from the spawn of its message on (false: its record has gone), then copied once the
   task has finished (its status), unspent; a result not held is read where its region kept it. */
static inline bool dag__result_hold(dag_task h);
static inline int dag__result_copy(dag_task h, bool held, void *out, size_t size);
static inline void dag__result_unhold(dag_task h);
static inline bool dag__data_shape(dag_data h, void **ptr, size_t *rows, size_t *width, size_t *stride);   /* false: none */
static inline void dag__data_place(dag_data h, void *memory);   /* this rank's packed copy of h (NULL: none) */
#if defined(DAG_BACKEND_MPI)
#ifdef __cplusplus
#error "dag.h: the rank layer (-DDAG_BACKEND_MPI) is C11: define DAG_IMPLEMENTATION in a .c file (the rest of the program may be C++)"
#endif
#define DAG__HAS_MPI 1
static bool dag__mpi_collective(const dag__context *ctx);   /* this spawn is made on every rank */
static dag_task dag__mpi_spawn(const dag_task_desc *desc, const dag_arg *args, int num_args, const dag_options *opt);
static bool dag__mpi_handle(dag_task h);   /* a task of a collective spawn that runs on one rank */
static int dag__mpi_release(dag_task h);
static int dag__mpi_wait(dag_task h, void *out, size_t size);
static bool dag__mpi_ready(dag_task h);
/* for the calls that look at one task (result, message, cancel, release):
   true with *here set when this rank ran it, else its status as known here
   (0 while not known) and, when it failed, a message */
static bool dag__mpi_here(dag_task h, dag_task *here, int *status, char *message, size_t size);
static void dag__mpi_region_ending(const dag__context *ctx, int end);   /* before one drains: data home */
static int dag__mpi_region_ended(const dag__context *ctx, int end, int err);   /* after: the ranks agree, on the outcome too */
static void dag__mpi_registered(int rank, dag_data h);
/* numbers of a layer's collective call that its tasks take as values (a view's corner, an element's
   place: dag_array.h's), hashed with the calls, so that ranks that pass others diverge, named */
static void dag__mpi_agree_numbers(const char *what, const int64_t *v, int64_t n);
static void dag__mpi_stats(dag_stats *s);
static void dag__mpi_poll(void);   /* an idle worker, spinning, completes messages in flight */
static DAG__THREAD_LOCAL uint32_t dag__mpi_spawn_flags;   /* DAG__TF_* the rank layer gives the tasks it spawns */
static int dag__mpi_setup(int simulate_ranks, size_t cache_limit, bool progress_thread_alone);
static int dag__mpi_shutdown(int err);   /* the ranks' outcome of this rank's `err` (dag__mpi_agree's), or
                                           DAG_ERR_DIVERGED: the ranks' calls differed since their last region */
#else
#define DAG__HAS_MPI 0
static inline bool dag__mpi_collective(const dag__context *ctx) { DAG__NONE(ctx); return false; }
static inline dag_task dag__mpi_spawn(const dag_task_desc *desc, const dag_arg *args, int num_args,
                                      const dag_options *opt) {
    DAG__NONE(desc); DAG__NONE(args); DAG__NONE(num_args); DAG__NONE(opt);
    dag_task none = { NULL, 0, 0 };
    return none;
}
static inline bool dag__mpi_handle(dag_task h) { DAG__NONE(h); return false; }
static inline int dag__mpi_release(dag_task h) { DAG__NONE(h); return 0; }
static inline int dag__mpi_wait(dag_task h, void *out, size_t size) { DAG__NONE(h); DAG__NONE(out); DAG__NONE(size); return 0; }
static inline bool dag__mpi_ready(dag_task h) { DAG__NONE(h); return false; }
static inline bool dag__mpi_here(dag_task h, dag_task *here, int *status, char *message, size_t size) {
    DAG__NONE(h); DAG__NONE(here); DAG__NONE(message); DAG__NONE(size);
    *status = 0;
    return false;
}
static inline void dag__mpi_region_ending(const dag__context *ctx, int end) { DAG__NONE(ctx); DAG__NONE(end); }
static inline int dag__mpi_region_ended(const dag__context *ctx, int end, int err) { DAG__NONE(ctx); DAG__NONE(end); return err; }
static inline void dag__mpi_registered(int rank, dag_data h) { DAG__NONE(rank); DAG__NONE(h); }
static inline void dag__mpi_agree_numbers(const char *what, const int64_t *v, int64_t n) {
    DAG__NONE(what); DAG__NONE(v); DAG__NONE(n);
}
static inline void dag__mpi_stats(dag_stats *s) { DAG__NONE(s); }
static inline void dag__mpi_poll(void) {}
#define dag__mpi_spawn_flags 0u
static inline int dag__mpi_setup(int simulate_ranks, size_t cache_limit, bool progress_thread_alone) {
    DAG__NONE(simulate_ranks); DAG__NONE(cache_limit); DAG__NONE(progress_thread_alone);
    return 0;
}
static inline int dag__mpi_shutdown(int err) { return err; }
int dag_rank(void) { return 0; }
int dag_num_ranks(void) { return 1; }
#endif

/* >>logging */
static const char *const dag__result_text[] = {
#define DAG__RESULT_TEXT(name, text) text,
    DAG__RESULTS(DAG__RESULT_TEXT)
};

const char *dag_result_string(int r) {
    if (r >= 0 && r < DAG__RESULT_COUNT) return dag__result_text[r];
    return r >= DAG_USER_ERROR ? "user error" : "unknown result";
}

static void dag__default_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)user;
    const char *kind = level == DAG_LOG_ERROR ? "error" : level == DAG_LOG_WARN ? "warning" : "info";
    if (item == DAG_OK) fprintf(stderr, "dag.h %s: %s\n", kind, message);   /* a word with no error behind it */
    else fprintf(stderr, "dag.h %s [%s]: %s\n", kind, dag_result_string(item), message);
}

/* Where messages go: dag_setup's logger and level, apart from the rest of the settings and under a
   lock of their own, because any thread may log at any time (one refused while dag_shutdown runs, say),
   and the next dag_setup may be setting them meanwhile: a message reads a logger and its user data
   of one set-up, never half of each. (A spin lock: held for a few stores, and usable before any
   set-up, which a mutex of C11's is not.) */
typedef struct dag__log_settings { dag_logger logger; int level; } dag__log_settings;
static dag__log_settings dag__log_now;   /* level 0 before set-up: the default logger's warnings */
static DAG__ATOMIC(int) dag__log_lock;   /* 1: held */
static void dag__log_lock_take(void) {
    DAG__HG_IGNORE(&dag__log_lock, sizeof dag__log_lock);   /* helgrind sees a lock of atomics as races */
    while (atomic_exchange_explicit(&dag__log_lock, 1, memory_order_acquire)) dag__thread_yield();
    DAG__HA(&dag__log_lock);
}
static void dag__log_lock_give(void) {
    DAG__HB(&dag__log_lock);
    atomic_store_explicit(&dag__log_lock, 0, memory_order_release);
}
static dag__log_settings dag__log_settings_get(void) {
    dag__log_lock_take();
    dag__log_settings now = dag__log_now;
    dag__log_lock_give();
    return now;
}
static void dag__log_settings_set(dag_logger logger, int level) {
    dag__log_lock_take();
    dag__log_now.logger = logger;
    dag__log_now.level = level;
    dag__log_lock_give();
}

static void dag__vlog(dag_log_level level, int item, const char *fmt, va_list ap) {
    dag__log_settings to = dag__log_settings_get();
    int most = to.level ? to.level : to.logger.func ? DAG_LOG_INFO : DAG_LOG_WARN;   /* the least severe delivered */
    if ((int)level > most) return;
    char buf[1024];
    int n = fmt ? vsnprintf(buf, sizeof buf, fmt, ap) : snprintf(buf, sizeof buf, "(dag_log with no message)");
    if (n >= (int)sizeof buf) memcpy(buf + sizeof buf - 4, "...", 4);   /* cut, and said to be */
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';   /* one line, as the logger is promised (a name or dag_fail's words) */
    if (to.logger.func) to.logger.func(level, item, buf, to.logger.user_data);
    else dag__default_logger(level, item, buf, NULL);
}

void dag_log(dag_log_level level, int item, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    dag__vlog(level, item, fmt, ap);
    va_end(ap);
}

/* Reports misuse and returns the code, so callers can `return dag__err(...)`. */
static int dag__err(int item, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    dag__vlog(DAG_LOG_ERROR, item, fmt, ap);
    va_end(ap);
    return item;
}

/* A spawn, region or registration made while no runtime runs: said once a
   thread until the next set-up, since one array or table operation makes
   hundreds of such calls, each refused the same way (each still returns
   DAG_ERR_SHUT_DOWN). */
static bool dag__first_refusal_here(void) {   /* on this thread since the last set-up */
    uint32_t said = __atomic_load_n(&dag__g.epochs, __ATOMIC_RELAXED) + 1;
    if (dag__tls_down_said == said) return false;
    dag__tls_down_said = said;
    return true;
}
#define DAG__FORKED_WHY "this process is a child of fork(), made while dag.h ran: its threads stayed in the " \
                        "parent, so dag.h does not run here (exec a program, or fork before dag_setup or after " \
                        "dag_shutdown)"
static int dag__shut_down_err(const char *who, const char *name) {
    if (!dag__first_refusal_here()) return DAG_ERR_SHUT_DOWN;
    if (atomic_load(&dag__g.phase) == 4)
        dag__err(DAG_ERR_SHUT_DOWN, "%s%s%s: %s", who, name ? name : "", name ? ")" : "", DAG__FORKED_WHY);
    else
        dag__err(DAG_ERR_SHUT_DOWN, "%s%s%s: the runtime is shut down (call dag_setup again first; calls refused the "
                 "same way on this thread are not logged again)", who, name ? name : "", name ? ")" : "");
    return DAG_ERR_SHUT_DOWN;
}

/* fork() while dag.h runs: the child has one thread, the one that forked,
   and a copy of state whose locks other threads may have held. It runs
   nothing of it: every call is refused (DAG__FORKED_WHY), dag_shutdown
   returns without joining threads that are not there, and its memory is
   left to the child's exit or exec. */
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
static void dag__forked_child(void) {
    int phase = atomic_load(&dag__g.phase);
    if (phase != 1 && phase != 3) return;   /* (3: set-up was under way in another thread, which is gone) */
    atomic_store(&dag__g.phase, 4);
    __atomic_store_n(&dag__live_epoch, 0, __ATOMIC_SEQ_CST);   /* every context and handle goes stale */
}
static void dag__watch_fork(void) {
    static DAG__ATOMIC(int) watching;
    if (!atomic_exchange(&watching, 1)) pthread_atfork(NULL, NULL, dag__forked_child);
}
#else
static void dag__watch_fork(void) {}
#endif

static void *dag__xmalloc(size_t n) {
    void *p = DAG_MALLOC(n);
    if (!p) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "allocation of %zu bytes failed", n);
        abort(); /* no task can make progress without its record */
    }
    return p;
}
static char *dag__copy_text(const char *text) {
    size_t n = strlen(text) + 1;
    return (char *)memcpy(dag__xmalloc(n), text, n);
}
static void *dag__xrealloc(void *p, size_t n) {
    void *q = DAG_REALLOC(p, n);
    if (!q) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "allocation of %zu bytes failed", n);
        abort();
    }
    return q;
}

/* Cache-line aligned blocks (workers, regions) through the DAG_MALLOC hook:
   the raw pointer sits just before the aligned block. */
static void *dag__xmalloc_aligned(size_t n) {
    unsigned char *raw = (unsigned char *)dag__xmalloc(n + DAG__CACHE_LINE + sizeof(void *));
    uintptr_t a = ((uintptr_t)raw + sizeof(void *) + DAG__CACHE_LINE - 1) & ~(uintptr_t)(DAG__CACHE_LINE - 1);
    memcpy((void *)(a - sizeof(void *)), &raw, sizeof raw);
    return (void *)a;
}
static void dag__free_aligned(void *p) {
    if (!p) return;
    void *raw;
    memcpy(&raw, (unsigned char *)p - sizeof(void *), sizeof raw);
    DAG_FREE(raw);
}

static void dag__list_push(dag__task_list *l, dag__task *t) {
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->items = (dag__task **)dag__xrealloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->count++] = t;
}

/* >>pool implementation */
/* align: how its objects are spaced (16, or a cache line for objects that
   threads other than their owner write: task records) */
static void dag__pool_init(dag__pool *p, size_t object_size, size_t align) {
    memset((void *)p, 0, sizeof *p);   /* atomics zeroed: no thread sees it yet */
    p->object_size = (object_size + align - 1) / align * align;
    atomic_init(&p->remote, NULL);
}

static DAG__NOINLINE void dag__pool_refill(dag__pool *p) {
    /* Objects freed by other threads first: they are warm and already paid for. */
    dag__free_node *r = atomic_exchange_explicit(&p->remote, NULL, memory_order_acquire);
    if (r) {
        DAG__HA(p);
        p->local = r;
        return;
    }
    size_t n = atomic_load_explicit(&p->objects, memory_order_relaxed) < 4096 ? 64 : 1024;
    unsigned char *slab = (unsigned char *)dag__xmalloc(n * p->object_size + DAG__CACHE_LINE);
    memset(slab, 0, n * p->object_size + DAG__CACHE_LINE);   /* generation 0 marks a fresh record */
    if (p->num_slabs == p->cap_slabs) {
        p->cap_slabs = p->cap_slabs ? p->cap_slabs * 2 : 16;
        p->slabs = (void **)dag__xrealloc(p->slabs, p->cap_slabs * sizeof *p->slabs);
    }
    p->slabs[p->num_slabs++] = slab;
    unsigned char *base = (unsigned char *)(((uintptr_t)slab + DAG__CACHE_LINE - 1) & ~(uintptr_t)(DAG__CACHE_LINE - 1));
    for (size_t i = n; i-- > 0;) {
        dag__free_node *f = (dag__free_node *)(base + i * p->object_size);
        f->next = p->local;
        p->local = f;
    }
    DAG__COUNT(p->objects, n);
}

static inline void *dag__pool_alloc(dag__pool *p) {
    if (DAG__UNLIKELY(!p->local)) dag__pool_refill(p);
    dag__free_node *f = p->local;
    p->local = f->next;
    return f;
}

static inline void dag__pool_free(dag__pool *p, void *obj, dag__pool *mine) {
    dag__free_node *f = (dag__free_node *)obj;
    if (p == mine) {
        f->next = p->local;
        p->local = f;
        return;
    }
    dag__free_node *head = atomic_load_explicit(&p->remote, memory_order_relaxed);
    do {
        f->next = head;
        DAG__HB(p);
    } while (!atomic_compare_exchange_weak_explicit(&p->remote, &head, f, memory_order_release, memory_order_relaxed));
}

static void dag__pool_destroy(dag__pool *p) {
    for (size_t i = 0; i < p->num_slabs; i++) DAG_FREE(p->slabs[i]);
    DAG_FREE(p->slabs);
    memset((void *)p, 0, sizeof *p);
}

/* >>deque implementation */
static dag__ring *dag__ring_new(int64_t size, dag__ring *older) {
    dag__ring *r = (dag__ring *)dag__xmalloc(sizeof *r);
    r->size = size;
    r->older = older;
    r->slots = (DAG__ATOMIC(dag__task *) *)dag__xmalloc((size_t)size * sizeof *r->slots);
    for (int64_t i = 0; i < size; i++) atomic_init(&r->slots[i], NULL);
    DAG__HG_IGNORE(r->slots, (size_t)size * sizeof *r->slots);
    return r;
}

static void dag__deque_init(dag__deque *d) {
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    d->top_seen = 0;
    atomic_init(&d->ring, dag__ring_new(256, NULL));
    DAG__HG_IGNORE(&d->top, sizeof d->top);
    DAG__HG_IGNORE(&d->ring, sizeof d->ring);
    DAG__HG_IGNORE(&d->bottom, sizeof d->bottom);
}

static void dag__deque_destroy(dag__deque *d) {
    dag__ring *r = atomic_load(&d->ring);
    while (r) {
        dag__ring *o = r->older;
        DAG_FREE(r->slots);
        DAG_FREE(r);
        r = o;
    }
}

static inline int64_t dag__deque_size(dag__deque *d) {
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b - t;
}

/* Owner only: is the deque at least `n` long? Reads top (a line thieves
   write) only when the last value seen says it might be. */
static inline bool dag__deque_at_least(dag__deque *d, int64_t n) {
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (b - d->top_seen < n) return false;
    d->top_seen = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b - d->top_seen >= n;
}

/* Owner only. The release store of bottom publishes the task's record. */
static void dag__deque_push(dag__deque *d, dag__task *x) {
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    dag__ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    int64_t t = d->top_seen;
    if (b - t > r->size - 1) t = d->top_seen = atomic_load_explicit(&d->top, memory_order_acquire);
    if (DAG__UNLIKELY(b - t > r->size - 1)) {
        /* Grow; the old ring stays alive (thieves may still read it) until shutdown. */
        dag__ring *n = dag__ring_new(r->size * 2, r);
        for (int64_t i = t; i < b; i++)
            atomic_store_explicit(&n->slots[i & (n->size - 1)],
                                  atomic_load_explicit(&r->slots[i & (r->size - 1)], memory_order_relaxed),
                                  memory_order_relaxed);
        atomic_store_explicit(&d->ring, n, memory_order_release);
        r = n;
    }
    atomic_store_explicit(&r->slots[b & (r->size - 1)], x, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
}

/* Owner only: newest first. */
static dag__task *dag__deque_take(dag__deque *d) {
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    dag__ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (t > b) {
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        return NULL;
    }
    dag__task *x = atomic_load_explicit(&r->slots[b & (r->size - 1)], memory_order_relaxed);
    if (t == b) {
        if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed))
            x = NULL;
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
    if (x) DAG__HA(x);
    return x;
}

/* Any thread: oldest first, if `ok` accepts it (NULL: any). `ok` sees a
   task the thief does not hold yet: it may read only its atomic fields. */
typedef bool (*dag__task_test)(const dag__task *t, const void *arg);
static dag__task *dag__deque_steal_if(dag__deque *d, dag__task_test ok, const void *arg) {
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    atomic_thread_fence(memory_order_seq_cst);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
    if (t >= b) return NULL;
    dag__ring *r = atomic_load_explicit(&d->ring, memory_order_acquire);
    dag__task *x = atomic_load_explicit(&r->slots[t & (r->size - 1)], memory_order_relaxed);
    if (ok && !ok(x, arg)) return NULL;
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed))
        return NULL;
    DAG__HA(x);   /* the pusher's DAG__HB(x): a thief reads x's fields before it runs x */
    return x;
}
static dag__task *dag__deque_steal(dag__deque *d) { return dag__deque_steal_if(d, NULL, NULL); }

/* >>sleep: a sleeper registers (sleep_state, then sleepers), then looks for
   work once more; a producer publishes, then looks for sleepers. Both sides
   put a sequentially consistent fence between the two steps, so one of them
   always sees the other (no lost wake-up). A waker claims a sleeper by
   moving it from DAG__ASLEEP to DAG__WOKEN, so two producers wake two
   different sleepers, and signals it under the sleeper's own lock: no lock
   is shared by every producer.

   The producer's fence is on every spawn (a twentieth of a fork-join
   task's time), the sleeper's on every sleep. Where the system can make
   every running thread of the process pass a full fence at once (Linux's
   membarrier, registered at set-up), the sleeper does that and a spawn
   needs only the compiler's: an asymmetric fence, as liburcu's. Elsewhere,
   or when registering fails (valgrind), both sides fence. */
enum { DAG__AWAKE, DAG__ASLEEP, DAG__WOKEN };

#if defined(__linux__)
#include <sys/syscall.h>
#endif
#if defined(__linux__) && defined(SYS_membarrier)
#if !defined(__USE_MISC)   /* glibc under strict C11 hides syscall's declaration */
#ifdef __cplusplus
extern "C" long syscall(long number, ...);
#else
long syscall(long number, ...);
#endif
#endif
enum { DAG__MEMBARRIER_PRIVATE_EXPEDITED = 1 << 3, DAG__MEMBARRIER_REGISTER_PRIVATE_EXPEDITED = 1 << 4 };
static bool dag__membarrier_register(void) {
    return syscall(SYS_membarrier, (long)DAG__MEMBARRIER_REGISTER_PRIVATE_EXPEDITED, 0L) == 0;
}
static bool dag__membarrier(void) { return syscall(SYS_membarrier, (long)DAG__MEMBARRIER_PRIVATE_EXPEDITED, 0L) == 0; }
#else
static bool dag__membarrier_register(void) { return false; }
static bool dag__membarrier(void) { return false; }
#endif
/* the sleeper's side: every thread's fence, or its own. Should membarrier
   fail after registering (the kernel out of memory, a sandbox installed
   since), both sides fence from then on; a spawn already past its compiler
   fence may go unseen once, until the sleep's safety timeout. */
static void dag__sleeper_fence(void) {
    bool asymmetric = atomic_load_explicit(&dag__g.asymmetric_fence, memory_order_relaxed);
    if (asymmetric && dag__membarrier()) return;
    if (asymmetric) atomic_store_explicit(&dag__g.asymmetric_fence, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}
/* the producer's side: the compiler's alone where the sleeper's fences every thread */
static inline void dag__producer_fence(void) {
    if (DAG__LIKELY(atomic_load_explicit(&dag__g.asymmetric_fence, memory_order_relaxed))) atomic_signal_fence(memory_order_seq_cst);
    else atomic_thread_fence(memory_order_seq_cst);
}

static bool dag__wake_claim(dag__worker *w) {
    int asleep = DAG__ASLEEP;
    if (!atomic_compare_exchange_strong(&w->sleep_state, &asleep, DAG__WOKEN)) return false;
    dag__mutex_lock(&w->park_lock);
    dag__cond_signal(&w->cond);
    dag__mutex_unlock(&w->park_lock);
    return true;
}

static void dag__wake_worker(dag__worker *w) {
    atomic_thread_fence(memory_order_seq_cst);
    dag__wake_claim(w);
}

static bool dag__scope_allows(const dag_scope *s, int worker_index) {
    if (worker_index < 0 || worker_index >= dag__g.num_workers) return false;   /* guests and reserve threads */
    if (s->all_threads) return true;
    if (s->thread == worker_index + 1) return true;
    if (worker_index < 64 && (s->threads >> worker_index) & 1u) return true;
    return false;
}

/* A sleeper that would take new work: not blocked in a wait (it takes none,
   a reserve thread does), and allowed by the work's scope, if it has one. */
static bool dag__would_take(dag__worker *w, const dag_scope *s) {
    return atomic_load_explicit(&w->sleep_state, memory_order_relaxed) == DAG__ASLEEP &&
           !atomic_load_explicit(&w->blocked, memory_order_relaxed) && (!s || dag__scope_allows(s, w->index));
}

/* The threads outside the pool that came to dag.h: a list that only grows at its head, each record
   complete before it is published, so it is walked without a lock. */
static inline dag__worker *dag__guests(void) {
    dag__worker *g = atomic_load_explicit(&dag__g.guests, memory_order_acquire);
    DAG__HA(&dag__g.guests);
    return g;
}
/* How many records that list holds (exited threads' included: the next thread takes one over) */
static int dag__guest_records(void) {
    int n = 0;
    for (dag__worker *g = dag__guests(); g; g = g->next_guest) n++;
    return n;
}
/* Workers started so far (reserve threads join while others scan): the
   acquire pairs with dag__reserve_top_up's release, so a counted worker's
   record is initialised. */
static inline int dag__slots(void) {
    int n = atomic_load_explicit(&dag__g.num_slots, memory_order_acquire);
    DAG__HA(&dag__g.num_slots);
    return n;
}

/* Wakes one sleeper that would take work of scope s (NULL: any work). */
static void dag__wake_one_for(const dag_scope *s) {
    dag__producer_fence();
    if (DAG__LIKELY(atomic_load_explicit(&dag__g.sleepers, memory_order_relaxed) == 0)) return;
    int n = dag__slots();
    for (int i = 0; i < n; i++)
        if (dag__would_take(&dag__g.workers[i], s) && dag__wake_claim(&dag__g.workers[i])) return;
    if (s) return;
    dag__mutex_lock(&dag__g.sleep_lock);   /* threads waiting outside the pool */
    for (dag__worker *w = dag__guests(); w; w = w->next_guest)
        if (dag__would_take(w, NULL) && dag__wake_claim(w)) break;
    dag__mutex_unlock(&dag__g.sleep_lock);
}
static void dag__wake_one(void) { dag__wake_one_for(NULL); }

/* Wakes the threads asleep in a wait for `what` (a task), and only them. */
static void dag__wake_waiters(const void *what) {
    atomic_thread_fence(memory_order_seq_cst);
    int n = dag__slots();
    for (int i = 0; i < n; i++) {
        dag__worker *w = &dag__g.workers[i];
        if (atomic_load(&w->waiting_for) == what) dag__wake_claim(w);
    }
    dag__mutex_lock(&dag__g.sleep_lock);
    for (dag__worker *w = dag__guests(); w; w = w->next_guest)
        if (atomic_load(&w->waiting_for) == what) dag__wake_claim(w);
    dag__mutex_unlock(&dag__g.sleep_lock);
}

/* Wakes w whatever it waits for, and unparks it if it is a reserve thread. */
static void dag__wake_one_up(dag__worker *w) {
    dag__mutex_lock(&w->park_lock);
    int asleep = DAG__ASLEEP;
    atomic_compare_exchange_strong(&w->sleep_state, &asleep, DAG__WOKEN);
    atomic_store(&w->parked, 0);
    dag__cond_signal(&w->cond);
    dag__mutex_unlock(&w->park_lock);
}
/* Wakes everyone (at shutdown, after `stop`). */
static void dag__wake_all(void) {
    dag__mutex_lock(&dag__g.sleep_lock);
    int n = dag__slots();
    for (int i = 0; i < n; i++) dag__wake_one_up(&dag__g.workers[i]);
    for (dag__worker *w = dag__guests(); w; w = w->next_guest) dag__wake_one_up(w);
    dag__mutex_unlock(&dag__g.sleep_lock);
}

/* >>ready: where a task goes once its last predecessor finishes */

/* The workers (of the first 64) a scope allows, as bits. */
static uint64_t dag__all_worker_bits(void) {
    return dag__g.num_workers >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dag__g.num_workers) - 1;
}
static uint64_t dag__scope_worker_bits(const dag_scope *s) {
    uint64_t all = dag__all_worker_bits();
    if (s->all_threads) return all;
    uint64_t b = s->threads;
    if (s->thread > 0 && s->thread <= 64) b |= DAG_THREAD_BIT(s->thread);
    return b & all;
}

/* A scoped task waits in the mailbox of a worker its scope allows; the
   other workers it allows take it from there when they are idle (the
   mailbox's mask says whom it holds work for), so a scope of several
   workers spreads its tasks like an unscoped one. */
static void dag__mail(dag__worker *w, dag__task *t) {
    dag_scope scope = t->extra->scope;   /* once in the mailbox, t may run and be gone */
    uint64_t bits = dag__scope_worker_bits(&scope);
    t->next = NULL;
    dag__mutex_lock(&w->mail_lock);
    if (w->mail_tail) w->mail_tail->next = t;
    else w->mail_head = t;
    w->mail_tail = t;
    atomic_fetch_or_explicit(&w->mail_mask, bits, memory_order_relaxed);
    atomic_fetch_add_explicit(&w->mail_count, 1, memory_order_seq_cst);
    dag__mutex_unlock(&w->mail_lock);
    dag__wake_worker(w);
    if (w->index >= 64 || (bits & ~DAG_THREAD_BIT(w->index + 1))) dag__wake_one_for(&scope);
}

/* Another worker's mailbox: the oldest task that thief may run. */
static dag__task *dag__unmail_for(dag__worker *v, dag__worker *thief) {
    if (!(atomic_load_explicit(&v->mail_mask, memory_order_relaxed) & DAG_THREAD_BIT(thief->index + 1))) return NULL;
    dag__mutex_lock(&v->mail_lock);
    dag__task *prev = NULL, *t = v->mail_head;
    while (t && !dag__scope_allows(&t->extra->scope, thief->index)) {
        prev = t;
        t = t->next;
    }
    if (t) {
        if (prev) prev->next = t->next;
        else v->mail_head = t->next;
        if (v->mail_tail == t) v->mail_tail = prev;
        if (atomic_fetch_sub_explicit(&v->mail_count, 1, memory_order_relaxed) == 1)
            atomic_store_explicit(&v->mail_mask, 0, memory_order_relaxed);
    }
    dag__mutex_unlock(&v->mail_lock);
    return t;
}

static DAG__NOINLINE dag__task *dag__unmail_slow(dag__worker *w);
static inline dag__task *dag__unmail(dag__worker *w) {
    if (DAG__LIKELY(atomic_load_explicit(&w->mail_count, memory_order_acquire) == 0)) return NULL;
    return dag__unmail_slow(w);
}
static DAG__NOINLINE dag__task *dag__unmail_slow(dag__worker *w) {
    dag__mutex_lock(&w->mail_lock);
    dag__task *t = w->mail_head;
    if (t) {
        w->mail_head = t->next;
        if (!w->mail_head) w->mail_tail = NULL;
        if (atomic_fetch_sub_explicit(&w->mail_count, 1, memory_order_relaxed) == 1)
            atomic_store_explicit(&w->mail_mask, 0, memory_order_relaxed);
    }
    dag__mutex_unlock(&w->mail_lock);
    return t;
}

static void dag__heap_push(dag__task *t) {
    dag__mutex_lock(&dag__g.prio_lock);
    if (dag__g.heap_count == dag__g.heap_cap) {
        dag__g.heap_cap = dag__g.heap_cap ? dag__g.heap_cap * 2 : 64;
        dag__g.heap = (dag__task **)dag__xrealloc(dag__g.heap, dag__g.heap_cap * sizeof *dag__g.heap);
    }
    size_t i = dag__g.heap_count++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (dag__g.heap[parent]->extra->priority >= t->extra->priority) break;
        dag__g.heap[i] = dag__g.heap[parent];
        i = parent;
    }
    dag__g.heap[i] = t;
    atomic_fetch_add_explicit(&dag__g.prio_count, 1, memory_order_seq_cst);
    dag__mutex_unlock(&dag__g.prio_lock);
}

/* Takes heap[i] out, the heap kept (under prio_lock). */
static dag__task *dag__heap_take_at(size_t i) {
    dag__task *t = dag__g.heap[i], *last = dag__g.heap[--dag__g.heap_count];
    size_t n = dag__g.heap_count;
    if (i == n) return t;
    while (i > 0 && dag__g.heap[(i - 1) / 2]->extra->priority < last->extra->priority) {   /* up */
        dag__g.heap[i] = dag__g.heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    for (;;) {   /* down */
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && dag__g.heap[c + 1]->extra->priority > dag__g.heap[c]->extra->priority) c++;
        if (dag__g.heap[c]->extra->priority <= last->extra->priority) break;
        dag__g.heap[i] = dag__g.heap[c];
        i = c;
    }
    dag__g.heap[i] = last;
    return t;
}

/* The highest priority task that `ok` accepts (NULL: any). A waiting body
   looks past the top, at the heap's first four levels: its own descendant
   may sit below another body's task, which it may not run. Looking no
   further keeps a wait O(1) (as dag__uninject_under); what it misses,
   threads not waiting run. */
#define DAG__HEAP_LOOK 15
static dag__task *dag__heap_pop_if(dag__task_test ok, const void *arg) {
    if (atomic_load_explicit(&dag__g.prio_count, memory_order_acquire) == 0) return NULL;
    dag__mutex_lock(&dag__g.prio_lock);
    dag__task *top = NULL;
    size_t best = dag__g.heap_count, look = ok ? DAG__HEAP_LOOK : 1;
    for (size_t i = 0; i < dag__g.heap_count && i < look; i++)
        if ((!ok || ok(dag__g.heap[i], arg)) &&
            (best == dag__g.heap_count || dag__g.heap[i]->extra->priority > dag__g.heap[best]->extra->priority))
            best = i;
    if (best < dag__g.heap_count) {
        top = dag__heap_take_at(best);
        atomic_fetch_sub_explicit(&dag__g.prio_count, 1, memory_order_relaxed);
    }
    dag__mutex_unlock(&dag__g.prio_lock);
    return top;
}
static dag__task *dag__heap_pop(void) { return dag__heap_pop_if(NULL, NULL); }

/* The shared queue: tasks of threads outside the pool, at its end; at its
   front what a body running on such a thread spawns, where that body's
   waits look for it (dag__uninject_under looks at the first few only). */
static void dag__inject_at(dag__task *t, bool front) {
    dag__mutex_lock(&dag__g.inject_lock);
    if (front) {
        t->next = dag__g.inject_head;
        dag__g.inject_head = t;
        if (!dag__g.inject_tail) dag__g.inject_tail = t;
    } else {
        t->next = NULL;
        if (dag__g.inject_tail) dag__g.inject_tail->next = t;
        else dag__g.inject_head = t;
        dag__g.inject_tail = t;
    }
    atomic_fetch_add_explicit(&dag__g.inject_count, 1, memory_order_seq_cst);
    dag__mutex_unlock(&dag__g.inject_lock);
}
static void dag__inject(dag__task *t) { dag__inject_at(t, false); }

static dag__task *dag__uninject(void) {
    if (atomic_load_explicit(&dag__g.inject_count, memory_order_acquire) == 0) return NULL;
    dag__mutex_lock(&dag__g.inject_lock);
    dag__task *t = dag__g.inject_head;
    if (t) {
        dag__g.inject_head = t->next;
        if (!dag__g.inject_head) dag__g.inject_tail = NULL;
        atomic_fetch_sub_explicit(&dag__g.inject_count, 1, memory_order_relaxed);
    }
    dag__mutex_unlock(&dag__g.inject_lock);
    return t;
}

/* Scoped tasks go to the mailbox of a worker the scope allows (the current
   one if it may); prioritised tasks to the shared heap; the rest to the
   current worker's deque, where idle workers steal them. */
static void dag__make_ready(dag__worker *w, dag__task *t) {
    dag__extra *x = t->extra;   /* read before the task is published: its body may set it */
    DAG__HB(t);
    if (DAG__UNLIKELY(x && x->has_scope)) {
        const dag_scope *s = &x->scope;
        dag__worker *target = NULL;
        if (w->index >= 0 && dag__scope_allows(s, w->index)) target = w;
        uint64_t start = w->rng++;
        for (int i = 0; !target && i < dag__g.num_workers; i++) {
            int k = (int)((start + (uint64_t)i) % (uint64_t)dag__g.num_workers);
            if (dag__scope_allows(s, k)) target = &dag__g.workers[k];
        }
        DAG_ASSERT(target); /* the spawn checked that some worker fits */
        dag__mail(target, t);
        return;
    }
    if (x && x->priority > 0) {
        dag__heap_push(t);
    } else if (w->index >= 0) {
        dag__deque_push(&w->deque, t);
    } else {
        dag__inject_at(t, dag__tls_ctx && dag__tls_ctx->task && w == dag__tls_worker);
    }
    dag__wake_one();
}

static inline bool dag__bypassable(const dag__task *t) {
    return !(t->flags & DAG__TF_PLACED);
}
/* A task asked to run inline may run on w, placed or not: a priority
   orders the queues, not an inline spawn (whose body may detach: waiting
   for it instead would wait for a fulfilment its spawner makes later). */
static inline bool dag__runs_inline_on(const dag__task *t, const dag__worker *w) {
    return dag__bypassable(t) || !t->extra || !t->extra->has_scope || dag__scope_allows(&t->extra->scope, w->index);
}

/* >>lifecycle: a record lives while someone holds a reference: the runtime
   until it finishes, each dependency-table slot naming it, a sequential step,
   a region keeping its result or its failure, a consumer of its Fut. The
   last reference returns it to its pool and bumps its generation, which
   turns outstanding handles stale. */
static inline bool dag__done(dag__task *t) {
    if (atomic_load_explicit(&t->succ, memory_order_acquire) != DAG__CLOSED) return false;
    DAG__HA(&t->succ);
    return true;
}

static const char *dag__task_name(const dag__task *t) {
    return t->extra && t->extra->name ? t->extra->name : t->desc->name;
}

static dag__extra *dag__extra_of(dag__worker *w, dag__task *t) {
    if (!t->extra) {
        dag__extra *x = (dag__extra *)dag__pool_alloc(&w->extras);
        memset(x, 0, sizeof *x);
        x->home = &w->extras;
        t->extra = x;
    }
    return t->extra;
}

static void dag__decref(dag__worker *w, dag__task *t);
static inline uint64_t dag__trace_id(const dag__task *t) { return t->extra ? t->extra->trace_id : 0; }

/* A finished predecessor's failure cancels a new dependent, until the
   region that held the failure has ended and reported it: after that, the
   memory it touched is the caller's to reuse. */
static inline bool dag__poisons(dag__task *p) {
    return atomic_load_explicit(&p->status, memory_order_relaxed) &&
           !(atomic_load_explicit(&p->ended, memory_order_relaxed) & 1);
}

static void dag__cause_drop(const char *cause);               /* see >>causes */
static void dag__cause_clear(DAG__ATOMIC(const char *) *at);
static DAG__NOINLINE void dag__task_free(dag__worker *w, dag__task *t) {
    uint32_t gen = atomic_load_explicit(&t->gen, memory_order_relaxed) + 1;
    atomic_store_explicit(&t->gen, gen ? gen : 1, memory_order_release);
    if (DAG__UNLIKELY(atomic_load_explicit(&t->failed_dep, memory_order_relaxed) != NULL)) dag__cause_clear(&t->failed_dep);
    dag__extra *x = t->extra;
    if (x) {
        for (int i = 0; x->has_futures && i < DAG__MAX_PARAMS; i++)
            if (x->futures[i]) dag__decref(w, x->futures[i]);   /* cancelled before it ran */
        DAG_FREE(x->heap_args);
        DAG_FREE(x->heap_result);
        DAG_FREE(x->message);
        DAG_FREE(x->name);
        DAG_FREE(x->plan);
        dag__pool_free(x->home, x, &w->extras);
        t->extra = NULL;
    }
    if (t->home) {   /* undeferred records live on a stack */
        DAG__COUNT(w->records_back, 1);
        dag__pool_free(t->home, t, &w->tasks);
    }
}

static inline void dag__decref(dag__worker *w, dag__task *t) {
    DAG__HB(&t->refs);
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
        DAG__HA(&t->refs);
        dag__task_free(w, t);
    }
}

/* Takes a reference only if the record still holds the task of that
   generation. Records are never handed back to the system while the runtime
   runs, so reading a recycled one is safe. */
static bool dag__ref_handle(dag_task h) {
    dag__task *t = h.ptr;
    if (!t || !h.gen || !dag__handle_current(h)) return false;
    if (atomic_load_explicit(&t->gen, memory_order_acquire) != h.gen) return false;
    int32_t r = atomic_load_explicit(&t->refs, memory_order_relaxed);
    do {
        if (r <= 0) return false;
    } while (!atomic_compare_exchange_weak_explicit(&t->refs, &r, r + 1, memory_order_acq_rel, memory_order_relaxed));
    if (atomic_load_explicit(&t->gen, memory_order_acquire) != h.gen) {
        dag__decref(dag__tls_worker, t);
        return false;
    }
    return true;
}

static inline void *dag__args_of(dag__task *t) {
    return t->extra && t->extra->heap_args ? t->extra->heap_args : (void *)t->args;
}
static inline void *dag__result_of(dag__task *t) {
    return t->extra && t->extra->heap_result ? t->extra->heap_result : (void *)t->result;
}

/* >>convert: Val and Fut convert between arithmetic types like a C call. */
typedef union dag__scalar { long long i; unsigned long long u; long double f; } dag__scalar;
enum { DAG__SIGNED, DAG__UNSIGNED, DAG__FLOATING };

static int dag__tag_class(int tag) {
    switch (tag) {
    case 13: case 14: case 15: return DAG__FLOATING;
    case 1: case 4: case 6: case 8: case 10: case 12: return DAG__UNSIGNED;
    case 2: return (char)-1 < 0 ? DAG__SIGNED : DAG__UNSIGNED;
    default: return DAG__SIGNED;
    }
}

static size_t dag__tag_bytes(int tag) {
    switch (tag) {
#define DAG__TAG_BYTES(T, n) case n: return sizeof(T);
    DAG__TYPE_TAGS(DAG__TAG_BYTES)
#undef DAG__TAG_BYTES
    default: return 0;
    }
}
static void dag__load_scalar(int tag, const void *p, dag__scalar *s) {
    int cls = dag__tag_class(tag);
    s->i = 0;
    switch (tag) {
#define DAG__LOAD(T, n) \
    case n: { \
        T v; \
        memcpy(&v, p, sizeof v); \
        if (cls == DAG__FLOATING) s->f = (long double)v; \
        else if (cls == DAG__UNSIGNED) s->u = (unsigned long long)v; \
        else s->i = (long long)v; \
        break; \
    }
    DAG__TYPE_TAGS(DAG__LOAD)
#undef DAG__LOAD
    default: break;
    }
}

/* A floating value for an integer of `bytes` of class cls (not bool), as C would convert one in range:
   outside, C leaves it undefined, and here it is clamped to the range (NaN: 0), as dag_array's integer
   stores do. Returns the bound it stopped at (*clamped), or false: in range, convert it. */
static bool dag__clamp_to_int(long double f, int cls, size_t bytes, long double *clamped) {   /* (bytes: 1, 2, 4 or 8) */
    long double hi = bytes == 1 ? (cls == DAG__UNSIGNED ? UCHAR_MAX : SCHAR_MAX)
                   : bytes == 2 ? (cls == DAG__UNSIGNED ? USHRT_MAX : SHRT_MAX)
                   : bytes == 4 ? (cls == DAG__UNSIGNED ? (long double)UINT_MAX : (long double)INT_MAX)
                                : (cls == DAG__UNSIGNED ? (long double)ULLONG_MAX : (long double)LLONG_MAX);
    long double lo = cls == DAG__UNSIGNED ? 0 : -hi - 1;
    *clamped = f != f ? 0 : f <= lo ? lo : f >= hi ? hi : f;
    return f != f || f <= lo || f >= hi;
}
static void dag__store_scalar(int tag, void *p, int from_class, const dag__scalar *s) {
    long double f = 0;
    if (from_class == DAG__FLOATING) {   /* (integers convert as C converts them: nothing to check) */
        f = s->f;
        int to_class = dag__tag_class(tag);
        if (to_class != DAG__FLOATING && tag != 1 && dag__clamp_to_int(f, to_class, dag__tag_bytes(tag), &f)) {
            dag__scalar bound;   /* as an integer: a long double may hold ULLONG_MAX or LLONG_MAX only rounded up */
            bool wide = dag__tag_bytes(tag) >= sizeof(long long);
            if (to_class == DAG__UNSIGNED) bound.u = f <= 0 ? 0 : wide ? ULLONG_MAX : (unsigned long long)f;
            else bound.i = f == 0 ? 0 : !wide ? (long long)f : f < 0 ? LLONG_MIN : LLONG_MAX;
            dag__store_scalar(tag, p, to_class, &bound);
            return;
        }
        if (to_class == DAG__FLOATING && f == f) {   /* past the target's range: its infinity */
            long double most = dag__tag_bytes(tag) == sizeof(float) ? FLT_MAX : dag__tag_bytes(tag) == sizeof(double) ? DBL_MAX : LDBL_MAX;
            if (f > most) f = (long double)INFINITY;
            if (f < -most) f = -(long double)INFINITY;
        }
    }
    switch (tag) {
#define DAG__STORE(T, n) \
    case n: { \
        T v = from_class == DAG__FLOATING ? (T)f : from_class == DAG__UNSIGNED ? (T)s->u : (T)s->i; \
        memcpy(p, &v, sizeof v); \
        break; \
    }
    DAG__TYPE_TAGS(DAG__STORE)
#undef DAG__STORE
    default: break;
    }
}

/* Copies a value of (src_tag, src_size) into a parameter of (dst_tag,
   dst_size): converted when both are arithmetic, else only if sizes match. */
static bool dag__convert(void *dst, int dst_tag, size_t dst_size, const void *src, int src_tag, size_t src_size) {
    if (dst_tag && src_tag) {
        if (dst_tag == src_tag) memcpy(dst, src, dst_size);
        else {
            dag__scalar v;
            dag__load_scalar(src_tag, src, &v);
            dag__store_scalar(dst_tag, dst, dag__tag_class(src_tag), &v);
        }
        return true;
    }
    if (dst_size != src_size) return false;
    memcpy(dst, src, dst_size);
    return true;
}

/* >>trace recording */
static void dag__trace_task(dag__worker *w, dag__task *t, uint64_t start, uint64_t end, int status) {
    if (!dag__trace_id(t)) return;   /* spawned before tracing was on: it has no node of its own (ids start at 1) */
    dag__mutex_lock(&w->trace_lock);   /* (tracing only) against a reader's dag__for_each_trace */
    if (w->num_events == w->cap_events) {
        w->cap_events = w->cap_events ? w->cap_events * 2 : 1024;
        w->events = (dag__trace_event *)dag__xrealloc(w->events, w->cap_events * sizeof *w->events);
    }
    dag__trace_event *e = &w->events[w->num_events++];
    e->id = dag__trace_id(t);
    e->name = dag__task_name(t);
    e->name_copy = t->extra && t->extra->name ? dag__copy_text(t->extra->name) : NULL;
    if (e->name_copy) e->name = e->name_copy;   /* the trace outlives the task */
    e->worker = w->index >= 0 ? w->index : -1 - w->guest_no;   /* (a guest: -1 - its number) */
    e->start = start;
    e->end = end;
    e->status = status;
    e->processor = 0;
    e->bytes_moved = 0;
    e->placement = NULL;
    dag__plan *p = t->extra ? t->extra->plan : NULL;
    if (p) dag__trace_plan(e, p);
    dag__mutex_unlock(&w->trace_lock);
}

static void dag__trace_add_edge(dag__worker *w, uint64_t from, uint64_t to) {
    if (!from || !to) return;   /* a task spawned before tracing was on is not in the trace */
    dag__mutex_lock(&w->trace_lock);
    if (w->num_trace_edges == w->cap_trace_edges) {
        w->cap_trace_edges = w->cap_trace_edges ? w->cap_trace_edges * 2 : 1024;
        w->trace_edges = (struct dag__trace_edge *)dag__xrealloc(w->trace_edges, w->cap_trace_edges * sizeof *w->trace_edges);
    }
    w->trace_edges[w->num_trace_edges].from = from;
    w->trace_edges[w->num_trace_edges].to = to;
    w->num_trace_edges++;
    dag__mutex_unlock(&w->trace_lock);
}

/* >>region pool: regions are type-stable (recycled, never freed before
   shutdown), because a finishing task may still read one after its count
   reached zero and the waiter moved on. */
static dag__mutex dag__region_lock;
static dag__region *dag__free_regions;
static dag__region **dag__all_regions;
static size_t dag__num_all_regions, dag__cap_all_regions;

/* Each thread keeps a few recycled regions of its own (a task body takes
   one for its children and gives it back when they are done), so the lock
   is taken once per DAG__REGION_BATCH regions, not per body. */
#define DAG__REGION_BATCH 32
/* Whether this thread has its records in the running set-up cycle (else its next call attaches it:
   a thread that outlived a dag_shutdown still points at freed ones) */
static inline bool dag__attached(void) {
    return dag__tls_worker && dag__tls_epoch == __atomic_load_n(&dag__live_epoch, __ATOMIC_RELAXED);
}
/* This thread's worker record, if it belongs to the running set-up. */
static inline dag__worker *dag__region_cache_owner(void) { return dag__attached() ? dag__tls_worker : NULL; }
static dag__region *dag__region_alloc(dag__worker *w) {
    if (w && w->free_regions) {
        dag__region *r = w->free_regions;
        w->free_regions = r->outer;
        w->num_free_regions--;
        return r;
    }
    dag__mutex_lock(&dag__region_lock);
    dag__region *r = dag__free_regions;
    if (r) {
        dag__free_regions = r->outer;
    } else {
        r = (dag__region *)dag__xmalloc_aligned(sizeof *r);
        memset((void *)r, 0, sizeof *r);
        if (dag__num_all_regions == dag__cap_all_regions) {
            dag__cap_all_regions = dag__cap_all_regions ? dag__cap_all_regions * 2 : 64;
            dag__all_regions = (dag__region **)dag__xrealloc(dag__all_regions, dag__cap_all_regions * sizeof(dag__region *));
        }
        dag__all_regions[dag__num_all_regions++] = r;
        DAG__HG_IGNORE(&r->count, sizeof r->count);   /* only ever touched atomically */
        DAG__HG_IGNORE(&r->waiter, sizeof r->waiter);
    }
    dag__mutex_unlock(&dag__region_lock);
    return r;
}

/* A region, reset. Relaxed stores: it reaches other threads only through
   a task's publication, which releases them. */
static dag__region *dag__region_new(int kind) {
    dag__region *r = dag__region_alloc(dag__region_cache_owner());
    atomic_store_explicit(&r->count, DAG__OPEN, memory_order_relaxed);
    atomic_store_explicit(&r->cancelled, 0, memory_order_relaxed);
    atomic_store_explicit(&r->cancel_seen, 0, memory_order_relaxed);
    r->spawned = r->stalled_at = 0;
    atomic_store_explicit(&r->first_error, 0, memory_order_relaxed);
    atomic_store_explicit(&r->first_cancel, 0, memory_order_relaxed);
    atomic_store_explicit(&r->failed, NULL, memory_order_relaxed);
    atomic_store_explicit(&r->failed_count, 0, memory_order_relaxed);
    r->failed_sweep_at = 64;
    atomic_store_explicit(&r->waiter, NULL, memory_order_relaxed);
    atomic_store_explicit(&r->failed_name, NULL, memory_order_relaxed);
    atomic_store_explicit(&r->unseen, 0, memory_order_relaxed);
    r->retained.count = r->prev.count = r->step.count = 0;   /* their arrays stay, for reuse */
    r->owner_task = NULL;
    dag__region_parent(r, NULL);
    r->outer = r->counter = r->seq = r->bulk = NULL;
    if (DAG__UNLIKELY(r->options_set)) memset(&r->options, 0, sizeof r->options);   /* else zero already */
    r->options_set = false;
    r->scoped = false;
    r->plain = true;
    r->kind = kind;
    r->depth = r->serial = r->discard_owner = 0;
    r->spawn_error = 0;
    r->spawn_failures = 0;
    r->inner_error = 0;
    r->cancel = NULL;
    return r;
}

static void dag__region_recycle(dag__region *r) {
    dag__worker *w = dag__region_cache_owner();
    dag__cause_clear(&r->failed_name);
    if (r->cancel) dag__cause_drop(r->cancel);
    r->cancel = NULL;
    if (w && w->num_free_regions < 2 * DAG__REGION_BATCH) {
        r->outer = w->free_regions;
        w->free_regions = r;
        w->num_free_regions++;
        return;
    }
    dag__mutex_lock(&dag__region_lock);
    r->outer = dag__free_regions;
    dag__free_regions = r;
    for (int i = 0; w && i < DAG__REGION_BATCH; i++) {   /* half of this thread's go back too */
        dag__region *x = w->free_regions;
        w->free_regions = x->outer;
        w->num_free_regions--;
        x->outer = dag__free_regions;
        dag__free_regions = x;
    }
    dag__mutex_unlock(&dag__region_lock);
}

/* >>causes: why a task did not run or failed, as "name\0what happened"
   (e.g. "root_task\0failed: Test"); a failed task's failed_dep is its own
   cause, a cancelled dependent's the cause it inherits, so dependents and
   regions repeat the root's own words. A cause is counted: each holder (a
   task record's failed_dep, a region's failed_name and cancel) takes a
   reference when it takes the cause (dag__cause_set, dag__cause_hold) and
   gives it back when it lets go (dag__cause_drop): the last one frees it,
   so a loop whose tasks fail keeps none. dag__cause_new gives its caller
   one reference. The fixed causes below are static text, never counted;
   the list of every live cause frees what is left at dag_shutdown. */
typedef struct dag__cause_node {
    struct dag__cause_node *prev, *next;   /* under dag__cause_lock */
    DAG__ATOMIC(int32_t) refs;
    char text[];
} dag__cause_node;
static dag__mutex dag__cause_lock;
static dag__cause_node *dag__causes;
static size_t dag__num_causes;   /* under the lock: dag_stats' failures_described */
static const char dag__cause_region_ended[] = "a task whose region has ended\0failed";
static const char dag__cause_child_failed[] = "a child task\0failed";
static const char dag__cause_nested_failed[] = "a task in a nested region\0failed";

static const char *dag__cause_new(const char *name, const char *what) {
    size_t n = strlen(name) + 1, m = strlen(what) + 1;
    dag__cause_node *c = (dag__cause_node *)dag__xmalloc(sizeof *c + n + m);
    memcpy(c->text, name, n);
    memcpy(c->text + n, what, m);
    atomic_init(&c->refs, 1);
    dag__mutex_lock(&dag__cause_lock);
    c->prev = NULL;
    c->next = dag__causes;
    if (dag__causes) dag__causes->prev = c;
    dag__causes = c;
    dag__num_causes++;
    dag__mutex_unlock(&dag__cause_lock);
    return c->text;
}
static dag__cause_node *dag__cause_node_of(const char *cause) {
    if (!cause || cause == dag__cause_region_ended || cause == dag__cause_child_failed || cause == dag__cause_nested_failed)
        return NULL;
    return (dag__cause_node *)(void *)((char *)(uintptr_t)cause - offsetof(dag__cause_node, text));
}
static DAG__NOINLINE void dag__cause_hold(const char *cause) {   /* (out of line: spawns test only for a cause) */
    dag__cause_node *c = dag__cause_node_of(cause);
    if (c) atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
}
static void dag__cause_drop(const char *cause) {
    dag__cause_node *c = dag__cause_node_of(cause);
    if (!c || atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1) return;
    dag__mutex_lock(&dag__cause_lock);
    if (c->prev) c->prev->next = c->next;
    else dag__causes = c->next;
    if (c->next) c->next->prev = c->prev;
    dag__num_causes--;
    dag__mutex_unlock(&dag__cause_lock);
    DAG_FREE(c);
}
/* *at takes cause (and a reference) when it holds none; true when it did. The caller keeps cause alive
   meanwhile (its own reference, or the holder it read it from). */
static bool dag__cause_set(DAG__ATOMIC(const char *) *at, const char *cause) {
    const char *none = NULL;
    if (!cause) return false;
    dag__cause_hold(cause);
    if (atomic_compare_exchange_strong(at, &none, cause)) return true;
    dag__cause_drop(cause);
    return false;
}
/* a holder lets go of what it holds */
static void dag__cause_clear(DAG__ATOMIC(const char *) *at) {
    /* (most holders hold none: a load, not a read-modify-write, for them; one set meanwhile comes after) */
    if (atomic_load_explicit(at, memory_order_relaxed)) dag__cause_drop(atomic_exchange_explicit(at, NULL, memory_order_acq_rel));
}
static const char *dag__cause_what(const char *cause) { return cause + strlen(cause) + 1; }

/* For the rank layer (>>mpi seam): a task's failure as its messages carry
   it. dag__task_fail sets what is not set yet, as dag_fail and dag_fulfill
   do, but logs nothing: the rank where it failed has said it. */
static inline const char *dag__task_cause(dag__task *t) { return atomic_load(&t->failed_dep); }
static inline void dag__task_fail(dag__task *t, int status, const char *cause) {
    int32_t ok = 0;
    dag__cause_set(&t->failed_dep, cause);
    if (status) atomic_compare_exchange_strong(&t->status, &ok, (int32_t)status);
}
static inline const char *dag__handle_cause(dag_task h) {
    const char *cause = NULL;
    if (h.ptr && dag__ref_handle(h)) {
        cause = dag__task_cause(h.ptr);
        dag__cause_hold(cause);   /* the caller's, past the record's end */
        dag__decref(dag__tls_worker, h.ptr);
    }
    return cause;
}

static inline bool dag__result_hold(dag_task h) { return h.ptr && dag__ref_handle(h); }
static inline void dag__result_unhold(dag_task h) { dag__decref(dag__tls_worker, h.ptr); }

/* A task that failed by itself: its cause, from its status and dag_fail's words. */
static const char *dag__own_cause(dag__task *t, int status) {
    char what[600];
    if (status == DAG_ERR_CANCELLED) snprintf(what, sizeof what, "was cancelled");
    else if (t->extra && t->extra->message) snprintf(what, sizeof what, "failed: %s", t->extra->message);
    else snprintf(what, sizeof what, "failed (%s)", dag_result_string(status));
    return dag__cause_new(dag__task_name(t), what);
}

static void dag__region_record_failure(dag__region *r, dag__task *t, int status) {
    int32_t none = 0;
    if (!atomic_load(&t->failed_dep)) {
        const char *own = dag__own_cause(t, status);
        dag__cause_set(&t->failed_dep, own);
        dag__cause_drop(own);
    }
    const char *cause = atomic_load(&t->failed_dep);   /* t holds it while it is here */
    if (status == DAG_ERR_DEPENDENCY_FAILED) atomic_compare_exchange_strong(&r->first_cancel, &none, status);
    else atomic_compare_exchange_strong(&r->first_error, &none, status);
    dag__cause_set(&r->failed_name, cause);   /* the first failure's, whichever kind */
    atomic_store_explicit(&t->seen, 0, memory_order_relaxed);   /* before anyone can wait for t */
    atomic_fetch_add_explicit(&r->unseen, 1, memory_order_relaxed);
    /* keep the failed task so dag_wait and dag_task_message can report it */
    atomic_fetch_and_explicit(&t->ended, 2, memory_order_relaxed);
    atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->failed_count, 1, memory_order_relaxed);
    dag__task *head = atomic_load_explicit(&r->failed, memory_order_relaxed);
    do {
        t->next = head;
        DAG__HB(&r->failed);
    } while (!atomic_compare_exchange_weak_explicit(&r->failed, &head, t, memory_order_release, memory_order_relaxed));
}

/* A body told of its child's failure by dag_wait, dag_fetch or
   dag_task_result (s, t's own status) has handled it: that failure no
   longer fails the body's task (dag__finish_root). Only the body that
   spawned t counts it, on its own thread, so t's region is alive. */
static DAG__NOINLINE void dag__failure_seen(dag__task *t, int s) {
    dag__context *ctx = dag__tls_ctx;
    if (!ctx || !ctx->task || !ctx->root || t->region != ctx->root || s != atomic_load(&t->status)) return;
    if (!atomic_exchange(&t->seen, 1)) atomic_fetch_sub(&ctx->root->unseen, 1);
}

static int dag__region_error(dag__region *r) {
    int e = atomic_load(&r->first_error);
    if (!e) e = atomic_load(&r->first_cancel);
    if (!e) e = r->spawn_error;
    return e;
}

/* >>kept results: a finished task's result outlives its record and its
   region. When the region ends (or dag_wait_all, or the body that spawned
   the task ends), each result not dropped (dag_release, discard_results)
   moves into a block of its own: the result's bytes (or its failure code)
   behind a 24-byte header, in a hash table keyed by the record's address
   and generation, which is what a handle holds. The record is recycled as
   ever; a fetch whose record moved on finds the block. */
typedef struct dag__kept {
    struct dag__kept *next;
    uintptr_t key;            /* the record's address; its low 6 bits (records are
                                 64-byte aligned): the result's type tag, and 32 if it failed */
    uint32_t gen;
    uint32_t size : 30;       /* the result's bytes (an int status if it failed) */
    uint32_t keep : 1;        /* keep_results: dag_fetch leaves it */
    uint32_t pointer : 1;     /* the result is a pointer (Fut passes it only into a pointer) */
    unsigned char bytes[];
} dag__kept;
enum { DAG__KEPT_FAILED = 32, DAG__KEPT_TAG = 31 };

static size_t dag__kept_bucket(uintptr_t record, uint32_t gen, size_t n) {
    uint64_t h = ((uint64_t)record >> 6) * 0x9E3779B97F4A7C15ull ^ gen;
    return (size_t)(h ^ (h >> 29)) & (n - 1);
}

/* What dag_task_message says of a finished task that failed with s; returns the length written. */
static size_t dag__failure_words(const dag__task *t, int s, char *buf, size_t size) {
    const char *cause = atomic_load(&((dag__task *)(uintptr_t)t)->failed_dep);
    int n;
    if (cause && s == DAG_ERR_DEPENDENCY_FAILED)
        n = snprintf(buf, size, "dependency failed: task '%s' %s", cause, dag__cause_what(cause));
    else if (cause)
        n = snprintf(buf, size, "task '%s' %s", cause, dag__cause_what(cause));
    else
        n = snprintf(buf, size, "task '%s': %s", dag__task_name(t), dag_result_string(s));
    return n < 0 ? (buf[0] = 0, 0) : (size_t)n < size ? (size_t)n : size - 1;
}

static void dag__keep(dag__task *t) {
    int status = atomic_load_explicit(&t->status, memory_order_relaxed);
    char words[640];   /* a failure keeps its words for dag_task_message, after its code */
    size_t said = status ? dag__failure_words(t, status, words, sizeof words) + 1 : 0;
    uint32_t size = status ? (uint32_t)(sizeof(int) + said) : (uint32_t)t->desc->result_size;
    dag__kept *k = (dag__kept *)dag__xmalloc(sizeof *k + size);
    k->key = (uintptr_t)t | (uintptr_t)(t->desc->result_tag & DAG__KEPT_TAG) | (status ? DAG__KEPT_FAILED : 0);
    k->gen = atomic_load_explicit(&t->gen, memory_order_relaxed);
    k->size = size & 0x3fffffffu;
    k->keep = (t->flags & DAG__TF_KEEP) != 0;
    k->pointer = t->desc->result_pointee != 0;
    if (status) memcpy(k->bytes, &status, sizeof status), memcpy(k->bytes + sizeof status, words, said);
    else memcpy(k->bytes, dag__result_of(t), size);
    dag__mutex_lock(&dag__g.kept_lock);
    if (dag__g.kept_count >= 2 * dag__g.kept_buckets_n) {   /* grow: a bucket word per one or two results */
        size_t n = dag__g.kept_buckets_n ? dag__g.kept_buckets_n * 2 : 64;
        dag__kept **b = (dag__kept **)dag__xmalloc(n * sizeof *b);
        memset(b, 0, n * sizeof *b);
        for (size_t i = 0; i < dag__g.kept_buckets_n; i++)
            for (dag__kept *e = dag__g.kept_buckets[i], *next; e; e = next) {
                next = e->next;
                size_t j = dag__kept_bucket(e->key & ~(uintptr_t)63, e->gen, n);
                e->next = b[j];
                b[j] = e;
            }
        DAG_FREE(dag__g.kept_buckets);
        dag__g.kept_buckets = b;
        dag__g.kept_buckets_n = n;
    }
    size_t j = dag__kept_bucket((uintptr_t)t, k->gen, dag__g.kept_buckets_n);
    k->next = dag__g.kept_buckets[j];
    dag__g.kept_buckets[j] = k;
    dag__g.kept_count++;
    dag__g.kept_bytes += sizeof *k + size;
    dag__mutex_unlock(&dag__g.kept_lock);
}

/* What a kept result says, copied out under the lock, and then left
   (DAG__KEPT_READ), removed (DAG__KEPT_DROP: dag_release), or removed when
   it was a value fetched whole without keep_results (DAG__KEPT_TAKE:
   dag_fetch). Returns false when the handle's result is not kept. */
typedef struct dag__kept_view { int status, tag; uint32_t size, keep, pointer; } dag__kept_view;
enum { DAG__KEPT_READ, DAG__KEPT_DROP, DAG__KEPT_TAKE };
static bool dag__kept_read(dag_task h, dag__kept_view *v, void *out, size_t out_size, int how) {
    if (!h.ptr || !dag__handle_current(h)) return false;
    bool found = false;
    dag__mutex_lock(&dag__g.kept_lock);
    if (dag__g.kept_buckets_n) {
        dag__kept **at = &dag__g.kept_buckets[dag__kept_bucket((uintptr_t)h.ptr, h.gen, dag__g.kept_buckets_n)];
        while (*at && !(((*at)->key & ~(uintptr_t)63) == (uintptr_t)h.ptr && (*at)->gen == h.gen)) at = &(*at)->next;
        dag__kept *k = *at;
        if (k) {
            found = true;
            v->tag = (int)(k->key & DAG__KEPT_TAG);
            v->size = k->size;
            v->keep = k->keep;
            v->pointer = k->pointer;
            v->status = 0;
            if (k->key & DAG__KEPT_FAILED) {   /* its code, and its words for an out buffer */
                memcpy(&v->status, k->bytes, sizeof v->status);
                if (out && out_size) snprintf((char *)out, out_size, "%s", (const char *)k->bytes + sizeof v->status);
            } else if (out && out_size <= k->size) {
                memcpy(out, k->bytes, out_size);
            }
            if (how == DAG__KEPT_DROP || (how == DAG__KEPT_TAKE && !v->status && !k->keep && out && out_size == k->size)) {
                *at = k->next;
                dag__g.kept_count--;
                dag__g.kept_bytes -= sizeof *k + k->size;
                DAG_FREE(k);
                if (!dag__g.kept_count) {   /* none left: nothing stays held */
                    DAG_FREE(dag__g.kept_buckets);
                    dag__g.kept_buckets = NULL;
                    dag__g.kept_buckets_n = 0;
                }
            }
        }
    }
    dag__mutex_unlock(&dag__g.kept_lock);
    return found;
}

static void dag__kept_free_all(void) {
    for (size_t i = 0; i < dag__g.kept_buckets_n; i++)
        for (dag__kept *e = dag__g.kept_buckets[i], *next; e; e = next) {
            next = e->next;
            DAG_FREE(e);
        }
    DAG_FREE(dag__g.kept_buckets);
    dag__g.kept_buckets = NULL;
    dag__g.kept_buckets_n = dag__g.kept_count = dag__g.kept_bytes = 0;
}

/* A region holds each task with a result (a reference in `retained`) until
   the task's result is fetched or released, or the region ends. A fetch or
   release made by the spawning context right after its spawns (fork-join,
   and spawn-then-fetch loops) takes the task off the list at once, so the
   list stays short without a region end. Each record knows its place in
   the list (retained_at), so finding it costs the same in whatever order
   the fetches come. Tasks fetched elsewhere (another body, another thread)
   are marked (ended & 2), and the list sweeps them out whenever it is full,
   with finished results moved to kept blocks: a root region that never
   ends stays bounded. */
static inline void dag__retained_put(dag__task_list *l, size_t i, dag__task *t) {
    l->items[i] = t;
    atomic_store_explicit(&t->retained_at, (uint32_t)i, memory_order_relaxed);
}
static DAG__HOT dag__task *dag__retained_take(dag__context *ctx, dag_task h, size_t result_size, int tag, bool fetching) {
    dag__region *r = ctx->top;
    if (!r || !dag__handle_current(h)) return NULL;
    dag__task_list *l = &r->counter->retained;
    /* a record of this set-up cycle (the handle's is), maybe another task's by now: only a list entry
       that is the record itself says the list holds it */
    size_t i = atomic_load_explicit(&h.ptr->retained_at, memory_order_relaxed);
    if (i >= l->count || l->items[i] != h.ptr) return NULL;
    dag__task *t = h.ptr;
    /* the list holds t: its generation and fields are its own */
    if (atomic_load_explicit(&t->gen, memory_order_relaxed) != h.gen ||
        (fetching && ((t->flags & DAG__TF_KEEP) || t->desc->result_size != result_size ||
                      dag__kinds_differ(tag, t->desc->result_tag))))
        return NULL;
    l->count--;
    if (i < l->count) dag__retained_put(l, i, l->items[l->count]);
    if (atomic_load_explicit(&t->ended, memory_order_relaxed) & 2) {   /* spent elsewhere: nothing to take */
        dag__decref(dag__tls_worker, t);
        return NULL;
    }
    return t;
}

/* t's region lets go of it: its result kept when asked (finished fine, not fetched when looked at), then
   the mark that sends later fetches to the copy; a fetch that took the result between the look and the
   mark (ended & 2) drops the copy again, as one after the mark does. */
static dag_task dag__handle(dag__task *t, uint32_t gen, bool has_result);
static void dag__retained_end(dag__task *t, bool keep) {
    if (keep) dag__keep(t);
    int before = atomic_fetch_or_explicit(&t->ended, 1, memory_order_acq_rel);
    if (keep && (before & 2)) {
        dag__kept_view v;
        dag__kept_read(dag__handle(t, atomic_load_explicit(&t->gen, memory_order_relaxed), 1), &v, NULL, 0, DAG__KEPT_DROP);
    }
}

static DAG__NOINLINE void dag__retained_sweep(dag__worker *w, dag__region *r) {
    dag__task_list *l = &r->retained;
    size_t kept = 0;
    for (size_t i = 0; i < l->count; i++) {
        dag__task *t = l->items[i];
        int ended = atomic_load_explicit(&t->ended, memory_order_acquire);
        bool done_fine = !(t->flags & DAG__TF_DISCARD) && dag__done(t) && !atomic_load(&t->status);
        if (!(ended & 2) && !done_fine) {
            dag__retained_put(l, kept++, t);
            continue;
        }
        if (!(ended & 2)) dag__retained_end(t, true);   /* finished, nobody fetched it yet: its result alone stays */
        dag__decref(w, t);
    }
    l->count = kept;
}

static inline void dag__retain(dag__worker *w, dag__region *r, dag__task *t) {
    if (DAG__UNLIKELY(r->retained.count == r->retained.cap && r->retained.count >= 64)) dag__retained_sweep(w, r);
    dag__list_push(&r->retained, t);
    atomic_store_explicit(&t->retained_at, (uint32_t)(r->retained.count - 1), memory_order_relaxed);
}

/* Drops what the region held for dag_fetch and dag_wait. */
static void dag__region_release(dag__worker *w, dag__region *r) {
    for (size_t i = 0; i < r->retained.count; i++) {
        dag__task *t = r->retained.items[i];
        dag__retained_end(t, !(t->flags & DAG__TF_DISCARD) && !(atomic_load_explicit(&t->ended, memory_order_relaxed) & 2) &&
                                 dag__done(t));
        dag__decref(w, t);
    }
    r->retained.count = 0;
    for (size_t i = 0; i < r->prev.count; i++) dag__decref(w, r->prev.items[i]);
    r->prev.count = 0;
    for (size_t i = 0; i < r->step.count; i++) dag__decref(w, r->step.items[i]);
    r->step.count = 0;
    dag__task *f = atomic_load_explicit(&r->failed, memory_order_acquire) ? atomic_exchange(&r->failed, NULL) : NULL;
    DAG__HA(&r->failed);
    while (f) {
        dag__task *n = f->next;
        atomic_store_explicit(&f->ended, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&r->failed_count, 1, memory_order_relaxed);
        dag__decref(w, f);
        f = n;
    }
}

/* A region that never ends (the program's own, a long body's) would hold
   every failed task: its owner lets go of those whose handles are spent
   (fetched and released: nothing can ask them any more), now and then
   (dag__backpressure's turn), keeping the others. */
static DAG__NOINLINE void dag__failed_sweep(dag__worker *w, dag__region *r);
/* the owner's turn to sweep, when more failures are held than at the last sweep allowed */
static inline void dag__failed_sweep_if_due(dag__worker *w, dag__region *r) {
    if (DAG__UNLIKELY(atomic_load_explicit(&r->failed_count, memory_order_relaxed) > r->failed_sweep_at)) dag__failed_sweep(w, r);
}
static DAG__NOINLINE void dag__failed_sweep(dag__worker *w, dag__region *r) {
    dag__task *f = atomic_exchange(&r->failed, NULL), *keep = NULL, *last = NULL;
    DAG__HA(&r->failed);
    int64_t kept = 0;
    while (f) {
        dag__task *n = f->next;
        if (atomic_load_explicit(&f->ended, memory_order_acquire) & 2) {
            atomic_fetch_sub_explicit(&r->failed_count, 1, memory_order_relaxed);
            dag__decref(w, f);
        } else {
            if (!keep) last = f;
            f->next = keep;
            keep = f;
            kept++;
        }
        f = n;
    }
    if (keep) {   /* back in front of what failed meanwhile */
        dag__task *head = atomic_load_explicit(&r->failed, memory_order_relaxed);
        do {
            last->next = head;
            DAG__HB(&r->failed);
        } while (!atomic_compare_exchange_weak_explicit(&r->failed, &head, keep, memory_order_release, memory_order_relaxed));
    }
    r->failed_sweep_at = 2 * kept + 64;
}

/* >>execute */
/* Whether a cancel reaches region r's tasks: r's own (dag_region_cancel,
   dag_cancel_siblings), an enclosing block's, or that of the task whose body
   r belongs to, and so on up: a cancelled task or block stops its whole
   subtree, as TBB's nested groups and OpenMP's taskgroups do. The answer is
   kept in each region on the way for the current cancel generation, so a
   deep recursion walks its ancestors once per cancel made, not per task.
   Every region and task on the way is an ancestor of a live task: none has
   ended. */
static inline dag__region *dag__cancel_up(dag__region *x, bool *yes) {
    dag__task *p = x->outer ? NULL : x->parent;
    if (atomic_load_explicit(&x->counter->cancelled, memory_order_relaxed) ||
        (p && atomic_load_explicit(&p->cancel, memory_order_relaxed))) {
        *yes = true;
        return DAG__NULL;
    }
    return x->outer ? x->outer : p ? p->region : DAG__NULL;
}
static DAG__NOINLINE bool dag__cancel_reaches(dag__region *r) {
    uint64_t gen = atomic_load_explicit(&dag__g.cancel_gen, memory_order_acquire);
    bool yes = false;
    dag__region *stop = r;
    for (; stop; stop = dag__cancel_up(stop, &yes)) {
        uint64_t seen = atomic_load_explicit(&stop->cancel_seen, memory_order_relaxed);
        if (seen >> 1 == gen) {
            yes = seen & 1;
            break;
        }
    }
    bool unused;
    for (dag__region *x = r; x != stop; x = dag__cancel_up(x, &unused))
        atomic_store_explicit(&x->cancel_seen, gen << 1 | (uint64_t)yes, memory_order_relaxed);
    return yes;
}
/* Regions are looked at only once some cancel was made: a region's first
   line is written by every finishing task, and the generation's by nobody. */
static inline bool dag__cancel_asked(dag__task *t) {
    return atomic_load_explicit(&t->cancel, memory_order_relaxed) ||
           (DAG__UNLIKELY(atomic_load_explicit(&dag__g.cancel_gen, memory_order_relaxed)) && t->region &&
            dag__cancel_reaches(t->region));
}
static void dag__cancel_made(void) { atomic_fetch_add(&dag__g.cancel_gen, 1); }

static bool dag__end_body(dag__worker *w, dag__context *ctx);
static void dag__finish_root(dag__worker *w, dag__task *t);
/* A body run inside its spawn without a region gets it now (see dag__inline_region) */
static dag__region *dag__inline_region(dag__worker *w, dag__context *spawner, dag__task *t);
static inline void dag__body_region(dag__worker *w, dag__context *ctx) {
    if (DAG__UNLIKELY(ctx && ctx->task && (ctx->task->flags & DAG__TF_NO_REGION))) dag__inline_region(w, ctx->spawner, ctx->task);
}

/* Runs t's body in a context of its own (what it spawns goes into regions
   of its own). Returns true when the task is finished now; false when tasks
   it spawned still run (the last of them finishes it). */
/* (inherited: the options t's body inherits, from its extra; NULL: none) */
static inline bool dag__run_body(dag__worker *w, dag__task *t, const dag_options *inherited, void *args, void *result,
                                 int tracing, uint64_t start) {
    dag__context ctx;
    ctx.task = t;
    ctx.domain = NULL;
    ctx.root = ctx.top = NULL;
    ctx.depth = ctx.serial = 0;
    ctx.base = inherited;   /* not copied: every task runs this */
    ctx.next_guest = NULL;
    ctx.events = NULL;
    ctx.detached = false;
    ctx.deque_mark = w->index >= 0 ? atomic_load_explicit(&w->deque.bottom, memory_order_relaxed) : 0;
    dag__context *saved = dag__tls_ctx;
    ctx.spawner = saved;
    dag__tls_ctx = &ctx;
    t->desc->run(args, result);
    dag__tls_ctx = saved;
    /* traced before end_body: once it returns false, the last child may
       finish and recycle t on another thread */
    if (tracing) dag__trace_task(w, t, start, dag__now_ns(), atomic_load(&t->status));
    /* most bodies (leaves) opened no region, spawned nothing, detached nothing */
    if (DAG__LIKELY(!ctx.top && !ctx.domain && !ctx.events)) return true;
    return dag__end_body(w, &ctx);
}

/* Runs the body, unless the task was cancelled or what it depends on
   failed, after giving it its futures' values and, for a device task, its
   data (dag__run_body's return). */
static DAG__HOT bool dag__execute(dag__worker *w, dag__task *t) {
    int tracing = atomic_load_explicit(&dag__g.tracing, memory_order_relaxed);
    uint64_t start = tracing ? dag__now_ns() : 0;
    /* dag_cancel sets failed_dep too (to the task's own cause), so one test
       covers both until some region is cancelled */
    if (DAG__UNLIKELY(atomic_load_explicit(&t->failed_dep, memory_order_acquire) ||
                      atomic_load_explicit(&dag__g.cancel_gen, memory_order_relaxed)) &&
        (atomic_load_explicit(&t->failed_dep, memory_order_acquire) || dag__cancel_asked(t)) &&
        !(t->flags & DAG__TF_ALWAYS_RUNS)) {
        int s = dag__cancel_asked(t) ? DAG_ERR_CANCELLED : DAG_ERR_DEPENDENCY_FAILED;
        atomic_store_explicit(&t->status, s, memory_order_relaxed);
        if (tracing) dag__trace_task(w, t, start, start, s);
        return true;
    }
    void *args = dag__args_of(t);
    dag__extra *x = t->extra;
    if (DAG__UNLIKELY(x && x->has_futures)) {
        for (int i = 0; i < t->desc->num_params; i++) {
            dag__task *p = x->futures[i];
            if (!p) continue;
            const dag__param *pa = &t->desc->params[i];
            dag__convert((unsigned char *)args + pa->offset, (int)pa->tag, pa->size, dag__result_of(p),
                         p->desc->result_tag, p->desc->result_size);
            x->futures[i] = NULL;
            dag__decref(w, p);
        }
    }
    if (DAG__UNLIKELY(x && x->plan) && dag__device_prepare(w, t)) {
        int s = atomic_load(&t->status);
        if (!s || !(t->flags & DAG__TF_ALWAYS_RUNS)) {
            if (tracing) dag__trace_task(w, t, start, dag__now_ns(), s);
            return true;   /* queued on a device, or failed */
        }
        /* failed (its data could not come home), but it must run: the rank layer's messages, which
           another rank waits for. Its body runs with that failure as its input's, and tells it. */
        const char *own = dag__own_cause(t, s);
        dag__cause_set(&t->failed_dep, own);
        dag__cause_drop(own);
    }
    x = t->extra;
    return dag__run_body(w, t, x && x->has_options ? &x->inherited : NULL, args, dag__result_of(t), tracing, start);
}

/* One task counted in r is over (or one detached event fulfilled, see
   >>detach): wakes a thread draining r at 0; returns r's owner task when
   its body has ended and this was the last (the caller finishes it). */
static inline dag__task *dag__child_done(dag__region *r) {
    DAG__HB(&r->count);
    int64_t left = atomic_fetch_sub_explicit(&r->count, 1, memory_order_seq_cst) - 1;
    if (DAG__UNLIKELY(left == 0)) {
        dag__worker *waiter = atomic_load_explicit(&r->waiter, memory_order_seq_cst);
        if (waiter) dag__wake_worker(waiter);
    } else if (DAG__UNLIKELY(left == DAG__OWNER)) {
        DAG__HA(&r->count);
        return r->owner_task;
    }
    return NULL;
}

/* Finishes t: records a failure, releases its successors (the first ready
   one comes back to run next on this thread), counts it off its region and,
   when it was the last child of a task whose body has ended, finishes that
   task as well, iteratively, so deep nesting needs no stack. */
static DAG__HOT dag__task *dag__complete(dag__worker *w, dag__task *t) {
    dag__task *bypass = NULL;
    for (;;) {
        int status = atomic_load_explicit(&t->status, memory_order_relaxed);
        dag__region *r = t->region;
        const char *root_cause = NULL;
        if (DAG__UNLIKELY(t->extra && t->extra->plan)) dag__plan_finished(t->extra->plan);
        if (DAG__UNLIKELY(status)) {
            dag__region_record_failure(r, t, status);
            root_cause = atomic_load(&t->failed_dep);
        }
        DAG__HB(&t->succ);
        dag__edge *e = atomic_exchange_explicit(&t->succ, DAG__CLOSED, memory_order_seq_cst);
        DAG__HA(&t->succ);
        while (e) {
            dag__task *s = e->succ;
            dag__edge *n = e->next;
            if (DAG__UNLIKELY(root_cause)) dag__cause_set(&s->failed_dep, root_cause);
            DAG__HB(&s->pending);
            if (atomic_fetch_sub_explicit(&s->pending, 1, memory_order_acq_rel) == 1) {
                DAG__HA(&s->pending);
                if (!bypass && dag__bypassable(s)) bypass = s;
                else dag__make_ready(w, s);
            }
            dag__pool_free(e->home, e, &w->edges);
            e = n;
        }
        if (DAG__UNLIKELY(atomic_load_explicit(&t->waiters, memory_order_seq_cst))) dag__wake_waiters(t);
        dag__task *owner = dag__child_done(r);
        dag__decref(w, t);
        if (!owner) break;
        dag__finish_root(w, owner);
        t = owner;
    }
    if (bypass && DAG__UNLIKELY(atomic_load_explicit(&dag__g.prio_count, memory_order_relaxed))) {
        dag__make_ready(w, bypass);   /* a prioritised task is ready: it goes first (dag__find_work looks there first) */
        bypass = NULL;
    }
    return bypass;
}

static void dag__run(dag__worker *w, dag__task *t) {
    DAG__HA(t);
    while (t) {
        DAG__COUNT(w->run, 1);
        if (!dag__execute(w, t)) break;
        t = dag__complete(w, t);
    }
}

/* A task its spawn runs at once (run_inline through the spawn's general
   way). One that detaches, spawned by a body itself run inside its spawn,
   counts as one more of that body's events, not in its root: the body's
   end must not wait for a fulfilment that may come once its spawn has
   returned (dag__end_body moves it, before anything can finish it). */
static DAG__NOINLINE void dag__run_spawned(dag__worker *w, dag__task *t) {
    DAG__COUNT(w->run, 1);
    dag__context *ctx = dag__tls_ctx;
    bool finished;
    if (DAG__UNLIKELY(ctx->task && (ctx->task->flags & DAG__TF_UNDEFERRED))) {
        dag__context *saved = dag__tls_inline_spawner;   /* (an outer one's root is no region of t's) */
        dag__tls_inline_spawner = ctx;
        finished = dag__execute(w, t);
        dag__tls_inline_spawner = saved;
    } else {
        finished = dag__execute(w, t);
    }
    if (finished) dag__run(w, dag__complete(w, t));
}

/* >>find work */
static inline uint64_t dag__worker_bit(const dag__worker *w) {
    return w->index >= 0 && w->index < 64 && w->index < dag__g.num_workers ? DAG_THREAD_BIT(w->index + 1) : 0;
}

static bool dag__work_visible(dag__worker *w) {
    if (w->index >= 0 && atomic_load(&w->mail_count)) return true;
    if (atomic_load_explicit(&w->blocked, memory_order_relaxed)) return false;   /* a reserve thread takes its work */
    /* a thread waiting inside a task leaves the shared queue to the others */
    if (atomic_load(&dag__g.prio_count) || (!w->isolate && atomic_load(&dag__g.inject_count))) return true;
    uint64_t bit = dag__worker_bit(w);
    int n = dag__slots();
    for (int i = 0; i < n; i++) {
        if (dag__deque_size(&dag__g.workers[i].deque) > 0) return true;
        if (atomic_load_explicit(&dag__g.workers[i].mail_mask, memory_order_relaxed) & bit) return true;
    }
    return false;
}

static dag__task *dag__find_any(dag__worker *w) {
    dag__task *t;
    if (w->index >= 0) {
        if ((t = dag__unmail(w))) return t;
        if ((t = dag__heap_pop())) return t;
        if ((t = dag__deque_take(&w->deque))) return t;
    } else if ((t = dag__heap_pop())) {
        return t;
    }
    if ((t = dag__uninject())) return t;
    int n = dag__slots();
    if (dag__worker_bit(w))   /* scoped tasks other workers hold for this one too */
        for (int i = 0; i < dag__g.num_workers; i++)
            if (&dag__g.workers[i] != w && (t = dag__unmail_for(&dag__g.workers[i], w))) return t;
    if (DAG__UNLIKELY(w->steal_pause_ns) && dag__now_ns() < w->steal_after) return NULL;
    if (n > 1 || w->index < 0) {
        w->rng ^= w->rng << 13; w->rng ^= w->rng >> 7; w->rng ^= w->rng << 17;
        int start = (int)(w->rng % (uint64_t)n);
        for (int i = 0; i < n; i++) {
            dag__worker *v = &dag__g.workers[(start + i) % n];
            if (v == w) continue;
            /* a victim far ahead (its deque half full) runs its tasks itself
               once the deque fills: see dag__run_found */
            bool far_ahead = dag__deque_size(&v->deque) >= dag__g.throttle / 2;
            if ((t = dag__deque_steal(&v->deque))) {
                DAG__COUNT(w->stolen, 1);
                w->just_stole = far_ahead ? 2 : 1;
                return t;
            }
        }
    }
    return NULL;
}

/* Was t spawned, directly or through its ancestors, by the body of s?
   The walk goes up from t no higher than s's level, so it costs the
   levels between them, whatever the depth of the tree. It reads only
   atomic fields: a task not yet taken from a queue may be finished and
   its record used again meanwhile, and then the answer is only a hint
   (the caller asks again once it holds the task; a held task's ancestors
   are all alive: a task finishes after its children). */
static inline bool dag__descends(const dag__task *t, const dag__task *s, bool held) {
    uint32_t floor = atomic_load_explicit(&s->level, memory_order_relaxed);
    for (dag__task *link = atomic_load_explicit(&t->parent, memory_order_relaxed), *p; link;
         link = atomic_load_explicit(&p->parent, memory_order_relaxed)) {
        p = dag__parent_of(link);
        if (p == s) return true;
        if ((!held && dag__parent_on_stack(link)) || atomic_load_explicit(&p->level, memory_order_relaxed) <= floor)
            return false;
    }
    return false;
}
static bool dag__descends_from(const dag__task *t, const void *waiting) {
    return dag__descends(t, (const dag__task *)waiting, true);
}
/* The same asked of a task in another thread's deque before the thief
   holds it: its record may be finished and used again meanwhile, and a
   parent on a stack may be a frame that has returned (its thread even
   gone), so the walk stops there. Pooled records stay mapped for the
   set-up's life: anything read of them is a hint, never a fault. What
   lies below a task run on its spawner's stack is left to its owner. */
static bool dag__may_descend_from(const dag__task *t, const void *waiting) {
    return dag__descends(t, (const dag__task *)waiting, false);
}

/* A task s spawned (directly or not) among the first few of the shared
   queue: those are tasks threads outside the pool made ready. Looking no
   further keeps a wait O(1); what it misses, threads not waiting run. */
#define DAG__INJECT_LOOK 8
static dag__task *dag__uninject_under(dag__task *s) {
    if (atomic_load_explicit(&dag__g.inject_count, memory_order_acquire) == 0) return NULL;
    dag__mutex_lock(&dag__g.inject_lock);
    dag__task *prev = NULL, *t = dag__g.inject_head;
    for (int looked = 0; t && !dag__descends_from(t, s); looked++) {
        if (looked == DAG__INJECT_LOOK) t = NULL;
        else prev = t, t = t->next;
    }
    if (t) {
        if (prev) prev->next = t->next;
        else dag__g.inject_head = t->next;
        if (dag__g.inject_tail == t) dag__g.inject_tail = prev;
        atomic_fetch_sub_explicit(&dag__g.inject_count, 1, memory_order_relaxed);
    }
    dag__mutex_unlock(&dag__g.inject_lock);
    return t;
}

/* Work for a waiting thread. A thread that waits inside the body of task S
   runs only tasks S spawned, directly or not: running an unrelated task B
   on top of S's frame would deadlock if B waits for S (OpenMP's task
   scheduling constraint). Where it looks, each look O(1):
   - its own deque above S's mark: what this thread pushed since S began,
     S's descendants all but always (a task whose Fut producer finished
     here is the exception: it goes to the shared queue for others);
   - the top of the priority heap, the first few of the shared queue, and
     the oldest task of each other deque, each taken only if below S.
   When it finds nothing it may run, it blocks and a reserve thread runs in
   its place (see >>helping). */
static dag__task *dag__find_work(dag__worker *w) {
    dag__task *s = w->isolate;
    if (DAG__LIKELY(!s)) return dag__find_any(w);
    dag__task *t;
    if (w->index >= 0) {
        if ((t = dag__unmail(w))) return t;   /* pinned to this thread: it can run nowhere else */
        if (atomic_load_explicit(&w->deque.bottom, memory_order_relaxed) > w->isolate_mark &&
            (t = dag__deque_take(&w->deque))) {
            if (dag__descends_from(t, s)) return t;
            dag__inject(t);
            dag__wake_one();
        }
    }
    if ((t = dag__heap_pop_if(dag__descends_from, s)) || (t = dag__uninject_under(s))) {
        if (dag__descends_from(t, s)) return t;
        dag__inject(t);   /* its record changed hands between the look and the take */
        dag__wake_one();
        return NULL;
    }
    int n = dag__slots();
    for (int i = 0; i < n; i++) {
        dag__worker *v = &dag__g.workers[i];
        if (v == w || !(t = dag__deque_steal_if(&v->deque, dag__may_descend_from, s))) continue;
        DAG__COUNT(w->stolen, 1);
        if (dag__descends_from(t, s)) return t;
        dag__inject(t);
        dag__wake_one();
        return NULL;
    }
    return NULL;
}

/* Sets and restores the isolation of a wait made from the current context. */
typedef struct dag__isolation { dag__task *task; int64_t mark; } dag__isolation;
static dag__isolation dag__isolate(dag__worker *w) {
    dag__isolation saved = { w->isolate, w->isolate_mark };
    dag__context *ctx = dag__tls_ctx;
    if (ctx && ctx->task) {
        w->isolate = ctx->task;
        w->isolate_mark = ctx->deque_mark;
    }
    return saved;
}
static void dag__unisolate(dag__worker *w, dag__isolation saved) {
    w->isolate = saved.task;
    w->isolate_mark = saved.mark;
}

/* Runs a task that find_work returned. A steal whose work was over in
   less time than stealing costs tells the thief to leave its victims
   alone for a while (doubling up to 50 us): the victim's deque then fills,
   and the spawner runs such tiny tasks itself (undeferred) at a fraction
   of the cost of moving them between cores. The work is the task and what
   it ran next (its successors, the children it waited for), and it is
   tiny when
   - the victim was far ahead (its deque half full) and all of it took
     less than stealing costs, or
   - it spawned nothing and each task of it took less (a dependency chain
     that would otherwise hop between cores at every step).
   A steal that brought more work resets the pause, however fine the tasks
   in it: a stolen task that spawns may be the root of a whole subtree. */
#ifndef DAG__TINY_NS
#define DAG__TINY_NS 1000
#endif
#ifndef DAG__STEAL_PAUSE_MAX_NS
#define DAG__STEAL_PAUSE_MAX_NS 50000
#endif
static void dag__run_found(dag__worker *w, dag__task *t) {
    if (!w->just_stole) {
        dag__run(w, t);
        return;
    }
    bool far_ahead = w->just_stole == 2;
    w->just_stole = 0;
    /* (tasks run at their spawn count as spawned and run) */
    uint64_t at_spawn = atomic_load_explicit(&w->ran_at_spawn, memory_order_relaxed);
    uint64_t start = dag__now_ns(), ran = atomic_load_explicit(&w->run, memory_order_relaxed) + at_spawn,
             spawned = atomic_load_explicit(&w->spawned, memory_order_relaxed) + at_spawn;
    dag__run(w, t);
    at_spawn = atomic_load_explicit(&w->ran_at_spawn, memory_order_relaxed);
    uint64_t end = dag__now_ns(), tasks = atomic_load_explicit(&w->run, memory_order_relaxed) + at_spawn - ran;
    bool spawned_none = atomic_load_explicit(&w->spawned, memory_order_relaxed) + at_spawn == spawned;
    if ((far_ahead && end - start < DAG__TINY_NS) || (spawned_none && end - start < DAG__TINY_NS * tasks)) {
        w->steal_pause_ns = w->steal_pause_ns ? w->steal_pause_ns * 2 : 1000;
        if (w->steal_pause_ns > DAG__STEAL_PAUSE_MAX_NS) w->steal_pause_ns = DAG__STEAL_PAUSE_MAX_NS;
        w->steal_after = end + w->steal_pause_ns;
    } else {
        w->steal_pause_ns = 0;
    }
}

/* Sleeps until woken, work appears, `done` holds, or a safety timeout
   (DAG_SLEEP_SAFETY_MS: a wake-up is never lost, so this only bounds the
   cost of a bug; tests set it to an hour so that a lost one hangs). */
static void dag__sleep(dag__worker *w, bool (*done)(void *), void *arg) {
    atomic_store(&w->waiting_for, arg);
    atomic_store(&w->sleep_state, DAG__ASLEEP);
    atomic_fetch_add(&dag__g.sleepers, 1);
    dag__sleeper_fence();
    if (!dag__work_visible(w) && !done(arg) && !atomic_load(&dag__g.stop)) {
        atomic_fetch_add_explicit(&w->sleeps, 1, memory_order_relaxed);
        uint64_t deadline = dag__now_ns() + (uint64_t)DAG_SLEEP_SAFETY_MS * 1000000u;
        struct timespec ts = dag__timespec_of(deadline);
        dag__mutex_lock(&w->park_lock);
        while (atomic_load(&w->sleep_state) == DAG__ASLEEP && !atomic_load(&dag__g.stop) && dag__now_ns() < deadline)
            dag__cond_timedwait(&w->cond, &w->park_lock, &ts);
        dag__mutex_unlock(&w->park_lock);
    }
    atomic_fetch_sub(&dag__g.sleepers, 1);
    atomic_store(&w->sleep_state, DAG__AWAKE);
    atomic_store(&w->waiting_for, NULL);
}

/* An idle worker spins (looking for work between PAUSEs) for the wait
   policy's window after its last task, then sleeps. Spinning hands a task
   over in the time a cache line takes to move; a wake-up costs a system
   call on each side. A spinner yields every 1024 looks (about 0.1 ms),
   and every 64 with more threads than cores, so that a thread with work
   that the scheduler put on its core gets it. On a VM that happens even
   with a core free: an idle virtual CPU can look busy to the scheduler,
   which then wakes a thread onto the waker's core. A spinner also
   completes the rank layer's messages in flight (dag__mpi_poll). */
static bool dag__spin_more(int idle, uint64_t *since) {
    uint64_t window = dag__g.spin_ns;
    if (window == 0) return false;
    if (idle == 1) *since = dag__now_ns();
    if ((idle & 63) == 0) {
        if (window != UINT64_MAX && dag__now_ns() - *since >= window) return false;
        dag__mpi_poll();
        if ((idle & 1023) == 0 || atomic_load_explicit(&dag__g.num_slots, memory_order_relaxed) > dag__g.cores) {
            dag__thread_yield();
            return true;
        }
    }
    DAG__PAUSE();
    return true;
}

/* >>helping: a waiting thread runs tasks until what it waits for is done;
   it never just blocks while it can help. Two things stop it helping:
   - inside a body it may run only what that body spawned (>>find work);
   - its stack has DAG_STACK_BUDGET bytes of nested tasks on it already.
   Then it blocks, and a reserve thread (workers[num_workers...], started
   on first need and parked when no longer needed) runs tasks in its place,
   so the threads running tasks stay at num_threads whatever the program
   waits for. Before it blocks it checks that what it waits for does not
   need its own task to finish first (DAG_ERR_WAIT_CYCLE). */

/* Where the stack is now: the address of a local. */
static DAG__NOINLINE uintptr_t dag__stack_here(void) {
#if defined(__GNUC__) || defined(__clang__)
    return (uintptr_t)__builtin_frame_address(0);
#else
    volatile char here = 0;
    char *volatile at = (char *)&here;
    return (uintptr_t)at;
#endif
}

/* The lowest address of this thread's stack, where the C library says
   (glibc: pthread_getattr_np), or 0. Strict C11 hides both calls. */
#if defined(__linux__) && defined(__GLIBC__)
#include <pthread.h>
#ifdef __cplusplus
extern "C" {
#endif
#if !defined(__USE_GNU)
extern int pthread_getattr_np(pthread_t, pthread_attr_t *);
#endif
#if !defined(__USE_XOPEN2K)
extern int pthread_attr_getstack(const pthread_attr_t *, void **, size_t *);
#endif
#ifdef __cplusplus
}
#endif
static uintptr_t dag__stack_low(void) {
    pthread_attr_t a;
    void *low = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0) return 0;
    if (pthread_attr_getstack(&a, &low, &size) != 0) low = NULL;
    pthread_attr_destroy(&a);
    return (uintptr_t)low;
}
#else
static uintptr_t dag__stack_low(void) { return 0; }
#endif

/* A thread comes to dag.h (its start, dag_setup, its first call): nested
   tasks may fill DAG_STACK_BUDGET of its stack from here, or half of what
   is left below, where its stack is smaller (a server's 256 KiB threads,
   ulimit -s, musl's 128 KiB). DAG__STACK_RESERVE of it is kept for what
   runs below the last nested task (a wait and its cycle check, the
   dynamic linker's first binding of a C library call): a thread with
   little more left (PTHREAD_STACK_MIN's 16 KiB) nests nothing, and its
   run_inline spawns go to the pool and are waited for. */
enum { DAG__STACK_RESERVE = 8 << 10 };
static void dag__stack_mark(dag__worker *w) {
    uintptr_t here = dag__stack_here(), low = dag__stack_low();
    w->stack_base = here;
    w->stack_budget = DAG_STACK_BUDGET;
    uintptr_t left = low && low < here ? here - low : UINTPTR_MAX, spare = left > DAG__STACK_RESERVE ? left - DAG__STACK_RESERVE : 0;
    if (spare / 2 < w->stack_budget) w->stack_budget = spare / 2;
}

/* May this thread start one more task on top of what its stack holds
   since it came to dag.h (dag__stack_mark)? A local's address tells how
   deep the stack is. */
static inline bool dag__stack_room(const dag__worker *w) {
    char here_;
    uintptr_t here = (uintptr_t)&here_, base = w->stack_base;
    return (base > here ? base - here : here - base) < w->stack_budget;
}

/* The tasks a cycle walk has seen: an open-addressing set that starts on
   the stack and doubles on the heap, so a short walk allocates nothing.
   The start is small: the walk runs in a wait, which may come when the
   stack has little room left (a thread's last nested task, on a small
   stack). */
typedef struct dag__seen {
    dag__task **slots;
    size_t cap, count;
    dag__task *first[32];
} dag__seen;

/* Adds x; false if it was there already (or memory ran out: the walk stops). */
static bool dag__seen_add(dag__seen *s, dag__task *x) {
    if (2 * (s->count + 1) > s->cap) {
        size_t cap = 2 * s->cap;
        dag__task **slots = (dag__task **)DAG_MALLOC(cap * sizeof *slots);
        if (!slots) return false;
        memset(slots, 0, cap * sizeof *slots);
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i]) continue;
            size_t h = ((uintptr_t)s->slots[i] >> 6) & (cap - 1);
            while (slots[h]) h = (h + 1) & (cap - 1);
            slots[h] = s->slots[i];
        }
        if (s->slots != s->first) DAG_FREE(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    size_t h = ((uintptr_t)x >> 6) & (s->cap - 1);
    while (s->slots[h] && s->slots[h] != x) h = (h + 1) & (s->cap - 1);
    if (s->slots[h]) return false;
    s->slots[h] = x;
    s->count++;
    return true;
}

/* Everything that cannot finish before s does is reachable from s along
   "needs" edges: a task's successors, the task whose body spawned it, and
   a body blocked in a wait for it. Every task on the way is unfinished (it
   needs s, and s runs), so its successor list and region are stable.
   Returns true when `t` is among them; gives up (false) past a bound. */
static bool dag__needs(dag__task *t, dag__task *s) {
    enum { BOUND = 1 << 14 };
    dag__seen seen;
    seen.slots = seen.first;
    seen.cap = sizeof seen.first / sizeof seen.first[0];
    seen.count = 0;
    memset(seen.first, 0, sizeof seen.first);
    dag__task_list todo = { NULL, 0, 0 };
    bool found = false;
    dag__list_push(&todo, s);
    for (size_t visits = 0; todo.count && !found && visits < BOUND; visits++) {
        dag__task *x = todo.items[--todo.count];
        if (!dag__seen_add(&seen, x)) continue;
        if (x == t) { found = true; break; }
        dag__edge *first = atomic_load(&x->succ);
        DAG__HA(&x->succ);   /* the edges' fields were written before their publishing CAS */
        for (dag__edge *e = first; e && e != DAG__CLOSED; e = e->next) dag__list_push(&todo, e->succ);
        if (x->region && x->region->parent) dag__list_push(&todo, x->region->parent);
        int n = dag__slots();
        for (int i = 0; i < n; i++)
            if (dag__g.workers[i].blocked_on == x && dag__g.workers[i].blocked_task)
                dag__list_push(&todo, dag__g.workers[i].blocked_task);
        for (dag__worker *g = dag__guests(); g; g = g->next_guest)
            if (g->blocked_on == x && g->blocked_task) dag__list_push(&todo, g->blocked_task);
    }
    DAG_FREE(todo.items);
    if (seen.slots != seen.first) DAG_FREE(seen.slots);
    return found;
}

static int dag__reserve_main(void *arg);
static void dag__worker_init(dag__worker *w, int index);
static void dag__worker_destroy(dag__worker *w);

/* Keeps a reserve thread in service for every blocked one (under sleep_lock). */
/* False when a thread could not be started for a blocked wait. */
static bool dag__reserve_top_up(void) {
    while (atomic_load(&dag__g.reserve_active) < atomic_load(&dag__g.blocked)) {
        int n = dag__slots();
        dag__worker *r = NULL;
        for (int i = dag__g.num_workers; i < n && !r; i++)
            if (atomic_load(&dag__g.workers[i].parked)) r = &dag__g.workers[i];
        if (r) {
            dag__mutex_lock(&r->park_lock);
            atomic_store(&r->parked, 0);
            dag__cond_signal(&r->cond);
            dag__mutex_unlock(&r->park_lock);
        } else if (n < dag__g.cap_workers) {
            r = &dag__g.workers[n];
            dag__worker_init(r, n);
            if (dag__thread_create(&r->thread, dag__reserve_main, r) != 0) {
                atomic_store(&dag__g.reserve_failed, 1);
                dag__worker_destroy(r);
                dag__err(DAG_ERR_THREAD, "could not start a reserve thread for a blocked wait; the wait runs "
                         "other tasks itself");
                return false;
            }
            atomic_store(&dag__g.reserve_failed, 0);   /* (a failure that passed: full stacks wait again) */
            DAG__HB(&dag__g.num_slots);
            atomic_store_explicit(&dag__g.num_slots, n + 1, memory_order_release);
        } else {
            static DAG__ATOMIC(int) said;
            if (!atomic_exchange(&said, 1))
                dag_log(DAG_LOG_WARN, DAG_OK, "all %d reserve threads stand in for blocked waits; more waits "
                        "block with fewer threads running (raise DAG_MAX_RESERVE_THREADS)", DAG_MAX_RESERVE_THREADS);
            return true;
        }
        int active = atomic_fetch_add(&dag__g.reserve_active, 1) + 1;
        if (active > dag__g.reserve_peak) dag__g.reserve_peak = active;
    }
    return true;
}

/* The body `body` waits for `on` (a task, or NULL for its children) and
   cannot help: the pair goes where other waits' cycle checks see it
   (dag__needs). Returns DAG_ERR_WAIT_CYCLE instead when `on` needs `body`
   to finish first. */
typedef struct dag__suspension { dag__task *body; struct dag__suspension *below; } dag__suspension;
static int dag__wait_begin(dag__worker *w, dag__task *body, dag__task *on) {
    dag__mutex_lock(&dag__g.wait_lock);
    w->blocked_task = body;
    w->blocked_on = on;
    bool cycle = body && on && dag__needs(on, body);
    /* a body suspended under this one on this thread finishes only after this one does */
    for (dag__suspension *s = w->suspended; on && s && !cycle; s = s->below) cycle = on == s->body || dag__needs(on, s->body);
    if (cycle) w->blocked_task = w->blocked_on = NULL;
    dag__mutex_unlock(&dag__g.wait_lock);
    return cycle ? DAG_ERR_WAIT_CYCLE : DAG_OK;
}
static void dag__wait_end(dag__worker *w) {
    dag__mutex_lock(&dag__g.wait_lock);
    w->blocked_task = w->blocked_on = NULL;
    dag__mutex_unlock(&dag__g.wait_lock);
}

/* A waiting body that sees work it may not run (another body's, or its
   own below the stack budget) blocks: a reserve thread runs tasks in its
   place. With nothing queued anywhere it only sleeps: its core would idle
   under a reserve thread too. */
static bool dag__stand_in(dag__worker *w) {
    dag__mutex_lock(&dag__g.sleep_lock);
    atomic_store(&w->blocked, 1);
    atomic_fetch_add(&dag__g.blocked, 1);
    bool stood_in = dag__reserve_top_up();
    dag__mutex_unlock(&dag__g.sleep_lock);
    return stood_in;
}
static void dag__stand_down(dag__worker *w) {
    dag__mutex_lock(&dag__g.sleep_lock);
    atomic_store(&w->blocked, 0);
    atomic_fetch_sub(&dag__g.blocked, 1);
    dag__mutex_unlock(&dag__g.sleep_lock);
}

/* A waiting thread runs tasks until `done` holds. With nothing to run it
   spins briefly (a task may be about to appear), then sleeps until woken.
   Inside a task body it first registers its wait (a cycle is an error,
   not a hang), and blocks, bringing in a reserve thread, when work it may
   not run is queued (see >>helping). `on` is the task waited for, if any.
   Returns DAG_OK, or DAG_ERR_WAIT_CYCLE. */
static int dag__help_until(dag__worker *w, bool (*done)(void *), void *arg, dag__task *on) {
    int idle = 0, result = DAG_OK;
    uint64_t idle_since = 0;
    bool waiting = false, blocked = false, spun_out = false;   /* spun_out: its spin window is over */
    dag__isolation saved = dag__isolate(w);
    dag__suspension suspension = { NULL, NULL };
    int was_looking = atomic_load_explicit(&w->looking, memory_order_relaxed);   /* (0: a body waits here) */
    int looking = was_looking;   /* what w->looking says now: written only when that changes */
    while (!done(arg)) {
        dag__task *t = dag__stack_room(w) ? dag__find_work(w) : NULL;
        if (t) {
            if (blocked) dag__stand_down(w);
            if (waiting) dag__wait_end(w);   /* its thread's one slot is for the waits this task makes */
            waiting = blocked = false;
            if (looking) atomic_store_explicit(&w->looking, looking = 0, memory_order_relaxed);
            dag__run_found(w, t);
            idle = 0;
            spun_out = false;
            continue;
        }
        if (++idle == 1 && !looking) atomic_store_explicit(&w->looking, looking = 1, memory_order_relaxed);
        dag__context *ctx = dag__tls_ctx;
        if (DAG__UNLIKELY(on && atomic_load_explicit(&dag__g.reserve_failed, memory_order_relaxed)) && ctx && ctx->task &&
            !dag__stack_room(w)) {
            /* its stack is full of nested tasks and no reserve thread can start to run what it waits
               for: say so and return, rather than wait for good (what it waits for runs once the
               stack has unwound; a deeper recursion needs threads, or a cut-off) */
            result = dag__err(DAG_ERR_THREAD, "task '%s' waits for task '%s' with its thread's stack full of nested "
                              "tasks, and no reserve thread could start to run it", dag__task_name(ctx->task),
                              dag__task_name(on));
            break;
        }
        /* (after a short spin, or a sleep that returned: with work visible a sleep returns at once, so
           a passive or short wait policy would otherwise never count up to here) */
        if (!blocked && ctx && ctx->task && (idle >= 256 || spun_out)) {
            if (idle < 320 && !spun_out) {
                dag__thread_yield();
                continue;
            }
            if (!waiting) {
                dag__body_region(w, ctx);   /* a cycle check walks up from the body */
                if ((result = dag__wait_begin(w, ctx->task, on)) != DAG_OK) break;
                waiting = true;
            }
            /* work it may not run (the shared queue's too, which only the
               threads not waiting take: those may all be waiting) */
            if (dag__work_visible(w) || atomic_load_explicit(&dag__g.inject_count, memory_order_relaxed)) {
                /* no thread could start to stand in (out of threads or memory): sleeping could wait for
                   good, so it runs what is queued, whatever it is (libgomp's rule; a task it runs that
                   waits for the body below it would hang, as this wait would have anyway) */
                blocked = true;   /* one more look, then sleep: the reserve thread has the core */
                if (!dag__stand_in(w) && w->isolate) {   /* (a full stack says so above, on its next turn) */
                    w->isolate = NULL;
                    suspension.body = ctx->task;
                    suspension.below = w->suspended;
                    w->suspended = &suspension;   /* what runs on top of it must not wait for it */
                }
                continue;
            }
        }
        if (!blocked && dag__spin_more(idle, &idle_since)) continue;
        spun_out = true;
        /* a waiter counts itself on the task only while it sleeps: the
           finisher wakes it (dag__complete) */
        if (on) atomic_fetch_add_explicit(&on->waiters, 1, memory_order_seq_cst);
        dag__sleep(w, done, arg);
        if (on) atomic_fetch_sub_explicit(&on->waiters, 1, memory_order_relaxed);
        idle = 0;
    }
    if (blocked) dag__stand_down(w);
    if (waiting) dag__wait_end(w);
    if (suspension.body) w->suspended = suspension.below;
    dag__unisolate(w, saved);
    atomic_store_explicit(&w->looking, was_looking, memory_order_relaxed);
    return result;
}

static bool dag__stopping(void *unused) {
    (void)unused;
    return atomic_load_explicit(&dag__g.stop, memory_order_acquire) != 0;
}

/* A pool thread is a thread that waits for the runtime to stop. */
static int dag__worker_main(void *arg) {
    dag__worker *w = (dag__worker *)arg;
    dag__tls_worker = w;
    dag__tls_epoch = __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST);   /* set before the pool starts */
    dag__stack_mark(w);
    dag__help_until(w, dag__stopping, NULL, NULL);
    return 0;
}

/* A reserve thread in service runs tasks while more threads are blocked
   than reserves serve, then parks until needed again. */
static bool dag__reserve_surplus(void *unused) {
    (void)unused;
    return atomic_load(&dag__g.stop) || atomic_load(&dag__g.reserve_active) > atomic_load(&dag__g.blocked);
}
static int dag__reserve_main(void *arg) {
    dag__worker *w = (dag__worker *)arg;
    dag__tls_worker = w;
    dag__tls_epoch = __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST);
    dag__stack_mark(w);
    for (;;) {
        dag__help_until(w, dag__reserve_surplus, NULL, NULL);
        dag__mutex_lock(&dag__g.sleep_lock);
        bool park = !atomic_load(&dag__g.stop) && atomic_load(&dag__g.reserve_active) > atomic_load(&dag__g.blocked);
        if (park) {
            atomic_fetch_sub(&dag__g.reserve_active, 1);
            atomic_store(&w->parked, 1);
        }
        dag__mutex_unlock(&dag__g.sleep_lock);
        if (park) {   /* until dag__reserve_top_up or dag_shutdown clears parked */
            dag__mutex_lock(&w->park_lock);
            while (atomic_load(&w->parked) && !atomic_load(&dag__g.stop)) dag__cond_wait(&w->cond, &w->park_lock);
            dag__mutex_unlock(&w->park_lock);
        }
        if (atomic_load(&dag__g.stop)) return 0;
    }
}

/* >>spans: every span is `rows` runs of `width` bytes, `stride` bytes apart
   (a 1-D span is one run). [lo, hi) bounds it. */
typedef struct dag__span { uintptr_t lo, hi; size_t width, rows, stride; } dag__span;

/* Does [lo, hi) touch one of the runs of s? Runs are sorted, so only the
   first run that ends after lo can start before hi. */
static bool dag__range_hits_runs(uintptr_t lo, uintptr_t hi, const dag__span *s) {
    if (s->rows == 1 || s->width >= s->stride) return lo < s->hi && hi > s->lo;
    if (hi <= s->lo || lo >= s->hi) return false;
    size_t k = 0;
    if (lo >= s->lo + s->width) k = (lo - s->lo - s->width) / s->stride + 1;
    if (k >= s->rows) return false;
    return s->lo + k * s->stride < hi;
}

static bool dag__spans_overlap(const dag__span *a, const dag__span *b) {
    if (a->lo >= b->hi || b->lo >= a->hi) return false;
    if (a->rows > b->rows) { const dag__span *t = a; a = b; b = t; }
    if (a->rows == 1 || a->width >= a->stride) return dag__range_hits_runs(a->lo, a->hi, b);
    for (size_t i = 0; i < a->rows; i++) {
        uintptr_t lo = a->lo + i * a->stride;
        if (lo >= b->hi) break;
        if (dag__range_hits_runs(lo, lo + a->width, b)) return true;
    }
    return false;
}

/* >>domain: the dependency state of one context. A hash table keyed by the
   exact span finds repeats in O(1); a treap ordered by start address, with
   the largest end in each subtree, finds partial overlaps in O(log n). An
   entry that never overlapped another skips the treap on every repeat. */
typedef struct dag__entry {
    dag__span span;
    dag__task *writer;                     /* last writer (a reference) */
    dag__task **readers;                   /* readers since then (references) */
    uint32_t num_readers, cap_readers;
    dag__task *inline_readers[4];
    int overlapped;                        /* some other entry overlaps it */
    struct dag__entry *left, *right;       /* treap */
    uintptr_t max_hi;
    uint32_t prio;
    struct dag__entry *next_free;
} dag__entry;

struct dag__domain {
    dag__entry **table;                    /* open addressing, power-of-two size */
    size_t cap, count;
    dag__entry *root;
    size_t sweep_at;
    dag__entry *free_entries;
    void **slabs;
    size_t num_slabs;
    uint32_t rng;
    dag__entry **hits;                     /* scratch for overlap queries */
    size_t num_hits, cap_hits;
};

static inline size_t dag__span_hash(const dag__span *s) {
    uint64_t h = (uint64_t)s->lo * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)s->width * 0xC2B2AE3D27D4EB4Full + (uint64_t)s->rows * 0x165667B19E3779F9ull + s->stride;
    return (size_t)(h ^ (h >> 29));
}
static inline bool dag__span_eq(const dag__span *a, const dag__span *b) {
    return a->lo == b->lo && a->width == b->width && a->rows == b->rows && a->stride == b->stride;
}

static dag__domain *dag__domain_new(void) {
    dag__domain *d = (dag__domain *)dag__xmalloc(sizeof *d);
    memset(d, 0, sizeof *d);
    d->cap = 64;
    d->table = (dag__entry **)dag__xmalloc(d->cap * sizeof *d->table);
    memset(d->table, 0, d->cap * sizeof *d->table);
    d->sweep_at = 1024;
    d->rng = 0x9E3779B9u;
    return d;
}

static dag__entry *dag__entry_new(dag__domain *d, const dag__span *s) {
    if (!d->free_entries) {
        size_t n = 256;
        dag__entry *slab = (dag__entry *)dag__xmalloc(n * sizeof *slab);
        if ((d->num_slabs & (d->num_slabs + 1)) == 0 || !d->slabs)
            d->slabs = (void **)dag__xrealloc(d->slabs, (d->num_slabs * 2 + 2) * sizeof *d->slabs);
        d->slabs[d->num_slabs++] = slab;
        for (size_t i = 0; i < n; i++) {
            slab[i].next_free = d->free_entries;
            d->free_entries = &slab[i];
        }
    }
    dag__entry *e = d->free_entries;
    d->free_entries = e->next_free;
    memset(e, 0, sizeof *e);
    e->span = *s;
    e->readers = e->inline_readers;
    e->cap_readers = 4;
    d->rng ^= d->rng << 13; d->rng ^= d->rng >> 17; d->rng ^= d->rng << 5;
    e->prio = d->rng;
    return e;
}

static void dag__entry_release(dag__worker *w, dag__domain *d, dag__entry *e) {
    if (e->writer) dag__decref(w, e->writer);
    for (uint32_t i = 0; i < e->num_readers; i++) dag__decref(w, e->readers[i]);
    if (e->readers != e->inline_readers) DAG_FREE(e->readers);
    e->next_free = d->free_entries;
    d->free_entries = e;
}

static dag__entry *dag__domain_find(dag__domain *d, const dag__span *s) {
    size_t mask = d->cap - 1, i = dag__span_hash(s) & mask;
    for (dag__entry *e; (e = d->table[i]); i = (i + 1) & mask)
        if (dag__span_eq(&e->span, s)) return e;
    return NULL;
}

static void dag__domain_put(dag__domain *d, dag__entry *e) {
    size_t mask = d->cap - 1, i = dag__span_hash(&e->span) & mask;
    while (d->table[i]) i = (i + 1) & mask;
    d->table[i] = e;
    d->count++;
}

/* treap */
static inline void dag__treap_fix(dag__entry *x) {
    uintptr_t m = x->span.hi;
    if (x->left && x->left->max_hi > m) m = x->left->max_hi;
    if (x->right && x->right->max_hi > m) m = x->right->max_hi;
    x->max_hi = m;
}
static inline bool dag__treap_less(const dag__entry *a, const dag__entry *b) {
    return a->span.lo < b->span.lo || (a->span.lo == b->span.lo && (uintptr_t)a < (uintptr_t)b);
}
static dag__entry *dag__treap_insert(dag__entry *root, dag__entry *n) {
    if (!root) {
        n->left = n->right = NULL;
        n->max_hi = n->span.hi;
        return n;
    }
    if (dag__treap_less(n, root)) {
        root->left = dag__treap_insert(root->left, n);
        if (root->left->prio > root->prio) {
            dag__entry *x = root->left;
            root->left = x->right;
            x->right = root;
            dag__treap_fix(root);
            root = x;
        }
    } else {
        root->right = dag__treap_insert(root->right, n);
        if (root->right->prio > root->prio) {
            dag__entry *x = root->right;
            root->right = x->left;
            x->left = root;
            dag__treap_fix(root);
            root = x;
        }
    }
    dag__treap_fix(root);
    return root;
}
static void dag__treap_query_from(dag__domain *d, dag__entry *n, const dag__span *s, const dag__entry *skip) {
    while (n && n->max_hi > s->lo) {
        dag__treap_query_from(d, n->left, s, skip);
        if (n->span.lo >= s->hi) return;
        if (n != skip && dag__spans_overlap(&n->span, s)) {
            if (d->num_hits == d->cap_hits) {
                d->cap_hits = d->cap_hits ? d->cap_hits * 2 : 16;
                d->hits = (dag__entry **)dag__xrealloc(d->hits, d->cap_hits * sizeof *d->hits);
            }
            d->hits[d->num_hits++] = n;
        }
        n = n->right;
    }
}

/* Appends to d->hits the entries but skip whose spans overlap s. The
   root's test is inlined: a span past every entry (a new array, the next
   element of one) asks no more. */
static inline void dag__treap_query(dag__domain *d, dag__entry *n, const dag__span *s, const dag__entry *skip) {
    if (n && n->max_hi > s->lo) dag__treap_query_from(d, n, s, skip);
}

/* Finished, and no failure left to pass on: it orders nothing any more. */
static bool dag__settled(dag__task *t) { return dag__done(t) && !dag__poisons(t); }

static bool dag__entry_idle(dag__entry *e) {
    if (e->writer && !dag__settled(e->writer)) return false;
    for (uint32_t i = 0; i < e->num_readers; i++)
        if (!dag__settled(e->readers[i])) return false;
    return true;
}

/* Drops entries whose tasks have all finished (they order nothing any
   more) and rebuilds the table and the treap from the rest. Amortised O(1):
   the next sweep waits until the table has grown well past the survivors. */
static DAG__NOINLINE void dag__domain_sweep(dag__worker *w, dag__domain *d) {
    dag__entry *keep = NULL;
    size_t live = 0;
    for (size_t i = 0; i < d->cap; i++) {
        dag__entry *e = d->table[i];
        if (!e) continue;
        if (dag__entry_idle(e)) {
            dag__entry_release(w, d, e);
        } else {
            e->next_free = keep;
            keep = e;
            live++;
        }
    }
    size_t cap = 64;
    while (cap < live * 4) cap *= 2;
    if (cap != d->cap) {
        DAG_FREE(d->table);
        d->table = (dag__entry **)dag__xmalloc(cap * sizeof *d->table);
        d->cap = cap;
    }
    memset(d->table, 0, d->cap * sizeof *d->table);
    d->count = 0;
    d->root = NULL;
    while (keep) {
        dag__entry *n = keep->next_free;
        dag__domain_put(d, keep);
        d->root = dag__treap_insert(d->root, keep);
        keep = n;
    }
    d->sweep_at = live * 2 > 1024 ? live * 2 : 1024;
}

static void dag__domain_grow(dag__domain *d) {
    dag__entry **old = d->table;
    size_t old_cap = d->cap;
    d->cap *= 2;
    d->table = (dag__entry **)dag__xmalloc(d->cap * sizeof *d->table);
    memset(d->table, 0, d->cap * sizeof *d->table);
    d->count = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i]) dag__domain_put(d, old[i]);
    DAG_FREE(old);
}

/* Forgets every span (their last users have finished), keeping the memory for the next spawns. */
static void dag__domain_clear(dag__worker *w, dag__domain *d) {
    for (size_t i = 0; i < d->cap; i++)
        if (d->table[i]) {
            dag__entry_release(w, d, d->table[i]);
            d->table[i] = NULL;
        }
    d->count = 0;
    d->root = NULL;
}

static void dag__domain_destroy(dag__worker *w, dag__domain *d) {
    for (size_t i = 0; i < d->cap; i++)
        if (d->table[i]) dag__entry_release(w, d, d->table[i]);
    for (size_t i = 0; i < d->num_slabs; i++) DAG_FREE(d->slabs[i]);
    DAG_FREE(d->slabs);
    DAG_FREE(d->table);
    DAG_FREE(d->hits);
    DAG_FREE(d);
}

/* >>dependencies */
typedef struct dag__spawn_state {
    dag__worker *w;
    dag__task *t;
    int added;            /* edges attached (each will count `pending` down once) */
    int refs;             /* references the dependency state took on t */
    dag__task *recent[8]; /* predecessors already attached, to skip repeats */
    int num_recent;
} dag__spawn_state;

/* In place: recent[] is read only below num_recent, so it is not zeroed
   (a copy of the struct would be). */
static inline void dag__spawn_state_init(dag__spawn_state *st, dag__worker *w, dag__task *t) {
    st->w = w;
    st->t = t;
    st->added = st->refs = st->num_recent = 0;
}

/* t runs after p. If p has finished, there is nothing to wait for (but its
   failure still cancels t). */
static void dag__add_dep(dag__spawn_state *st, dag__task *p) {
    dag__task *t = st->t;
    if (p == t) return;
    for (int i = 0; i < st->num_recent; i++)
        if (st->recent[i] == p) return;
    st->recent[st->num_recent++ & 7] = p;
    if (st->num_recent > 8) st->num_recent = 8;
    if (DAG__UNLIKELY(atomic_load_explicit(&dag__g.tracing, memory_order_relaxed)))
        dag__trace_add_edge(st->w, dag__trace_id(p), dag__trace_id(t));
    dag__edge *head = atomic_load_explicit(&p->succ, memory_order_acquire);
    if (head != DAG__CLOSED) {
        dag__edge *e = (dag__edge *)dag__pool_alloc(&st->w->edges);
        e->succ = t;
        e->home = &st->w->edges;
        do {
            e->next = head;
            DAG__HB(&p->succ);
            if (atomic_compare_exchange_weak_explicit(&p->succ, &head, e, memory_order_release, memory_order_acquire)) {
                st->added++;
                return;
            }
        } while (head != DAG__CLOSED);
        dag__pool_free(e->home, e, &st->w->edges);
    }
    DAG__HA(&p->succ);   /* p has finished: what it wrote is visible to t */
    if (DAG__UNLIKELY(dag__poisons(p))) {
        dag__cause_set(&t->failed_dep, atomic_load(&p->failed_dep));   /* p holds its cause (dag__region_record_failure) */
    }
}

static void dag__deps_of_entry(dag__spawn_state *st, dag__entry *e, int mode) {
    if (e->writer) dag__add_dep(st, e->writer);
    if (mode & DAG_ACCESS_OUT)
        for (uint32_t i = 0; i < e->num_readers; i++) dag__add_dep(st, e->readers[i]);
}

static void dag__add_reader(dag__worker *w, dag__entry *e, dag__task *t) {
    if (e->num_readers == e->cap_readers) {
        /* Prune finished readers before growing: a long run of reads stays small. */
        uint32_t k = 0;
        for (uint32_t i = 0; i < e->num_readers; i++) {
            if (dag__settled(e->readers[i])) dag__decref(w, e->readers[i]);
            else e->readers[k++] = e->readers[i];
        }
        e->num_readers = k;
        if (k == e->cap_readers) {
            uint32_t cap = e->cap_readers * 2;
            dag__task **r = (dag__task **)dag__xmalloc(cap * sizeof *r);
            memcpy(r, e->readers, k * sizeof *r);
            if (e->readers != e->inline_readers) DAG_FREE(e->readers);
            e->readers = r;
            e->cap_readers = cap;
        }
    }
    e->readers[e->num_readers++] = t;
}

/* One access of the task being spawned: find what it must wait for, then
   record it as the span's last writer or as one more reader. */
static void dag__access(dag__spawn_state *st, dag__domain *d, const dag__span *s, int mode) {
    dag__worker *w = st->w;
    dag__entry *e = dag__domain_find(d, s);
    if (DAG__UNLIKELY(!e)) {
        if (d->count >= d->sweep_at) dag__domain_sweep(w, d);
        if ((d->count + 1) * 2 > d->cap) dag__domain_grow(d);
        e = dag__entry_new(d, s);
        d->num_hits = 0;
        dag__treap_query(d, d->root, s, NULL);
        for (size_t i = 0; i < d->num_hits; i++) {
            d->hits[i]->overlapped = 1;
            e->overlapped = 1;
        }
        dag__domain_put(d, e);
        d->root = dag__treap_insert(d->root, e);
    } else if (e->overlapped) {
        d->num_hits = 0;
        dag__treap_query(d, d->root, s, e);
    } else {
        d->num_hits = 0;
    }
    for (size_t i = 0; i < d->num_hits; i++) dag__deps_of_entry(st, d->hits[i], mode);
    dag__deps_of_entry(st, e, mode);
    if (mode & DAG_ACCESS_OUT) {
        if (e->writer) dag__decref(w, e->writer);
        for (uint32_t i = 0; i < e->num_readers; i++) dag__decref(w, e->readers[i]);
        e->num_readers = 0;
        e->writer = st->t;
    } else {
        dag__add_reader(w, e, st->t);
    }
    st->refs++;
}

/* >>scope queries. A backend's part of a scope: one switch made from the list. */
#define DAG__SCOPE_CASE(e, field, ...) case e: return (dag_device_scope *)&s->field;
dag_device_scope *dag_scope_part(const dag_scope *s, dag_backend b) {
    if (!s) return NULL;
    switch (b) {
    DAG__DEVICE_BACKENDS(DAG__SCOPE_CASE)
    default: return NULL;
    }
}
static inline bool dag__device_scope_named(dag_device_scope p) { return (p.one | p.all) || p.set; }
/* the set with `one` folded in (a number past 64 stays out; the scope check reports it) */
static uint64_t dag__device_scope_bits(dag_device_scope p) {
    return p.set | (p.one > 0 && p.one <= 64 ? DAG_DEVICE_BIT(p.one) : 0);
}
bool dag_device_scope_has(dag_device_scope p, int device) {
    return p.all || (device >= 1 && device <= 64 && ((dag__device_scope_bits(p) >> (device - 1)) & 1u));
}
#define DAG__SCOPE_NAMED(e, field, ...) || dag__device_scope_named(s->field)
static inline bool dag__scope_names_devices(const dag_scope *s) { return false DAG__DEVICE_BACKENDS(DAG__SCOPE_NAMED); }
/* The CPU is the default: a scope that names only devices excludes it. */
static bool dag__scope_has_cpu(const dag_scope *s) {
    return s->any_processor || s->thread || s->threads || s->all_threads || !dag__scope_names_devices(s);
}
bool dag_scope_has_cpu(dag_scope s) { return dag__scope_has_cpu(&s); }

/* >>guests: threads outside the pool while dag_shutdown runs. dag_shutdown frees what their calls
   use, so it waits for the spawns, waits, block starts and ends and calls on task handles such
   threads are inside (counted in guest_calls, each before it reads anything of the thread's) and
   refuses new ones, rather than draining for ever while they keep spawning, or freeing a record a
   wait is about to read. (The README asks for no other thread inside a call then: this makes the
   misuse an error instead of a hang or a crash.) The pool's threads and the thread that set up are
   not counted; every attach of a thread is (dag__current_context_slow), and so are the other calls
   that read a thread's records or the device layer's (cancels, scope_in_force, the backend and
   memory queries, dag_synchronize, data registration). dag_array.h's and dag_table.h's calls are
   made of those. A refused call that waits returns once what it waits for has finished (its tasks
   may write the caller's memory): a wait for a task, once that task has (dag__refused_done), a
   block's end or dag_wait_all, once dag_shutdown's drain is over. A thread exiting (dag__guest_exit)
   is waited for apart (exits_running), and so are dag_fulfill and those refused waits (late_running):
   dag_shutdown's drain may need them. Only the thread that set up may call dag_shutdown: its calls
   are not counted. */
static DAG__NOINLINE dag__context *dag__current_context_slow(void);
/* `waits`: the call waits for the thread's tasks (a block's end, dag_wait_all). Refused, it returns
   once dag_shutdown has finished every task: until then they may write the caller's memory (its
   locals that a task's Out names, the frame its block is in). A wait for one task waits for that
   one alone (dag__refused_done). */
static DAG__NOINLINE bool dag__guest_enter(const char *call, const char *name, bool waits) {
    uint32_t epoch = __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST);   /* (the next set-up's is another) */
    atomic_fetch_add(&dag__g.guest_calls, 1);   /* seq_cst, against dag_shutdown's store of closing, then loads */
    if (!atomic_load(&dag__g.closing)) {
        /* a thread dag.h has not seen in this set-up cycle attaches (or sets up) here, inside the count:
           attached after dag_shutdown's wait for the count, its records would be freed under it */
        if (!dag__attached() && !dag__current_context_slow()) {
            atomic_fetch_sub(&dag__g.guest_calls, 1);
            if (atomic_load(&dag__g.phase) != 0) dag__shut_down_err(call, name);   /* (a failed set-up said why) */
            return false;
        }
        dag__tls_guest = false;   /* the calls this one makes are in it: not counted again */
        return true;
    }
    atomic_fetch_sub(&dag__g.guest_calls, 1);
    if (atomic_load(&dag__g.phase) != 1) {
        dag__shut_down_err(call, name);
        return false;
    }
    if (dag__first_refusal_here())
        dag__err(DAG_ERR_SHUT_DOWN, "%s%s%s: dag_shutdown is running on another thread, so this thread's calls are "
                 "refused%s (call dag_shutdown once no other thread is inside a dag.h call; calls refused the same "
                 "way on this thread are not logged again)", call, name ? name : "", name ? ")" : "",
                 waits ? "; this one returns once dag_shutdown has finished every task" : "");
    /* (late_closed and phase are the next set-up's again once it runs: the epoch tells this one's end) */
    while (waits && epoch && __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST) == epoch && !atomic_load(&dag__g.late_closed))
        dag__thread_yield();
    return false;
}
static inline void dag__guest_leave(void) {
    dag__tls_guest = dag__tls_worker && dag__tls_worker->index < 0;   /* (the call may have attached it anew) */
    atomic_fetch_sub(&dag__g.guest_calls, 1);
}
/* Whether h's task has finished, asked by a call refused while dag_shutdown runs (>>guests); with
   `wait`, once it has. Records stay while dag_shutdown drains, and it frees none before this call is
   out (late_running), so the record is read where a handle of this set-up cycle points: finished,
   or taken by another task since (its generation moved on). It waits for this task alone, not for
   every task: the caller may be the thread that fulfils another one's event next. */
static DAG__NOINLINE bool dag__refused_done(dag_task h, bool wait) {
    bool done = true;
    atomic_fetch_add(&dag__g.late_running, 1);   /* seq_cst, against dag_shutdown's store of late_closed, then load */
    if (h.ptr && !dag__value_handle(h) && dag__handle_current(h)) {
        dag__task *t = h.ptr;
        for (;;) {
            done = atomic_load(&dag__g.late_closed) || atomic_load(&t->gen) != h.gen || dag__done(t);
            if (done || !wait) break;
            dag__thread_yield();
        }
    }
    atomic_fetch_sub(&dag__g.late_running, 1);
    return done;
}
static bool dag__no_guest_calls(void *unused) {
    (void)unused;
    return atomic_load(&dag__g.guest_calls) == 0;
}
/* Whether this thread's call is counted (>>guests): a thread outside the pool, or one not attached
   to the running set-up cycle (its first call, which attaches it) */
static inline bool dag__guest_call(void) { return dag__tls_guest || !dag__attached(); }
/* A call that only reads the runtime's records (dag_get_stats, the trace's calls) on a thread outside
   the pool: made inside the count dag_shutdown waits for, attaching nothing, so that the lists it walks
   are not freed under it. Refused (false; `call` says so once, unless NULL) while dag_shutdown runs;
   with no runtime up, it reads what it did before (nothing to free). */
static DAG__THREAD_LOCAL bool dag__tls_reading;   /* inside such a call: the calls it makes are in it */
static DAG__NOINLINE bool dag__read_enter(const char *call) {
    atomic_fetch_add(&dag__g.guest_calls, 1);   /* seq_cst, against dag_shutdown's store of closing, then loads */
    if (!atomic_load(&dag__g.closing) || atomic_load(&dag__g.phase) != 1) {
        dag__tls_reading = true;
        return true;
    }
    atomic_fetch_sub(&dag__g.guest_calls, 1);
    if (call && dag__first_refusal_here())
        dag__err(DAG_ERR_SHUT_DOWN, "%s: dag_shutdown is running on another thread, so this thread's calls are refused "
                 "(calls refused the same way on this thread are not logged again)", call);
    return false;
}
static void dag__read_leave(void) {
    dag__tls_reading = false;
    atomic_fetch_sub(&dag__g.guest_calls, 1);
}
#define DAG__AS_READER(T, call, refused, again) \
    if (DAG__UNLIKELY(!dag__tls_reading && dag__guest_call())) { \
        if (!dag__read_enter(call)) return refused; \
        T dag__read_result = again; \
        dag__read_leave(); \
        return dag__read_result; \
    }
#define DAG__AS_READER_VOID(call, again) \
    if (DAG__UNLIKELY(!dag__tls_reading && dag__guest_call())) { \
        if (dag__read_enter(call)) { \
            again; \
            dag__read_leave(); \
        } \
        return; \
    }
/* The first lines of a guarded call: on a thread outside the pool, the call counted and made again
   inside the count (`again`, of type T), or `refused` once dag_shutdown has begun */
#define DAG__AS_GUEST(T, name, waits, refused, again) \
    if (DAG__UNLIKELY(dag__guest_call())) { \
        if (!dag__guest_enter(name, NULL, waits)) return refused; \
        T dag__guest_result = again; \
        dag__guest_leave(); \
        return dag__guest_result; \
    }

/* >>context management */

static void dag__guest_attach(void);

/* Not set up yet, set up elsewhere, or this thread's context is from an
   earlier set-up cycle (or it has none). */
static DAG__NOINLINE dag__context *dag__current_context_slow(void) {
    int phase = atomic_load(&dag__g.phase);
    /* never set up: set up now; setting up elsewhere: dag_setup waits for it */
    if ((phase == 0 || phase == 3) && dag_setup(NULL) != DAG_OK) return NULL;
    phase = atomic_load(&dag__g.phase);
    if (phase != 1) return NULL;
    if (dag__tls_ctx && dag__tls_epoch == __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST)) return dag__tls_ctx;
    /* attached inside the count (>>guests): dag_shutdown frees the records this reads and writes, so it
       either waits for the attach or this sees it closing and leaves the thread unattached */
    atomic_fetch_add(&dag__g.guest_calls, 1);   /* seq_cst, against dag_shutdown's store of closing, then loads */
    bool attach = !atomic_load(&dag__g.closing);
    if (attach) dag__guest_attach();
    atomic_fetch_sub(&dag__g.guest_calls, 1);
    return attach ? dag__tls_ctx : NULL;
}

/* Every call into dag.h starts here: inlined, two thread-local reads. */
static inline dag__context *dag__current_context(void) {
    dag__context *c = dag__tls_ctx;
    /* a context from an earlier set-up cycle is gone: the epoch tells */
    if (DAG__LIKELY(c && dag__tls_epoch == __atomic_load_n(&dag__live_epoch, __ATOMIC_RELAXED))) return c;
    return dag__current_context_slow();
}

/* No name, priority, scope or discard_results: a spawn under such options
   needs no extra record for them and may run undeferred. */
static inline bool dag__options_plain(const dag_options *o, bool scoped) {
    return !o->name && !o->priority && !scoped && !o->discard_results && !o->keep_results && !o->final;
}
static void dag__region_set_options(dag__region *r, dag_options o) {
    r->options = o;
    r->options_set = true;
    r->scoped = !dag__scope_empty(&o.scope);
    r->plain = dag__options_plain(&r->options, r->scoped);
}

/* The innermost open region; a task body gets its root on first use. */
static dag__region *dag__ctx_top(dag__worker *w, dag__context *ctx) {
    if (DAG__LIKELY(ctx->top != NULL)) return ctx->top;
    dag__body_region(w, ctx);   /* the task whose region this one's tasks walk up to */
    dag__region *r = dag__region_new(0);   /* its options empty: none inherited, the common case */
    r->counter = r;
    r->owner_task = ctx->task;
    dag__region_parent(r, ctx->task);
    if (ctx->base) dag__region_set_options(r, *ctx->base);
    ctx->task->child_root = r;
    ctx->root = ctx->top = r;
    return r;
}

/* A body run inside its spawn before its spawner had a region (dag__plain_where's DAG__PLAIN_HERE
   without one, for a body whose children all run inside their spawns: it spares that body a region)
   gets the region it would have been spawned in once something needs it: a spawn of its own (whose
   region names it as parent, so cancels and wait-cycle checks walk on up from it), a wait, a cancel,
   a failure or a detach. Its spawner is suspended in that spawn on this thread meanwhile, so the
   region made is the one the spawn would have made (none of its tasks counts it: it ends inside). */
static DAG__NOINLINE dag__region *dag__inline_region(dag__worker *w, dag__context *spawner, dag__task *t) {
    dag__region *r = dag__ctx_top(w, spawner);
    t->region = r->counter;
    t->flags &= ~(uint32_t)DAG__TF_NO_REGION;
    return r;
}

/* For the rank layer (>>mpi seam): the program's main context, the regions
   open in it, and the task whose body this thread runs. */
static inline bool dag__is_main(const dag__context *ctx) { return ctx == &dag__main_ctx; }
static inline bool dag__on_main(void) { return dag__tls_ctx == &dag__main_ctx; }
static inline uint32_t dag__main_open_regions(void) {
    uint32_t n = 0;
    for (dag__region *r = dag__ctx_top(dag__tls_worker, &dag__main_ctx); r && r != dag__main_ctx.root; r = r->outer) n++;
    return n;
}
static inline dag__task *dag__body_task(void) { return dag__tls_ctx->task; }

/* Only a scope naming some workers (not all of them, nor every processor)
   pins a task to them; a set of every worker is no constraint at all. */
static bool dag__scope_pins_workers(const dag_scope *s) {
    if (!(s->thread || s->threads) || s->all_threads || s->any_processor) return false;
    if (dag__g.num_workers > 64) return true;
    return dag__scope_worker_bits(s) != dag__all_worker_bits();
}

static dag_options dag__merge_options(dag_options base, const dag_options *o) {
    if (o) {
        if (o->name) base.name = o->name;
        if (!dag__scope_empty(&o->scope)) base.scope = o->scope;
        if (o->priority) base.priority = o->priority;
        if (o->discard_results) base.discard_results = 1;
        if (o->keep_results) base.keep_results = 1;
        if (o->run_inline) base.run_inline = 1;
        if (o->final) base.final = 1;
    }
    return base;
}

#define DAG__BACKEND_NAME(e, field, name, ...) name,
#define DAG__BACKEND_DEVICE(e, field, name, word, device, ...) device,
#define DAG__BACKEND_HINT(e, field, name, word, device, flag, aot, hint, ...) hint,
#define DAG__BACKEND_FLAG(e, field, name, word, device, flag, ...) #flag,   /* as spelled: not expanded */
#define DAG__BACKEND_WORDS(e, field, name, word, ...) { #word, #field },
static const char *const dag__backend_name[DAG_BACKEND_COUNT] = { DAG__BACKENDS(DAG__BACKEND_NAME) };
static const char *const dag__device_word[DAG_BACKEND_COUNT] = { DAG__BACKENDS(DAG__BACKEND_DEVICE) };
static const char *const dag__build_hint[DAG_BACKEND_COUNT] = { DAG__BACKENDS(DAG__BACKEND_HINT) };

/* A backend the scope names is absent, or has no build of this kernel, and
   the task runs elsewhere: said once per backend, at info level. */
static void dag__scope_fallback(dag_backend b, const char *what) {
    /* a load first: spawns with such a scope do not all write one shared line */
    if (!atomic_load_explicit(&dag__g.fallback_said[b], memory_order_relaxed) && !atomic_exchange(&dag__g.fallback_said[b], 1))
        dag_log(DAG_LOG_INFO, DAG_OK, "scope names %ss; %s, so those tasks run elsewhere", dag__device_word[b], what);
}

/* Says what is wrong with a scope for this task, or returns false. */
static bool dag__scope_problem(const dag_task_desc *desc, const dag_scope *s, char *why, size_t size) {
    if (dag__scope_pins_workers(s)) {
        bool some = false;
        for (int i = 0; i < dag__g.num_workers && !some; i++) some = dag__scope_allows(s, i);
        if (!some) {
            snprintf(why, size, "scope {thread=%d, threads=0x%llx} matches none of the %d worker threads", s->thread,
                     (unsigned long long)s->threads, dag__g.num_workers);
            return true;
        }
    }
    if (!dag__scope_names_devices(s)) return false;
    bool cpu = dag__scope_has_cpu(s);
    if (!desc->kernel && !cpu) {
        snprintf(why, size, "task '%s' is not a DAG_KERNEL: only kernels run on devices", desc->name);
        return true;
    }
    uint64_t any = dag__scope_devices(s, NULL), built = desc->kernel ? dag__scope_devices(s, desc->kernel) : 0;
    for (int b = 1; b < DAG_BACKEND_COUNT; b++) {
        dag_device_scope part = *dag_scope_part(s, (dag_backend)b);
        if (!dag__device_scope_named(part)) continue;
        int count = dag_device_count((dag_backend)b);
        uint64_t named = dag__device_scope_bits(part);
        int bad = part.one < 0 || part.one > 64 ? part.one : 0;
        for (int i = count; !bad && i < 64; i++) if ((named >> i) & 1u) bad = i + 1;
        if (count && bad) {   /* a device that does not exist: the program's mistake */
            snprintf(why, size, "scope names %s %d, and there %s %d (%s)", dag__device_word[b], bad,
                     count == 1 ? "is" : "are", count, dag__g.backend_status[b]);
            return true;
        }
        if (!count && !cpu && !any) {
            if (part.one)
                snprintf(why, size, "scope names %s %d, and there is none (%s)", dag__device_word[b], part.one,
                         dag__g.backend_status[b]);
            else
                snprintf(why, size, "scope names %ss only, and there is none (%s)", dag__device_word[b],
                         dag__g.backend_status[b]);
            return true;
        }
        if (!count) dag__scope_fallback((dag_backend)b, dag__g.backend_status[b]);
    }
    if (desc->kernel && any && !built) {
        dag_backend b = DAG_CPU;   /* name a backend whose devices the scope allows */
        for (int d = 0; d < dag__devices_num() && b == DAG_CPU; d++) if ((any >> d) & 1u) b = dag__device_backend(d);
        if (!cpu) {
            snprintf(why, size, "kernel '%s' has no %s build (%s)", desc->kernel->name, dag__backend_name[b],
                     dag__build_hint[b]);
            return true;
        }
        char what[200];
        snprintf(what, sizeof what, "kernel '%s' has no build for them (%s)", desc->kernel->name, dag__build_hint[b]);
        dag__scope_fallback(b, what);
    }
    return false;
}

dag_scope dag_scope_in_force(void) {
    dag_scope none;
    memset(&none, 0, sizeof none);
    DAG__AS_GUEST(dag_scope, "dag_scope_in_force", false, none, dag_scope_in_force())
    dag__context *ctx = dag__current_context();
    if (!ctx) return none;
    return dag__ctx_top(dag__tls_worker, ctx)->options.scope;
}

dag_scope dag_scope_union(dag_scope a, dag_scope b) {
    dag_scope u;
    memset(&u, 0, sizeof u);
    /* an empty scope is the default, any worker: so is its union with anything on the CPU */
    if (dag__scope_empty(&a)) a.all_threads = 1;
    if (dag__scope_empty(&b)) b.all_threads = 1;
    for (int k = 1; k < DAG_BACKEND_COUNT; k++) {
        dag_device_scope pa = *dag_scope_part(&a, (dag_backend)k), pb = *dag_scope_part(&b, (dag_backend)k);
        dag_device_scope *pu = dag_scope_part(&u, (dag_backend)k);
        pu->set = dag__device_scope_bits(pa) | dag__device_scope_bits(pb);
        /* a number past 64 cannot be a bit: kept, so the scope check reports it */
        pu->one = pa.one > 64 || pa.one < 0 ? pa.one : pb.one > 64 || pb.one < 0 ? pb.one : 0;
        pu->all = pa.all || pb.all;
    }
    u.any_processor = a.any_processor || b.any_processor;
    u.all_threads = a.all_threads || b.all_threads;
    u.threads = a.threads | b.threads;
    if (a.thread) u.threads |= DAG_THREAD_BIT(a.thread);
    if (b.thread) u.threads |= DAG_THREAD_BIT(b.thread);
    u.thread = 0;
    if (a.thread > 64 || b.thread > 64) u.thread = a.thread > 64 ? a.thread : b.thread;
    u.rank = a.rank ? a.rank : b.rank;   /* a task runs on one rank: the first named */
    return u;
}

/* >>data implementation */
/* The slot at index (its page allocated), under data_lock */
static dag__data_slot *dag__data_slot_at(uint32_t index) {
    return &atomic_load(&dag__g.data_pages[index / DAG__DATA_PAGE])[index % DAG__DATA_PAGE];
}
/* The generations given so far are closed: this cycle's (or the next one's)
   start above them, and a handle of theirs is of an earlier set-up. (After
   2^32 generations in all, the floor stays at the last one.) */
static void dag__data_gens_close(void) {
    uint32_t top = dag__g.data_gen_top;
    __atomic_store_n(&dag__data_gen_floor, top == UINT32_MAX ? top : top + 1, __ATOMIC_SEQ_CST);
}
static dag__data_slot *dag__data_slot_of(dag_data h) {
    uint32_t index = (uint32_t)(h.id & 0xffffffffu);
    if (!index) return NULL;
    index--;
    if (index / DAG__DATA_PAGE >= DAG__DATA_PAGES) return NULL;
    dag__data_slot *page = atomic_load_explicit(&dag__g.data_pages[index / DAG__DATA_PAGE], memory_order_acquire);
    if (!page) return NULL;
    dag__data_slot *s = &page[index % DAG__DATA_PAGE];
    if (!s->live || s->gen != (uint32_t)(h.id >> 32)) return NULL;
    return s;
}

/* For the rank layer (>>mpi seam): a registered span's pointer and shape,
   and where this rank keeps its copy of a span another rank owns (packed:
   its rows one after another; NULL: none). */
static inline bool dag__data_shape(dag_data h, void **ptr, size_t *rows, size_t *width, size_t *stride) {
    dag__data_slot *s = dag__data_slot_of(h);
    if (!s) return false;
    *ptr = s->ptr;
    *rows = s->rows;
    *width = s->width;
    *stride = s->stride;
    return true;
}
static inline void dag__data_place(dag_data h, void *memory) {
    dag__data_slot *s = dag__data_slot_of(h);
    if (!s) return;
    s->ptr = memory;
    if (memory) s->stride = s->width;
}

/* A span of rows runs, `per_row` elements of `size` bytes apart, whose
   bytes cannot exist (a negative count turned into a huge size_t, or an
   overflowing product): says so in buf and returns it, else NULL. Checked
   in every build: such a span would otherwise wrap around. */
static DAG__NOINLINE const char *dag__span_too_big_slow(size_t rows, size_t per_row, size_t size, char *buf,
                                                       size_t buf_size) {
    const size_t most = (size_t)PTRDIFF_MAX;
    size_t bad = rows > most ? rows : per_row > most ? per_row : 0;
    if (bad) {
        snprintf(buf, buf_size, "a count of %zu (%td as a signed number): a count, rows, cols or ld is negative", bad,
                 (ptrdiff_t)bad);
        return buf;
    }
    if (size && (per_row > most / size || (per_row && rows > most / size / per_row))) {
        snprintf(buf, buf_size, "%zu x %zu elements of %zu bytes do not fit in memory", rows, per_row, size);
        return buf;
    }
    return NULL;
}
/* Every spawn of a span asks: under 2^20 rows of under 2^31 elements of
   under 2^11 bytes (2^62 bytes at most) needs no division. */
static inline const char *dag__span_too_big(size_t rows, size_t per_row, size_t size, char *buf, size_t buf_size) {
    if (DAG__LIKELY(((uint64_t)rows >> 20 | (uint64_t)per_row >> 31 | (uint64_t)size >> 11) == 0)) return NULL;
    return dag__span_too_big_slow(rows, per_row, size, buf, buf_size);
}

/* Registers rows runs of width bytes, stride apart, of elem-byte elements; `who` names the caller in errors. */
/* owned_elsewhere: another rank owns the span, so it may have no memory
   here yet (dag_data_register_on) */
static dag_data dag__data_register_span(void *ptr, size_t rows, size_t width, size_t stride, size_t elem,
                                        bool owned_elsewhere, const char *who) {
    dag_data h = {0};
    DAG__AS_GUEST(dag_data, who, false, h, dag__data_register_span(ptr, rows, width, stride, elem, owned_elsewhere, who))
    if ((!ptr && !owned_elsewhere) || !rows || !width) {
        dag__err(DAG_ERR_INVALID_ARGUMENT, "%s: NULL pointer or zero size", who);
        return h;
    }
    if (rows > 1 && width > stride) {
        dag__err(DAG_ERR_BAD_TILE, "%s: %zu-byte rows %zu bytes apart overlap each other", who, width, stride);
        return h;
    }
    if (!dag__current_context()) {
        dag__shut_down_err(who, NULL);
        return h;
    }
    dag__mutex_lock(&dag__g.data_lock);
    uint32_t index;
    /* a freed slot is used again, unless its generation has come to the last (after 2^32 spans in it:
       one more would name an old handle's span), which leaves it unused for good */
    while (dag__g.data_free && dag__data_slot_at(dag__g.data_free - 1)->gen == UINT32_MAX)
        dag__g.data_free = dag__data_slot_at(dag__g.data_free - 1)->next_free;
    if (dag__g.data_free) {
        index = dag__g.data_free - 1;
        dag__g.data_free = dag__data_slot_at(index)->next_free;
    } else {
        index = dag__g.data_count;
        if (index >= DAG_MAX_REGISTERED) {
            dag__mutex_unlock(&dag__g.data_lock);
            dag__err(DAG_ERR_OUT_OF_MEMORY, "%s: %lu spans are registered already, the most at once (DAG_MAX_REGISTERED: "
                     "define it higher, or register fewer, larger spans or tiles)", who,
                     (unsigned long)DAG_MAX_REGISTERED);
            return h;
        }
        if (!atomic_load(&dag__g.data_pages[index / DAG__DATA_PAGE])) {
            dag__data_slot *page = (dag__data_slot *)dag__xmalloc(DAG__DATA_PAGE * sizeof *page);
            memset(page, 0, DAG__DATA_PAGE * sizeof *page);
            atomic_store_explicit(&dag__g.data_pages[index / DAG__DATA_PAGE], page, memory_order_release);
        }
        dag__g.data_count++;
    }
    dag__data_slot *s = dag__data_slot_at(index);
    s->ptr = ptr;
    s->rows = rows;
    s->width = width;
    s->stride = rows == 1 ? width : stride;
    s->elem = elem;
    /* A slot's generations go up from the cycle's floor, which is above every generation an earlier
       cycle gave (dag__data_gens_close), so that a handle kept from an earlier set-up, or from an earlier
       span in this slot, names no span of now. (The pages go at shutdown, and each slot's count with
       them; the highest count given stays.) */
    s->gen = s->gen >= dag__data_gen_floor ? s->gen + 1 : dag__data_gen_floor;
    if (s->gen > dag__g.data_gen_top) dag__g.data_gen_top = s->gen;
    s->live = 1;
    s->owned = 0;
    h.id = (uint64_t)s->gen << 32 | (index + 1);
    dag__mutex_unlock(&dag__g.data_lock);
    return h;
}
/* A size that cannot be: reported, and true. */
static bool dag__register_too_big(size_t rows, size_t per_row, size_t elem_size, const char *who) {
    char buf[200];
    const char *why = dag__span_too_big(rows, per_row, elem_size, buf, sizeof buf);
    if (why) dag__err(DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, why);
    return why != NULL;
}
dag_data dag_data_register(void *ptr, size_t count, size_t elem_size) {
    if (dag__register_too_big(1, count, elem_size, "dag_data_register")) return (dag_data){0};
    return dag__data_register_span(ptr, 1, count * elem_size, 0, elem_size, false, "dag_data_register");
}
dag_data dag_data_register_tile(void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size) {
    if (dag__register_too_big(rows, cols > ld ? cols : ld, elem_size, "dag_data_register_tile")) return (dag_data){0};
    return dag__data_register_span(ptr, rows, cols * elem_size, ld * elem_size, elem_size, false, "dag_data_register_tile");
}

/* Registered on `rank`: its memory there; the other ranks' copies are
   dag.h's (their ptr may be NULL until a task there needs it). */
static dag_data dag__data_register_on(int rank, void *ptr, size_t rows, size_t width, size_t stride, size_t elem,
                                      const char *who) {
    dag_data none = {0};
    DAG__AS_GUEST(dag_data, who, false, none, dag__data_register_on(rank, ptr, rows, width, stride, elem, who))
    if (!dag__current_context()) return none;
    if (rank < 0 || rank >= dag_num_ranks()) {
        dag__err(DAG_ERR_INVALID_ARGUMENT, "%s: rank %d, but the ranks are 0 to %d", who, rank, dag_num_ranks() - 1);
        return none;
    }
    if (rank == dag_rank() && !ptr) {
        dag__err(DAG_ERR_INVALID_ARGUMENT, "%s: the span lives on this rank (%d): its pointer may not be NULL", who, rank);
        return none;
    }
    dag_data h = dag__data_register_span(ptr, rows, width, stride, elem, rank != dag_rank(), who);
    if (h.id) dag__mpi_registered(rank, h);
    return h;
}
dag_data dag_data_register_on(int rank, void *ptr, size_t count, size_t elem_size) {
    if (dag__register_too_big(1, count, elem_size, "dag_data_register_on")) return (dag_data){0};
    return dag__data_register_on(rank, ptr, 1, count * elem_size, 0, elem_size, "dag_data_register_on");
}
static dag_data dag__data_register_tile_on(int rank, void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size,
                                           const char *who) {
    if (dag__register_too_big(rows, cols > ld ? cols : ld, elem_size, who)) return (dag_data){0};
    return dag__data_register_on(rank, ptr, rows, cols * elem_size, ld * elem_size, elem_size, who);
}
dag_data dag_data_register_tile_on(int rank, void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size) {
    return dag__data_register_tile_on(rank, ptr, rows, cols, ld, elem_size, "dag_data_register_tile_on");
}

/* The replica record of a registered span: NULL when no device has it. */
static dag__span dag__data_span(const dag__data_slot *s) {
    dag__span sp;
    sp.lo = (uintptr_t)s->ptr;
    sp.hi = sp.lo + (s->rows - 1) * s->stride + s->width;
    sp.width = s->width;
    sp.stride = s->stride;
    sp.rows = s->rows;
    return sp;
}
void *dag_data_pointer(dag_data h) {
    DAG__AS_GUEST(void *, "dag_data_pointer", true, NULL, dag_data_pointer(h))   /* (it may wait for a copy home) */
    dag__data_slot *s = dag__data_slot_of(h);
    if (s && dag__data_home(s, DAG__HOME_KEEP)) return NULL;
    return s ? s->ptr : NULL;
}

static dag_data dag__data_make_resident(dag_data h) {
    DAG__AS_GUEST(dag_data, "dag_data_register_resident", false, h, dag__data_make_resident(h))
    dag__data_slot *s = dag__data_slot_of(h);
    if (s) dag__data_keep_on_device(s);
    return h;
}
dag_data dag_data_register_resident(void *ptr, size_t count, size_t elem_size) {
    return dag__data_make_resident(dag_data_register(ptr, count, elem_size));
}
dag_data dag_data_register_resident_tile(void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size) {
    return dag__data_make_resident(dag_data_register_tile(ptr, rows, cols, ld, elem_size));
}
dag_data dag_data_register_resident_tile_on(int rank, void *ptr, size_t rows, size_t cols, size_t ld, size_t elem_size) {
    dag_data h = dag__data_register_tile_on(rank, ptr, rows, cols, ld, elem_size, "dag_data_register_resident_tile_on");
    return rank == dag_rank() ? dag__data_make_resident(h) : h;
}

/* A record from this thread's pool holding one reference. Its refs are only
   ever added to: a stale handle may be inside dag__ref_handle right now. */
/* A record with `refs` references. A free record has none, and a stale
   handle takes one only from a record that has some (dag__ref_handle), so
   a plain store sets them. */
static dag__task *dag__task_alloc(dag__worker *w, uint32_t *gen_out, int32_t refs) {
    dag__task *t = (dag__task *)dag__pool_alloc(&w->tasks);
    uint32_t gen = atomic_load_explicit(&t->gen, memory_order_relaxed);
    if (DAG__UNLIKELY(gen == 0)) {   /* a fresh record: it belongs to this pool for good */
        atomic_store_explicit(&t->gen, gen = 1, memory_order_relaxed);
        t->home = &w->tasks;
        /* its atomic words are only touched atomically; helgrind cannot tell */
        DAG__HG_IGNORE(t, offsetof(dag__task, flags));
        DAG__HG_IGNORE(&t->failed_dep, sizeof t->failed_dep);
        DAG__HG_IGNORE(&t->ended, sizeof t->ended);
        DAG__HG_IGNORE(&t->parent, sizeof t->parent);   /* read by waiting threads before they hold it */
        DAG__HG_IGNORE(&t->level, sizeof t->level);
    }
    atomic_store_explicit(&t->refs, refs, memory_order_relaxed);
    DAG__COUNT(w->records_out, 1);
    *gen_out = gen;
    return t;
}

/* A handle: the record, its generation, whether it has a result, and the
   set-up cycle it belongs to. */
static dag_task dag__handle(dag__task *t, uint32_t gen, bool has_result) {
    dag_task h;
    h.ptr = t;
    h.gen = gen;
    h.bits = (uint32_t)has_result | (__atomic_load_n(&dag__live_epoch, __ATOMIC_RELAXED) & DAG__EPOCH_MASK) << 1;
    return h;
}

/* A task its spawner may run on its own stack and be done with: a void one, or one asked to run inline
   whose result a handle carries */
static inline bool dag__stack_runnable(const dag_task_desc *desc, bool now) {
    return !desc->result_size || (now && desc->result_size <= sizeof(void *));
}

/* (a value handle's bits: dag__value_handle, in the declarations) */
static inline uint32_t dag__value_pointee(dag_task h) { return h.gen >> 16 ? DAG__ANY_POINTEE : 0; }
static inline dag_task dag__value_handle_of(const dag__task *t) {
    const dag_task_desc *d = t->desc;
    dag_task h = dag__handle(NULL, (uint32_t)d->result_size | (uint32_t)d->result_tag << 8 | (uint32_t)(d->result_pointee != 0) << 16,
                             true);
    h.bits |= DAG__VALUE_HANDLE;
    switch (d->result_size) {   /* sizes the compiler knows: a move, not a call */
    case 8: memcpy(&h.ptr, t->result, 8); break;
    case 4: memcpy(&h.ptr, t->result, 4); break;
    default: memcpy(&h.ptr, t->result, d->result_size); break;
    }
    return h;
}

/* >>undeferred: tasks that run inside their spawn */

/* The handle of a task that already ran inside its spawn: finished, nothing
   to fetch (only void tasks run that way), never a live generation. */
static dag__task dag__ran_inline;
static dag__task *dag__record_from_stack(dag__worker *w, dag__task *local, uint32_t *gen_out);
static dag_task dag__undeferred_detached(dag__worker *w, dag__context *ctx, dag__region *r, dag__task *t,
                                         const dag__span *spans, const int *modes, int num_spans, uint32_t gen);

/* Would t be ready right now? Finished predecessors that failed cancel it,
   exactly as an edge would. Changes no dependency state. */
static bool dag__quiet_pred(dag__task *t, dag__task *p) {
    if (!dag__done(p)) return false;
    if (DAG__UNLIKELY(atomic_load_explicit(&dag__g.tracing, memory_order_relaxed)) && dag__tls_worker)
        dag__trace_add_edge(dag__tls_worker, dag__trace_id(p), dag__trace_id(t));
    if (DAG__UNLIKELY(dag__poisons(p))) {
        dag__cause_set(&t->failed_dep, atomic_load(&p->failed_dep));   /* p holds its cause (dag__region_record_failure) */
    }
    return true;
}
static bool dag__quiet_entry(dag__task *t, dag__entry *e, int mode) {
    if (e->writer && !dag__quiet_pred(t, e->writer)) return false;
    if (mode & DAG_ACCESS_OUT)
        for (uint32_t i = 0; i < e->num_readers; i++)
            if (!dag__quiet_pred(t, e->readers[i])) return false;
    return true;
}

static bool dag__ready_now(dag__context *ctx, dag__region *r, dag__task *t, const dag__span *spans,
                           const int *modes, int num_spans) {
    dag__domain *d = ctx->domain;
    for (int k = 0; d && k < num_spans; k++) {
        dag__entry *e = dag__domain_find(d, &spans[k]);
        if (e && !dag__quiet_entry(t, e, modes[k])) return false;
        if (!e || e->overlapped) {
            d->num_hits = 0;
            dag__treap_query(d, d->root, &spans[k], e);
            for (size_t i = 0; i < d->num_hits; i++)
                if (!dag__quiet_entry(t, d->hits[i], modes[k])) return false;
        }
    }
    if (t->extra && t->extra->has_futures)
        for (int i = 0; i < t->desc->num_params; i++)
            if (t->extra->futures[i] && !dag__quiet_pred(t, t->extra->futures[i])) return false;
    if (r->seq)
        for (size_t i = 0; i < r->seq->prev.count; i++)
            if (!dag__quiet_pred(t, r->seq->prev.items[i])) return false;
    return true;
}

/* A task that ran inside its spawn and outlives it (it failed, or it
   detached), in a pooled record now: its spans and its sequence learn of
   it as of any spawned task, taking references on it. */
static void dag__inline_task_known(dag__worker *w, dag__context *ctx, dag__region *r, dag__task *t,
                                   const dag__span *spans, const int *modes, int num_spans) {
    dag__spawn_state st;
    dag__spawn_state_init(&st, w, t);
    if (num_spans && !ctx->domain) ctx->domain = dag__domain_new();
    for (int k = 0; k < num_spans; k++) dag__access(&st, ctx->domain, &spans[k], modes[k]);
    if (r->seq) {
        if (r->bulk) dag__list_push(&r->bulk->step, t);
        else dag__list_push(&r->seq->prev, t);
        st.refs++;
    }
    atomic_fetch_add_explicit(&t->refs, st.refs, memory_order_relaxed);
}

/* A task run on the spawner's stack failed: keep the failure where
   dag_wait and the region end find it, and where later tasks on its spans
   and in its sequence meet it. */
static DAG__NOINLINE dag_task dag__undeferred_failed(dag__worker *w, dag__context *ctx, dag__region *r, dag__task *t,
                                                    const dag__span *spans, const int *modes, int num_spans,
                                                    int status) {
    dag_task h = dag__handle(&dag__ran_inline, 1, t->desc->result_size != 0);
    dag__failed_sweep_if_due(w, r->counter);   /* inline spawns skip dag__backpressure, which sweeps too */
    dag__task *f = dag__record_from_stack(w, t, &h.gen);
    atomic_store(&f->succ, DAG__CLOSED);
    dag__region_record_failure(r->counter, f, status);
    if (f->desc->result_size) dag__retain(w, r->counter, f);   /* dag_fetch finds the failure there */
    dag__inline_task_known(w, ctx, r, f, spans, modes, num_spans);
    dag__decref(w, f);
    h.ptr = f;
    return h;
}

/* A task its spawn runs at once: spawned, run, and inline, as the stats count. */
static inline void dag__count_inlined(dag__worker *w) { DAG__COUNT(w->ran_at_spawn, 1); }

/* What a task run on the spawner's stack leaves: its handle (the result
   itself, see dag__value_handle, or the mark of a task that ran inline), or
   a record of its own when it failed or its body left work behind (`done`
   false: dag__run_body's). */
static DAG__HOT dag_task dag__undeferred_ended(dag__worker *w, dag__context *ctx, dag__region *r, dag__task *t,
                                              const dag__span *spans, const int *modes, int num_spans, bool done) {
    int status = atomic_load_explicit(&t->status, memory_order_relaxed);
    if (DAG__UNLIKELY(!r && (!done || status))) r = dag__inline_region(w, ctx, t);   /* it stays: it needs one */
    if (DAG__UNLIKELY(!done)) return dag__undeferred_detached(w, ctx, r, t, spans, modes, num_spans, 0);
    if (DAG__UNLIKELY(status)) return dag__undeferred_failed(w, ctx, r, t, spans, modes, num_spans, status);
    if (DAG__UNLIKELY(atomic_load_explicit(&t->failed_dep, memory_order_relaxed) != NULL))
        dag__cause_clear(&t->failed_dep);   /* one that runs whatever failed before it: its stack record goes now */
    if (t->extra) {
        dag__extra *x = t->extra;
        DAG_FREE(x->message);
        DAG_FREE(x->name);
        dag__pool_free(x->home, x, &w->extras);
    }
    return t->desc->result_size ? dag__value_handle_of(t) : dag__handle(&dag__ran_inline, 1, 0);
}

/* Runs a ready task on the spawner's stack. What it wrote is current, so
   the spans it wrote forget their older accesses, and a sequence continues
   from it as from a finished step. */
static DAG__HOT dag_task dag__run_undeferred(dag__worker *w, dag__context *ctx, dag__region *r, dag__task *t,
                                             const dag__span *spans, const int *modes, int num_spans) {
    for (int k = 0; ctx->domain && k < num_spans; k++) {
        if (!(modes[k] & DAG_ACCESS_OUT)) continue;
        dag__entry *e = dag__domain_find(ctx->domain, &spans[k]);
        if (!e) continue;
        if (e->writer) dag__decref(w, e->writer);
        for (uint32_t i = 0; i < e->num_readers; i++) dag__decref(w, e->readers[i]);
        e->writer = NULL;
        e->num_readers = 0;
    }
    if (r->seq && !r->bulk) {
        for (size_t i = 0; i < r->seq->prev.count; i++) dag__decref(w, r->seq->prev.items[i]);
        r->seq->prev.count = 0;
    }
    dag__count_inlined(w);
    return dag__undeferred_ended(w, ctx, r, t, spans, modes, num_spans, dag__execute(w, t));
}

/* Moves a stack record into a pooled one (its extra goes along), with the
   runtime's reference, and for a task with a result its region's, which
   the caller hands to the region's list (dag__retain). */
static dag__task *dag__record_from_stack(dag__worker *w, dag__task *local, uint32_t *gen_out) {
    dag__task *t = dag__task_alloc(w, gen_out, 1 + (local->desc->result_size != 0));
    /* field by field: refs and gen of a pooled record may be touched by a
       stale handle's dag__ref_handle at any time, so they are only added to */
    atomic_store_explicit(&t->succ, atomic_load_explicit(&local->succ, memory_order_relaxed), memory_order_relaxed);
    atomic_store_explicit(&t->pending, atomic_load_explicit(&local->pending, memory_order_relaxed), memory_order_relaxed);
    atomic_store_explicit(&t->status, atomic_load_explicit(&local->status, memory_order_relaxed), memory_order_relaxed);
    atomic_store_explicit(&t->waiters, 0, memory_order_relaxed);
    atomic_store_explicit(&t->cancel, atomic_load_explicit(&local->cancel, memory_order_relaxed), memory_order_relaxed);
    atomic_store_explicit(&t->failed_dep, atomic_load(&local->failed_dep), memory_order_relaxed);   /* local's reference */
    atomic_store_explicit(&t->ended, 0, memory_order_relaxed);
    atomic_store_explicit(&t->parent, atomic_load_explicit(&local->parent, memory_order_relaxed), memory_order_relaxed);
    atomic_store_explicit(&t->level, atomic_load_explicit(&local->level, memory_order_relaxed), memory_order_relaxed);
    t->flags = local->flags & ~(uint32_t)DAG__TF_UNDEFERRED;
    t->desc = local->desc;
    t->region = local->region;
    t->extra = local->extra;
    t->child_root = NULL;
    memcpy(t->args, local->args, sizeof t->args);
    memcpy(t->result, local->result, sizeof t->result);
    return t;
}

/* Whether a thread other than self runs a task now (see dag__worker.looking;
   a parked reserve thread runs none). */
static bool dag__others_running(const dag__worker *self) {
    int n = dag__slots();
    for (int i = 0; i < n; i++) {
        dag__worker *x = &dag__g.workers[i];
        if (x != self && !atomic_load_explicit(&x->looking, memory_order_relaxed) &&
            !atomic_load_explicit(&x->parked, memory_order_relaxed))
            return true;
    }
    return false;
}

/* A short timed sleep on the thread's own condition (no waker looks for it:
   it wakes when the time is up, or earlier, which is fine). */
static void dag__nap(dag__worker *w, uint64_t ns) {
    struct timespec ts = dag__timespec_of(dag__now_ns() + ns);
    dag__mutex_lock(&w->park_lock);
    dag__cond_timedwait(&w->cond, &w->park_lock, &ts);
    dag__mutex_unlock(&w->park_lock);
}

/* A spawner far ahead of the workers (more than DAG__WINDOW unfinished tasks
   per worker in its region) runs ready tasks until it is halfway back and,
   with none it may run, waits for the other threads to finish theirs. The
   dependency state it keeps then stays small and warm (libgomp caps its live
   tasks so), and a stream of tasks (a pipeline: stages ordered by InOut, a
   parallel stage between) holds a few windows of records, not the whole
   stream (TBB's pipeline has its tokens for that). It waits only while the
   region moves: when no other thread runs a task, or none of the region's
   tasks has finished for DAG__STALL_NS (what is left waits for an event, a
   device or another rank, or runs long), it spawns on, so a spawner whose
   tasks wait for its own later dag_fulfill never hangs here. Once stalled,
   it spawns on without waiting until one of them finishes (count, which
   only finishing tasks move while the region is open, says so) or its live
   tasks have doubled: a million tasks behind one gate cost a dozen waits,
   not 2 ms per 64, and a pipeline whose worker the system deschedules for
   a while (a loaded machine) stays within a few windows all the same. */
#define DAG__WINDOW 256
#define DAG__STALL_NS 2000000u
static inline int64_t dag__region_live(const dag__region *r) {
    return r->spawned - (DAG__OPEN - atomic_load_explicit(&r->count, memory_order_relaxed));
}
static DAG__NOINLINE void dag__backpressure(dag__worker *w, dag__region *r) {
    dag__failed_sweep_if_due(w, r);
    int64_t limit = (int64_t)DAG__WINDOW * dag__g.num_workers;
    int64_t live = dag__region_live(r), last = live;
    if (live <= limit || !dag__stack_room(w)) return;
    if (r->stalled_at && atomic_load_explicit(&r->count, memory_order_relaxed) == r->stalled_at &&
        live < 2 * r->stalled_live)
        return;
    r->stalled_at = 0;
    dag__isolation saved = dag__isolate(w);
    uint64_t moved_at = 0;
    for (int idle = 0; live > limit / 2; live = dag__region_live(r)) {
        dag__task *t = dag__find_work(w);
        if (t) {
            dag__run_found(w, t);
            idle = 0;
            continue;
        }
        if (!dag__others_running(w)) break;
        uint64_t now = dag__now_ns();
        if (!moved_at) DAG__COUNT(w->spawner_waits, 1);
        if (!moved_at || live < last) last = live, moved_at = now;
        else if (now - moved_at > DAG__STALL_NS) {
            r->stalled_at = atomic_load_explicit(&r->count, memory_order_relaxed);
            r->stalled_live = live;
            break;
        }
        if (++idle < 64) DAG__PAUSE();
        else dag__nap(w, 50000);
    }
    dag__unisolate(w, saved);
}

/* >>spawn */
/* A scope this task can run under, or an error saying why not. A kernel
   whose scope allows a device turns the device layer on: from then on
   tasks carry their spans (dag__plan_attach). */
static void dag__spawn_err(dag__region *r, int code, const char *fmt, ...);
static DAG__NOINLINE bool dag__scope_admit(dag__region *r, const dag_task_desc *desc, const dag_scope *s) {
    char why[400];
    if (dag__scope_problem(desc, s, why, sizeof why)) {
        dag__spawn_err(r, DAG_ERR_SCOPE, "dag_spawn(%s): %s", desc->name, why);
        return false;
    }
    dag__devices_note_kernel(desc, s);
    return true;
}

/* Ld arguments: each names one of the task's spans (a handle its own, a pointer the spans starting
   there, which must agree on their pitch). The record gets the host's ld; span_of_param says -2 - k
   (span k) for the device layer, which gives a kernel the packed pitch instead. Off the hot path. */
static DAG__NOINLINE int dag__resolve_lds(const dag_task_desc *desc, const dag_arg *args, int num_args,
                                          unsigned char *packed, const dag__span *spans, const size_t *elems,
                                          int num_spans, int8_t *span_of_param, int *bad, bool *ambiguous) {
    for (int i = 0; i < num_args; i++) {
        if (args[i].kind != DAG__ARG_LD) continue;
        const dag__data_slot *s = args[i].data.id ? dag__data_slot_of(args[i].data) : NULL;
        dag__span own = s ? dag__data_span(s) : (dag__span){ 0, 0, 0, 0, 0 };
        int k = -1;
        for (int c = 0; c < num_spans; c++) {
            if (s ? !dag__span_eq(&spans[c], &own) : spans[c].lo != (uintptr_t)args[i].ptr) continue;
            if (k >= 0 && spans[c].stride / elems[c] != spans[k].stride / elems[k]) { k = -2; break; }
            k = c;
        }
        if (k < 0) {
            *bad = i;
            *ambiguous = k == -2;
            return DAG_ERR_INVALID_ARGUMENT;
        }
        uint64_t ld = spans[k].stride / elems[k];
        dag__convert(packed + desc->params[i].offset, (int)desc->params[i].tag, desc->params[i].size, &ld,
                     DAG__TAG_OF_TYPE(uint64_t), sizeof ld);
        span_of_param[i] = (int8_t)(-2 - k);
    }
    return 0;
}

/* Logs a failed spawn. Inside a region only the first is logged (a loop of
   127 bad spawns says it once); dag_region_end counts the rest. Outside
   any region each one is. */
static void dag__spawn_verr(dag__region *r, int code, const char *fmt, va_list ap) {
    if (r && r->counter && r->counter->kind != 0 && r->counter->spawn_failures++ > 0) return;
    dag__vlog(DAG_LOG_ERROR, code, fmt, ap);
}
static DAG__NOINLINE void dag__spawn_err(dag__region *r, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    dag__spawn_verr(r, code, fmt, ap);
    va_end(ap);
}

static dag_task dag__failed_handle(dag__region *r, int code) {
    dag_task h = dag__handle(NULL, (uint32_t)code, 0);   /* a handle with no record carries its error */
    if (r && !r->counter->spawn_error) r->counter->spawn_error = code;
    return h;
}

/* For the rank layer (>>mpi seam): a spawn of the main context refused,
   logged and counted in its innermost region as dag_spawn's own are. */
static inline dag_task dag__main_refuse(int code, const char *fmt, ...) {
    dag__region *r = dag__ctx_top(dag__tls_worker, &dag__main_ctx);
    va_list ap;
    va_start(ap, fmt);
    dag__spawn_verr(r, code, fmt, ap);
    va_end(ap);
    return dag__failed_handle(r, code);
}

static bool dag__task_done_fn(void *t) { return dag__done((dag__task *)t); }

/* What spawns say of C types, and the rule a value (Val, Fut) follows. */
enum { DAG__KIND_UNKNOWN, DAG__KIND_INTEGER, DAG__KIND_FLOATING, DAG__KIND_OTHER, DAG__KIND_VOID };
static int dag__tag_kind(int tag) {
    return !tag ? DAG__KIND_UNKNOWN : tag <= 12 ? DAG__KIND_INTEGER : tag <= 15 ? DAG__KIND_FLOATING
         : tag == DAG__TAG_OTHER ? DAG__KIND_OTHER : DAG__KIND_VOID;
}
static const char *dag__tag_name(int tag) {
    switch (tag) {
#define DAG__TAG_NAME(T, n) case n: return DAG__STR(T);
    DAG__TYPE_TAGS(DAG__TAG_NAME)
#undef DAG__TAG_NAME
    case DAG__TAG_VOID: return "void";
    default: return "a struct or pointer";
    }
}
/* A result of type tag and size (pointee: it is a pointer, 0: it is not) passed for p: a number converts
   into a number; else the bytes go as they are, a pointer's into a pointer, a struct's into a struct of
   its size (a struct's bytes are no address) */
static bool dag__pointees_differ(uint32_t want, uint32_t have);
static bool dag__value_fits(const dag__param *p, int tag, size_t size, uint32_t pointee) {
    return p->tag && tag ? true
                         : !p->tag && !tag && p->size == size && !p->pointee == !pointee && !dag__pointees_differ(p->pointee, pointee);
}
/* Two pointee codes (dag__param's) that Val would not pass one for the other: pointers to numbers of
   another kind or size, or to numbers and to other things (DAG__ANY_POINTEE: void, char, or not known:
   passes) */
static bool dag__pointees_differ(uint32_t want, uint32_t have) {
    if (!want || !have || want == DAG__ANY_POINTEE || have == DAG__ANY_POINTEE) return false;
    int wk = dag__tag_kind((int)(want >> 24)), hk = dag__tag_kind((int)(have >> 24));
    return wk != hk || (hk != DAG__KIND_OTHER && (want & 0xffffffu) != (have & 0xffffffu));
}

/* Fut of a task whose region has ended: its kept result, converted into the
   parameter like Val; a kept failure cancels t as a failed predecessor would. */
static DAG__NOINLINE int dag__future_kept(dag__task *t, dag_task h, const dag__param *p, void *slot) {
    unsigned char bytes[256];
    dag__kept_view v;
    if (!dag__kept_read(h, &v, NULL, 0, DAG__KEPT_READ)) return DAG_ERR_STALE_HANDLE;
    if (v.status) {
        dag__cause_set(&t->failed_dep, dag__cause_region_ended);
        return DAG_OK;
    }
    if (!dag__value_fits(p, v.tag, v.size, v.pointer ? DAG__ANY_POINTEE : 0)) return DAG_ERR_ARG_TYPE;
    void *buf = v.size <= sizeof bytes ? bytes : dag__xmalloc(v.size);
    int e = dag__kept_read(h, &v, buf, v.size, DAG__KEPT_READ) ? DAG_OK : DAG_ERR_STALE_HANDLE;
    if (!e) dag__convert(slot, (int)p->tag, p->size, buf, v.tag, v.size);
    if (buf != bytes) DAG_FREE(buf);
    return e;
}

/* Waits for t; DAG_ERR_WAIT_CYCLE (said once here) when t cannot finish
   before the waiting body does: t is that body's task, or needs it. */
/* Work first (fork-join): a body that waits runs the tasks it pushed since
   it began, newest first, until `done` holds or there are none; most waits
   end here, without the general loop's looks elsewhere (dag__help_until).
   Returns whether `done` holds. */
static DAG__HOT bool dag__work_first(dag__worker *w, bool (*done)(void *), void *arg) {
    dag__context *ctx = dag__tls_ctx;
    dag__task *body = ctx ? ctx->task : NULL;
    if (!body || w->index < 0) return done(arg);
    dag__task *x = NULL;
    while (!done(arg) && atomic_load_explicit(&w->deque.bottom, memory_order_relaxed) > ctx->deque_mark &&
           dag__stack_room(w) && (x = dag__deque_take(&w->deque)) && dag__descends_from(x, body)) {
        dag__run(w, x);
        x = NULL;
    }
    if (x) {   /* not below this body (a Fut's consumer made ready here): for the other threads */
        dag__inject(x);
        dag__wake_one();
    }
    return done(arg);
}

static int dag__wait_task(dag__worker *w, dag__task *t) {
    if (dag__done(t)) return DAG_OK;
    dag__task *body = dag__tls_ctx ? dag__tls_ctx->task : NULL;
    if (body != t && dag__work_first(w, dag__task_done_fn, t)) return DAG_OK;
    int r = DAG_ERR_WAIT_CYCLE;
    if (t != body) r = dag__help_until(w, dag__task_done_fn, t, t);
    if (r == DAG_ERR_WAIT_CYCLE && t == body) dag__err(r, "task '%s' waits for itself", dag__task_name(t));
    else if (r == DAG_ERR_WAIT_CYCLE)
        dag__err(r, "task '%s' waits for task '%s', which cannot finish before it does (a wait cycle)",
                 dag__task_name(body), dag__task_name(t));
    return r;
}


/* dag_spawn_desc's steps, in the order it takes them. */

/* The spans a spawn's arguments name, gathered while they are packed. */
typedef struct dag__spawn_args {
    dag__span spans[DAG__MAX_PARAMS];
    size_t elems[DAG__MAX_PARAMS];         /* bytes per element of each span */
    int modes[DAG__MAX_PARAMS];
    int8_t span_of_param[DAG__MAX_PARAMS]; /* the span a parameter names (-1: none; Ld: -2 - k) */
    int num_spans, num_lds;
    const char *detail;                    /* what exactly is wrong, when the result's words are not enough */
    char detail_buf[200];
} dag__spawn_args;

/* Step 1: a record for the task, on the stack when it may run at once
   (undeferred), else from the worker's pool, with its options (plain
   ones, the common case, need no look at them). */
/* What every new task starts from, whichever way it is spawned. */
/* (region: its counter, or NULL for a record of dag__run_here's without one, see dag__inline_region) */
static inline void dag__record_fill(dag__task *t, dag__region *region, const char *cancel, dag__task *parent,
                                    dag__task *link, const dag_task_desc *desc) {
    t->desc = desc;
    t->extra = NULL;
    t->region = region;
    atomic_store_explicit(&t->succ, NULL, memory_order_relaxed);
    atomic_store_explicit(&t->pending, DAG__GUARD, memory_order_relaxed);
    atomic_store_explicit(&t->status, 0, memory_order_relaxed);
    atomic_store_explicit(&t->failed_dep, cancel, memory_order_relaxed);
    if (DAG__UNLIKELY(cancel != NULL)) dag__cause_hold(cancel);
    atomic_store_explicit(&t->waiters, 0, memory_order_relaxed);
    atomic_store_explicit(&t->cancel, 0, memory_order_relaxed);
    atomic_store_explicit(&t->ended, 0, memory_order_relaxed);   /* a recycled record's says nothing of this task */
    atomic_store_explicit(&t->parent, link, memory_order_relaxed);
    atomic_store_explicit(&t->level, parent ? atomic_load_explicit(&parent->level, memory_order_relaxed) + 1 : 0,
                          memory_order_relaxed);
}
static inline void dag__record_init(dag__task *t, dag__region *r, const dag_task_desc *desc) {
    /* the region's fields read first: the atomic stores oblige a compiler to read again what follows them */
    dag__record_fill(t, r->counter, r->cancel /* NULL unless a failed step cancels it */, r->parent, r->parent_link, desc);
}

static inline dag__task *dag__spawn_record(dag__worker *w, dag__region *r, const dag_task_desc *desc,
                                           const dag_options *opt, bool scoped, bool plain, bool undeferred,
                                           dag__task *local, uint32_t *gen) {
    dag__task *t;
    if (undeferred) {
        t = local;
        atomic_init(&t->gen, 0);
        *gen = 0;
        t->home = NULL;
        t->child_root = NULL;
        t->flags = DAG__TF_UNDEFERRED | dag__mpi_spawn_flags;
    } else {
        t = dag__task_alloc(w, gen, 1 + (desc->result_size != 0));   /* the runtime's, and its region's */
        t->flags = dag__mpi_spawn_flags;
    }
    dag__record_init(t, r, desc);
    if (undeferred) atomic_init(&t->refs, 1);
    int tracing = atomic_load_explicit(&dag__g.tracing, memory_order_relaxed);
    if (DAG__UNLIKELY(!plain || tracing || desc->args_size > DAG__INLINE_ARGS ||
                      desc->result_size > DAG__INLINE_RESULT)) {
        dag__extra *x = dag__extra_of(w, t);
        x->name = opt->name ? dag__copy_text(opt->name) : NULL;
        if (opt->priority || scoped || opt->discard_results || opt->keep_results || opt->final) {
            x->inherited = *opt;          /* scope, priority and final pass to its children; its name does */
            x->inherited.name = NULL;     /* not, nor keep_results and run_inline, which are about it alone */
            x->inherited.keep_results = x->inherited.run_inline = 0;
            x->has_options = 1;
        }
        if (opt->priority > 0) {
            x->priority = opt->priority;
            t->flags |= DAG__TF_PLACED;
        }
        if (dag__scope_pins_workers(&opt->scope)) {
            x->scope = opt->scope;
            x->has_scope = 1;
            t->flags |= DAG__TF_PLACED;
        }
        if (tracing) x->trace_id = atomic_fetch_add(&dag__g.next_trace_id, 1) + 1;
        if (desc->args_size > DAG__INLINE_ARGS) x->heap_args = dag__xmalloc(desc->args_size);
        if (desc->result_size > DAG__INLINE_RESULT) x->heap_result = dag__xmalloc(desc->result_size);
    }
    return t;
}

/* Step 2, a span whose code is not the parameter's pointee (off the hot
   path): fine (0) where only the comparison could not tell, as for spans of
   a type not known (dag_arg_span, registered data: their sizes must match),
   of int for unsigned *, or of a struct for a pointer to one; else refused,
   with both types and the fix. */
static DAG__NOINLINE int dag__span_mismatch(int tag, size_t elem, const dag__param *p, dag__spawn_args *sa) {
    int want_tag = (int)(p->pointee >> 24), kind = dag__tag_kind(tag), want = dag__tag_kind(want_tag);
    size_t want_bytes = p->pointee & 0xffffffu;
    if (p->pointee && want == DAG__KIND_OTHER && (kind == DAG__KIND_UNKNOWN || kind == DAG__KIND_OTHER) &&
        p->size == sizeof(void *))   /* (the size: without gcc or clang a struct parameter looks like this) */
        return DAG_OK;
    if (p->pointee && want != DAG__KIND_OTHER && (kind == DAG__KIND_UNKNOWN || kind == want) && elem == want_bytes)
        return DAG_OK;
    char what[96];   /* (written only for a refusal: registered data passes here on every spawn) */
    if (tag && tag != DAG__TAG_OTHER) snprintf(what, sizeof what, "a span of %s", dag__tag_name(tag));
    else snprintf(what, sizeof what, "a span of %zu-byte elements%s", elem, tag ? " that are not numbers" : "");
    if (!p->pointee || p->size != sizeof(void *))
        snprintf(sa->detail_buf, sizeof sa->detail_buf, "%s for a parameter that is not a pointer: pass a value "
                 "with Val(), or make the parameter a pointer", what);
    else if (want == DAG__KIND_OTHER)
        snprintf(sa->detail_buf, sizeof sa->detail_buf, "%s for a parameter that points to something other than "
                 "numbers: pass a span of the type it points to", what);
    else
        snprintf(sa->detail_buf, sizeof sa->detail_buf, "%s for a parameter that points to %s: pass a span of %s "
                 "(convert the data), or take const void * for raw bytes", what, dag__tag_name(want_tag),
                 dag__tag_name(want_tag));
    sa->detail = sa->detail_buf;
    return DAG_ERR_ARG_TYPE;
}

/* Step 2, a span or registered data: where it points in the record, and its
   span among the task's (the same span twice counts once). Every check is
   made on every spawn; the common case (a 1-D span of the type the
   parameter points to, or any span for a void *) passes each with one test. */
static inline int dag__pack_span(const dag_arg *a, const dag__param *p, int i, void *slot, dag__spawn_args *sa) {
    const void *base = a->ptr;
    size_t rows = 1, width, stride, extent;   /* extent: first byte to one past the last */
    size_t elem = a->size;
    const char *why;
    int error;
    if (DAG__UNLIKELY(a->mode < DAG_ACCESS_IN || a->mode > DAG_ACCESS_INOUT)) {   /* from dag_arg_span at run time */
        snprintf(sa->detail_buf, sizeof sa->detail_buf, "access %d is not DAG_ACCESS_IN, DAG_ACCESS_OUT or DAG_ACCESS_INOUT",
                 (int)a->mode);
        sa->detail = sa->detail_buf;
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (a->kind == DAG__ARG_DATA) {
        dag__data_slot *s = dag__data_slot_of(a->data);
        if (!s && dag__data_earlier_setup(a->data)) sa->detail = "a data handle from an earlier set-up (gone with dag_shutdown)";
        if (!s) return DAG_ERR_BAD_DATA;
        base = s->ptr;
        rows = s->rows;
        width = s->width;
        stride = rows == 1 ? width : s->stride;
        elem = s->elem;
        extent = (rows - 1) * stride + width;   /* used only when rows > 0 */
    } else if (DAG__UNLIKELY(!a->size)) {
        sa->detail = "an element size of 0 bytes, or of 4 GiB or more (dag_arg_span and dag_arg_tile take 1 to 2^32 - 1)";
        return DAG_ERR_INVALID_ARGUMENT;
    } else if (a->tag == 2 || a->cols) {
        if (DAG__UNLIKELY(why = dag__span_too_big(a->count, a->cols > a->ld ? a->cols : a->ld, a->size,
                                                  sa->detail_buf, sizeof sa->detail_buf))) {
            sa->detail = why;
            return DAG_ERR_INVALID_ARGUMENT;
        }
        if (a->cols > a->ld) return DAG_ERR_BAD_TILE;
        rows = a->count;
        width = a->cols * a->size;
        stride = rows == 1 ? width : a->ld * a->size;
        extent = (rows - 1) * stride + width;
    } else {
        if (DAG__UNLIKELY(why = dag__span_too_big(1, a->count, a->size, sa->detail_buf, sizeof sa->detail_buf))) {
            sa->detail = why;
            return DAG_ERR_INVALID_ARGUMENT;
        }
        extent = width = stride = a->count * a->size;
    }
    if (DAG__UNLIKELY(DAG__POINTEE(a->elem, elem) != p->pointee) && p->pointee != DAG__ANY_POINTEE &&
        (error = dag__span_mismatch(a->elem, elem, p, sa)))
        return error;
    bool none = !base || !width || !rows;   /* no bytes: nothing to order */
    if (DAG__UNLIKELY(none)) {
        if (!base && width && a->kind == DAG__ARG_DATA) {
            sa->detail = "the dag_data handle has no memory on this rank: another rank owns it, and a spawn made "
                         "on one rank alone (in a task body, or on a thread of the program's own) cannot move a "
                         "rank's data; spawn it from the thread that set up, on every rank";
            return DAG_ERR_NULL_SPAN;
        }
        return !base && width ? DAG_ERR_NULL_SPAN : DAG_ERR_EMPTY_SPAN;
    }
    memcpy(slot, &base, sizeof(void *));
    dag__span sp;
    sp.lo = (uintptr_t)base;
    sp.width = width;
    sp.rows = rows;
    sp.stride = stride;
    sp.hi = sp.lo + extent;
    int mode = a->mode;
    for (int k = 0; k < sa->num_spans; k++)
        if (dag__span_eq(&sa->spans[k], &sp)) {
            sa->modes[k] |= mode;
            sa->span_of_param[i] = (int8_t)k;
            return DAG_OK;
        }
    int k = sa->num_spans++;
    sa->span_of_param[i] = (int8_t)k;
    sa->spans[k] = sp;
    sa->elems[k] = elem;
    sa->modes[k] = mode;
    return DAG_OK;
}

/* Step 2, a Fut whose producer's result does not fit the parameter (off
   the hot path: it writes the words). */
static DAG__NOINLINE int dag__future_mismatch(const char *name, int result_tag, size_t result_size, uint32_t pointee,
                                             const dag__param *p, dag__spawn_args *sa) {
    char what[64];
    if (!result_size) snprintf(what, sizeof what, "nothing (void)");
    else if (result_tag) snprintf(what, sizeof what, "%s", dag__tag_name(result_tag));
    else snprintf(what, sizeof what, "%zu bytes (a %s)", result_size, pointee ? "pointer" : "struct");
    snprintf(sa->detail_buf, sizeof sa->detail_buf, "Fut of %s%s%s, which returns %s, for a parameter %s",
             name ? "task '" : "a task run inside its spawn", name ? name : "", name ? "'" : "", what, !result_size ? "(a void task has no result to pass)"
                   : p->tag ? "that is a number (only a number converts into one)"
                   : result_tag ? "that is not a number (a number converts only into a number)"
                   : !p->pointee != !pointee ? (pointee ? "that is not a pointer" : "that is a pointer (a struct's bytes are no address)")
                   : dag__pointees_differ(p->pointee, pointee) ? "that points to another type"
                                : "of another size");
    sa->detail = sa->detail_buf;
    return DAG_ERR_ARG_TYPE;
}

/* A Fut of a handle that carries its result: the result passes as a value. */
static DAG__NOINLINE int dag__future_value(dag_task h, const dag__param *p, void *slot, dag__spawn_args *sa) {
    if (!dag__handle_current(h)) return DAG_ERR_STALE_HANDLE;
    if (!dag__value_fits(p, dag__value_tag(h), dag__value_size(h), dag__value_pointee(h)))
        return dag__future_mismatch(NULL, dag__value_tag(h), dag__value_size(h), dag__value_pointee(h), p, sa);
    dag__convert(slot, (int)p->tag, p->size, &h.ptr, dag__value_tag(h), dag__value_size(h));
    return DAG_OK;
}
/* Step 2, a Fut: the producing task becomes a dependency, or, when its
   region has ended, its kept result passes as a value. */
static inline int dag__pack_future(dag__worker *w, dag__task *t, const dag_arg *a, const dag__param *p, int i,
                                   void *slot, dag__spawn_args *sa) {
    dag_task h = a->task;
    if (dag__value_handle(h)) return dag__future_value(h, p, slot, sa);
    if (!h.ptr) return h.gen ? DAG_ERR_DEPENDENCY_FAILED : DAG_ERR_INVALID_HANDLE;
    if (!(h.bits & 1)) {
        sa->detail = "Fut of a task that returns void: it has no result to pass";
        return DAG_ERR_ARG_TYPE;
    }
    bool live = dag__ref_handle(h);
    if (live && atomic_load_explicit(&h.ptr->ended, memory_order_acquire)) {
        dag__decref(w, h.ptr);
        live = false;
    }
    if (!live) return dag__future_kept(t, h, p, slot);
    dag__task *src = h.ptr;
    if (!src->desc->result_size ||
        !dag__value_fits(p, src->desc->result_tag, src->desc->result_size, src->desc->result_pointee)) {
        int e = dag__future_mismatch(src->desc->name, src->desc->result_tag, src->desc->result_size,
                                     src->desc->result_pointee, p, sa);
        dag__decref(w, src);
        return e;
    }
    dag__extra *x = dag__extra_of(w, t);
    x->futures[i] = src;
    x->has_futures = 1;
    return DAG_OK;
}

/* A value argument's bytes: where Val put them (C++ keeps a small one in
   the argument itself: see DAG_VAL). */
/* (a small value's own copy first: see dag__arg_value_kept) */
static inline const void *dag__value_bytes(const dag_arg *a) { return a->ptr && !a->mode ? a->ptr : (const void *)&a->task; }

/* A value all of whose bytes are 0 (a 0 or a NULL for a pointer parameter) */
static bool dag__all_zero(const dag_arg *a) {
    const unsigned char *b = (const unsigned char *)dag__value_bytes(a);
    for (size_t i = 0; i < a->size; i++)
        if (b[i]) return false;
    return true;
}

/* Step 2, a value of another type than the parameter's (off the hot path):
   converted as a C call would, or refused with both types and the fix. A
   pointer goes into a pointer to the same type of number (of any sign), or
   from void * or into void * and char pointers, or between pointers to
   things other than numbers (structs: their types cannot be compared). */
static DAG__NOINLINE int dag__pack_value(const dag_arg *a, const dag__param *p, void *slot, dag__spawn_args *sa) {
    int want_tag = (int)(p->pointee >> 24), to = dag__tag_kind(a->elem);
    bool pointers = !a->tag && !p->tag && a->elem && p->pointee;
    const char *why = NULL;
    if (a->tag && !p->tag && p->pointee && dag__tag_kind(a->tag) == DAG__KIND_INTEGER && dag__all_zero(a)) {
        memset(slot, 0, p->size);   /* 0, or NULL (an integer in C++), as a C call takes it: a null pointer */
        return DAG_OK;
    }
    if (a->tag && !p->tag)   /* C would not convert another number into a pointer or a struct either */
        why = p->pointee ? "a number for a pointer parameter: pass a pointer, or In/Out/InOut(p, n) for an array"
                         : "a number for a parameter that is not a real number (a struct, or a complex number: "
                           "Val converts only between real numbers; cast the value to the parameter's type)";
    else if (!a->tag && p->tag)
        why = a->elem ? "a pointer for a number parameter: pass the number (Val(*p)), or make the parameter a pointer"
                      : "a struct for a number parameter: pass the number";
    else if (!a->tag && !p->tag && !a->elem != !p->pointee)
        why = a->elem ? "a pointer for a parameter that is not one (a struct): pass the struct (Val(*p))"
                      : "a struct for a pointer parameter: pass its address (Val(&s)), or In/Out/InOut(&s, 1)";
    else if (pointers && to != DAG__KIND_VOID && p->pointee != DAG__ANY_POINTEE &&
             (to != dag__tag_kind(want_tag) ||
              (to != DAG__KIND_OTHER && dag__tag_bytes(a->elem) != (p->pointee & 0xffffffu)))) {
        snprintf(sa->detail_buf, sizeof sa->detail_buf, "Val of a pointer to %s for a parameter that points to %s: "
                 "pass a pointer to what the parameter points to (cast it only if the data really is that)",
                 dag__tag_name(a->elem), want_tag == DAG__TAG_OTHER ? "something other than numbers"
                                                                    : dag__tag_name(want_tag));
        why = sa->detail_buf;
    }
    if (!why && !dag__convert(slot, (int)p->tag, p->size, dag__value_bytes(a), a->tag, a->size)) {
        snprintf(sa->detail_buf, sizeof sa->detail_buf, "a %u-byte value for a %u-byte parameter%s", (unsigned)a->size,
                 (unsigned)p->size, a->tag ? "" : " (Val of a struct passes its bytes: the sizes must match)");
        why = sa->detail_buf;
    }
    if (!why) return DAG_OK;
    sa->detail = why;
    return DAG_ERR_ARG_TYPE;
}

/* Step 2: argument i into the record (values converted as a C call would),
   its span noted. Nothing is shared yet, so an error just gives the record
   back. */
static inline int dag__pack_arg(dag__worker *w, dag__task *t, const dag_arg *a, const dag__param *p, int i,
                                void *slot, dag__spawn_args *sa) {
    switch (a->kind) {
    case DAG__ARG_VALUE:
        if (DAG__LIKELY(a->tag && a->tag == p->tag)) {   /* the parameter's own C type: dag__convert's copy, inlined */
            const void *v = dag__value_bytes(a);
            switch (p->size) {   /* sizes the compiler knows: a move, not a call */
            case 8: memcpy(slot, v, 8); break;
            case 4: memcpy(slot, v, 4); break;
            default: memcpy(slot, v, p->size); break;
            }
            return DAG_OK;
        }
        return dag__pack_value(a, p, slot, sa);
    case DAG__ARG_SPAN:
    case DAG__ARG_DATA:
        return dag__pack_span(a, p, i, slot, sa);
    case DAG__ARG_LD:   /* resolved once every span is known (dag__resolve_lds) */
        sa->num_lds++;
        if (a->data.id && !dag__data_slot_of(a->data)) return DAG_ERR_BAD_DATA;
        if (p->size > sizeof(uint64_t) || !p->tag) return DAG_ERR_ARG_TYPE;
        return DAG_OK;
    case DAG__ARG_FUTURE:
        return dag__pack_future(w, t, a, p, i, slot, sa);
    default:
        return DAG_ERR_INVALID_ARGUMENT;
    }
}

/* A kernel's launch arguments that cannot be: a range below 0 (a negative count, cast to size_t by
   DAG_LAUNCH, would run 2^64 items out of every span's bounds), or a span passed Out or InOut for a
   parameter that points to const: the kernel cannot write it, and on a device an Out span is not
   copied in but is copied back, over the host's bytes. */
static DAG__NOINLINE int dag__kernel_args_refused(const dag_task_desc *desc, const dag_arg *args, int num_args,
                                                  const unsigned char *packed, int *bad, dag__spawn_args *sa) {
    size_t range = 0;
    if (num_args > 0 && desc->params[0].size == sizeof range) memcpy(&range, packed + desc->params[0].offset, sizeof range);
    if (range > (size_t)PTRDIFF_MAX) {
        *bad = 0;
        sa->detail = "the launch range is below 0 (a negative count cast to size_t): DAG_LAUNCH takes a count of items";
        return DAG_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < num_args; i++) {
        const char *decl = desc->params[i].decl, *star = decl ? strchr(decl, '*') : NULL;
        if ((args[i].kind != DAG__ARG_SPAN && args[i].kind != DAG__ARG_DATA) || !(args[i].mode & DAG_ACCESS_OUT) || !star)
            continue;
        for (const char *c = strstr(decl, "const"); c && c < star; c = strstr(c + 5, "const"))
            if ((c == decl || c[-1] == ' ' || c[-1] == '(') && (c[5] == ' ' || c[5] == '*')) {
                *bad = i;
                sa->detail = "Out or InOut for a parameter that points to const: the kernel cannot write it (and "
                             "on a device its bytes would come back unwritten); pass In, or drop the const";
                return DAG_ERR_ARG_TYPE;
            }
    }
    return 0;
}

/* A bad argument: said (once per region), the record given back. */
static DAG__NOINLINE dag_task dag__spawn_refused(dag__worker *w, dag__region *r, dag__task *t, bool undeferred,
                                                const dag_task_desc *desc, const dag_arg *args, int bad, int error,
                                                const dag__spawn_args *sa, bool ld_ambiguous) {
    const char *decl = desc->params[bad].decl;
    dag__spawn_err(r, error, "dag_spawn(%s): argument %d%s%s%s: %s", desc->name, bad + 1, decl ? " (" : "",
                   decl ? decl : "", decl ? ")" : "", sa->detail ? sa->detail
                   : args[bad].kind != DAG__ARG_LD || error != DAG_ERR_INVALID_ARGUMENT ? dag_result_string(error)
                   : ld_ambiguous ? "Ld's pointer starts spans with different leading dimensions: name one by its handle"
                                  : "Ld names no span argument of the task (it takes a span's handle or first element)");
    if (undeferred) {
        dag__task_free(w, t);
    } else {
        if (desc->result_size) atomic_fetch_sub_explicit(&t->refs, 1, memory_order_relaxed);   /* its region's */
        dag__decref(w, t);
    }
    return dag__failed_handle(r, error);
}

/* Step 3: the edges from what t's spans touched before, from its futures,
   and from the step before it in a DAG_SEQUENTIAL region. */
static inline void dag__spawn_deps(dag__spawn_state *st, dag__worker *w, dag__context *ctx, dag__region *r,
                                   dag__task *t, const dag__spawn_args *sa, int num_args) {
    dag__spawn_state_init(st, w, t);
    if (sa->num_spans) {
        if (DAG__UNLIKELY(!ctx->domain)) ctx->domain = dag__domain_new();
        for (int k = 0; k < sa->num_spans; k++) dag__access(st, ctx->domain, &sa->spans[k], sa->modes[k]);
    }
    if (DAG__UNLIKELY(t->extra && t->extra->has_futures))
        for (int i = 0; i < num_args; i++)
            if (t->extra->futures[i]) dag__add_dep(st, t->extra->futures[i]);
    if (DAG__UNLIKELY(r->seq != NULL)) {
        dag__region *seq = r->seq;
        for (size_t i = 0; i < seq->prev.count; i++) dag__add_dep(st, seq->prev.items[i]);
        if (r->bulk) {
            dag__list_push(&r->bulk->step, t);
        } else {
            for (size_t i = 0; i < seq->prev.count; i++) dag__decref(w, seq->prev.items[i]);
            seq->prev.count = 0;
            dag__list_push(&seq->prev, t);
        }
        st->refs++;
    }
}

/* Step 4: counted in its region (which keeps its result past the region),
   then published: the guard dropped, keeping one count per edge; a task
   with no edge left runs here or goes to the deque. */
/* What a spawn leaves its caller to do once the spawn's own frame is gone
   (a task run here then nests no deeper than its spawner's frame). */
typedef enum dag__after_spawn { DAG__AFTER_NOTHING, DAG__AFTER_RUN, DAG__AFTER_WAIT } dag__after_spawn;

static DAG__HOT dag_task dag__spawn_publish(dag__worker *w, dag__context *ctx, dag__region *r, dag__task *t,
                                          dag__spawn_state *st, uint32_t gen, const dag_options *opt, bool now,
                                          dag__after_spawn *after) {
    const dag_task_desc *desc = t->desc;
    if (desc->result_size) {
        if (DAG__UNLIKELY(opt->discard_results | opt->keep_results)) {
            t->flags |= (opt->discard_results ? (uint32_t)DAG__TF_DISCARD : 0u) |
                        (opt->keep_results ? (uint32_t)DAG__TF_KEEP : 0u);
            if (opt->discard_results && t->extra) t->extra->discard_owner = r->discard_owner;
        }
        dag__retain(w, r->counter, t);   /* its reference came with the record */
    }
    if (st->refs) atomic_fetch_add_explicit(&t->refs, st->refs, memory_order_relaxed);
    r->counter->spawned++;
    DAG__COUNT(w->spawned, 1);
    int32_t left = 0;
    if (st->added) {   /* predecessors count it down meanwhile */
        DAG__HB(&t->pending);
        left = atomic_fetch_sub_explicit(&t->pending, DAG__GUARD - st->added, memory_order_acq_rel) -
               (DAG__GUARD - st->added);
    } else {   /* nothing else knows it yet */
        atomic_store_explicit(&t->pending, 0, memory_order_relaxed);
    }
    dag_task h = dag__handle(t, gen, desc->result_size != 0);
    /* (a thread outside the pool runs a task asked to run inline too: it has no deque to fill) */
    bool here = (now ? dag__runs_inline_on(t, w) : w->index >= 0 && dag__deque_at_least(&w->deque, dag__g.throttle) &&
                                                     dag__bypassable(t)) &&
                (!ctx->task || dag__stack_room(w));
    if (left == 0 && here) {
        /* Asked for, or plenty queued already: run it here, caches warm, memory bounded. */
        DAG__COUNT(w->inlined, 1);
        *after = DAG__AFTER_RUN;
        return h;
    }
    if (left == 0) dag__make_ready(w, t);
    /* run_inline, but it waits for predecessors (or this thread may not run
       it): finished when the spawn returns all the same */
    if (now) *after = DAG__AFTER_WAIT;
    return h;
}

/* A spawn whose scope names a rank, made on this rank alone (in a task
   body, or without MPI): it runs here, the rank dropped from its options,
   or nowhere (NULL, said). */
static DAG__NOINLINE const dag_options *dag__rank_here(dag__region *r, const dag_task_desc *desc, const dag_options *opt,
                                                       dag_options *merged) {
    if (opt->scope.rank != DAG_RANK(dag_rank())) {
        dag__spawn_err(r, DAG_ERR_SCOPE, "dag_spawn(%s): the scope names rank %d, but this spawn is made on rank %d alone "
                       "(in a task body, or a program without MPI)", desc->name, opt->scope.rank - 1, dag_rank());
        return NULL;
    }
    if (opt != merged) *merged = *opt;
    merged->scope.rank = 0;
    return merged;
}

static DAG__NOINLINE dag_task dag__spawn(const dag_task_desc *desc, const dag_arg *args, int num_args,
                                         const dag_options *options, dag__after_spawn *after);
/* No description, another argument count than the task's, or no argument array */
static DAG__NOINLINE dag_task dag__spawn_shape_refused(dag__region *r, const dag_task_desc *desc, const dag_arg *args,
                                                      int num_args) {
    if (desc && num_args == desc->num_params && num_args > 0 && !args) {
        dag__spawn_err(r, DAG_ERR_INVALID_ARGUMENT, "dag_spawn(%s): the argument array is NULL (%d arguments)",
                       desc->name, num_args);
        return dag__failed_handle(r, DAG_ERR_INVALID_ARGUMENT);
    }
    dag__spawn_err(r, DAG_ERR_ARG_COUNT, "dag_spawn(%s): %d arguments for %d parameters", desc ? desc->name : "NULL",
                   num_args, desc ? desc->num_params : 0);
    return dag__failed_handle(r, DAG_ERR_ARG_COUNT);
}
static inline dag_task dag__spawn_after(dag_task h, dag__after_spawn after);
/* a thread outside the pool: its spawn counted (>>guests), a run inside it (run_inline) too */
static DAG__NOINLINE dag_task dag__spawn_as_guest(const dag_task_desc *desc, const dag_arg *args, int num_args,
                                                  const dag_options *options, dag__after_spawn *after) {
    if (!dag__guest_enter("dag_spawn(", desc ? desc->name : "?", false)) return dag__failed_handle(NULL, DAG_ERR_SHUT_DOWN);
    dag_task h = dag__spawn(desc, args, num_args, options, after);
    h = dag__spawn_after(h, *after);
    *after = DAG__AFTER_NOTHING;
    dag__guest_leave();
    return h;
}
static DAG__NOINLINE dag_task dag__spawn(const dag_task_desc *desc, const dag_arg *args, int num_args,
                                         const dag_options *options, dag__after_spawn *after) {
    if (DAG__UNLIKELY(dag__guest_call())) return dag__spawn_as_guest(desc, args, num_args, options, after);
    dag__context *ctx = dag__current_context();
    if (DAG__UNLIKELY(!ctx)) {
        dag__shut_down_err("dag_spawn(", desc ? desc->name : "?");
        return dag__failed_handle(NULL, DAG_ERR_SHUT_DOWN);
    }
    dag__worker *w = dag__tls_worker;
    dag__region *r = dag__ctx_top(w, ctx);
    if (DAG__UNLIKELY(!desc || num_args != desc->num_params || (num_args && !args) ||
                      desc->num_params > DAG__MAX_PARAMS || desc->num_params < 0))
        return dag__spawn_shape_refused(r, desc, args, num_args);
    if (DAG__UNLIKELY((r->counter->spawned & 63) == 63)) dag__backpressure(w, r->counter);
    /* the region's options, not copied: a spawn reads a few fields of them */
    const dag_options *opt = &r->options;
    dag_options merged;
    if (DAG__UNLIKELY(options != NULL)) {
        merged = dag__merge_options(r->options, options);
        opt = &merged;
    }
    if (DAG__HAS_MPI && DAG__UNLIKELY(dag__mpi_collective(ctx))) return dag__mpi_spawn(desc, args, num_args, opt);
    bool scoped, plain;   /* plain: dag__options_plain (for the region's options, computed when they were set) */
    if (DAG__LIKELY(opt == &r->options)) {
        scoped = r->scoped;
        plain = r->plain;
    } else {
        scoped = !dag__scope_empty(&opt->scope);
        plain = dag__options_plain(opt, scoped);
    }
    if (DAG__UNLIKELY(scoped)) {
        if (opt->scope.rank && !(opt = dag__rank_here(r, desc, opt, &merged))) return dag__failed_handle(r, DAG_ERR_SCOPE);
        scoped = opt == &merged ? !dag__scope_empty(&opt->scope) : scoped;
        if (scoped && !dag__scope_admit(r, desc, &opt->scope)) return dag__failed_handle(r, DAG_ERR_SCOPE);
        plain = dag__options_plain(opt, scoped);
    }
    bool devices = dag__devices_used();

    /* Plenty queued already: a task that can finish here, run here, on the
       stack, with no record, no queue and no entry in the dependency table
       (libgomp's undeferred tasks). Memory stays bounded, caches warm. One
       asked to run inline does so with a result its handle can carry. */
    bool now = opt->run_inline | opt->final;   /* asked to run inline */
    bool undeferred = w->index >= 0 && !devices &&
                      dag__stack_runnable(desc, now) && !(desc->result_size && opt->discard_results) &&
                      (plain || (opt->priority <= 0 && (!scoped || !dag__scope_pins_workers(&opt->scope)))) &&
                      desc->args_size <= DAG__INLINE_ARGS && (now || dag__deque_at_least(&w->deque, dag__g.throttle)) &&
                      (!ctx->task || dag__stack_room(w));
    dag__task local_record;
    uint32_t gen;
    dag__task *t = dag__spawn_record(w, r, desc, opt, scoped, plain, undeferred, &local_record, &gen);

    unsigned char *packed = (unsigned char *)dag__args_of(t);
    dag__spawn_args sa;
    sa.num_spans = sa.num_lds = 0;
    sa.detail = NULL;
    int error = 0, bad = -1;
    bool ld_ambiguous = false;
    for (int i = 0; i < num_args && !error; i++)
        if ((error = dag__pack_arg(w, t, &args[i], &desc->params[i], i, packed + desc->params[i].offset, &sa))) bad = i;
    if (DAG__UNLIKELY(sa.num_lds) && !error)
        error = dag__resolve_lds(desc, args, num_args, packed, sa.spans, sa.elems, sa.num_spans, sa.span_of_param, &bad,
                                 &ld_ambiguous);
    if (DAG__UNLIKELY(desc->kernel) && !error) error = dag__kernel_args_refused(desc, args, num_args, packed, &bad, &sa);
    if (DAG__UNLIKELY(error)) return dag__spawn_refused(w, r, t, undeferred, desc, args, bad, error, &sa, ld_ambiguous);
    if (DAG__UNLIKELY(devices) && (sa.num_spans || desc->kernel))
        dag__plan_attach(w, t, args, num_args, sa.spans, sa.modes, sa.elems, sa.num_spans, sa.span_of_param, &opt->scope);
    if (undeferred) {
        if (dag__ready_now(ctx, r, t, sa.spans, sa.modes, sa.num_spans))
            return dag__run_undeferred(w, ctx, r, t, sa.spans, sa.modes, sa.num_spans);
        t = dag__record_from_stack(w, t, &gen);   /* it must wait: give it a real record */
    }
    dag__spawn_state st;
    dag__spawn_deps(&st, w, ctx, r, t, &sa, num_args);
    return dag__spawn_publish(w, ctx, r, t, &st, gen, opt, now, after);
}

/* The spawns programs make most: every argument a Val of the parameter's
   own type, plain options and region, no sequence, no device layer, no
   trace, a record with room for the arguments and the result. They are
   what dag__spawn does for such a task minus its looks at spans, futures,
   sequences and options. */
static inline void dag__pack_values(unsigned char *packed, const dag_task_desc *desc, const dag_arg *args, int num_args) {
    for (int i = 0; i < num_args; i++) {
        const dag__param *p = &desc->params[i];
        unsigned char *slot = packed + p->offset;
        switch (p->size) {   /* sizes the compiler knows: a move, not a call */
        case 8: memcpy(slot, dag__value_bytes(&args[i]), 8); break;
        case 4: memcpy(slot, dag__value_bytes(&args[i]), 4); break;
        default: memcpy(slot, dag__value_bytes(&args[i]), p->size); break;
        }
    }
}
/* A record's argument bytes: from the spawn's Vals, or as the spawn front packed them (`packed`:
   all of its DAG__FRONT_ARGS bytes, a few moves, rather than a call for args_size of them). */
DAG__STATIC_ASSERT(DAG__FRONT_ARGS == DAG__INLINE_ARGS, "the spawn front packs a record's argument bytes");
static inline void dag__fill_args(unsigned char *to, const dag_task_desc *desc, const dag_arg *args, int num_args,
                                  const void *packed) {
    if (packed) memcpy(to, packed, DAG__FRONT_ARGS);
    else dag__pack_values(to, desc, args, num_args);
}

/* A void one with plenty queued, or one asked to run inline whose handle
   can carry its result: run here, on the stack (as dag__spawn's undeferred). */
static DAG__HOT dag_task dag__run_here(dag__worker *w, dag__context *ctx, dag__region *r, const dag_task_desc *desc,
                                       const dag_arg *args, int num_args, const void *packed) {
    dag__task local;
    atomic_init(&local.gen, 0);
    atomic_init(&local.refs, 1);
    local.home = NULL;
    local.child_root = NULL;
    local.flags = DAG__TF_UNDEFERRED | dag__mpi_spawn_flags;
    if (r) {
        dag__record_init(&local, r, desc);
    } else {   /* its spawner has no region yet: nor does it, until it needs one (dag__inline_region) */
        local.flags |= DAG__TF_NO_REGION;
        dag__record_fill(&local, NULL, NULL, ctx->task, dag__parent_link(ctx->task), desc);
    }
    dag__count_inlined(w);   /* (dag__run_undeferred's, with no spans and no sequence) */
    /* Nothing else knows this record: unless a failed step or a cancelled
       region stops it (dag__execute's case), it has nothing to look at before
       its body, and the bytes the front packed (in its caller's frame, a
       writable buffer) serve the body as they are: copied, they would be read
       back in wider loads than they were stored in, which stalls. */
    bool runs = DAG__LIKELY((!r || !r->cancel) && !atomic_load_explicit(&dag__g.cancel_gen, memory_order_relaxed));
    void *body_args = (void *)(uintptr_t)packed;
    if (DAG__UNLIKELY(!runs && !r)) r = dag__inline_region(w, ctx, &local);   /* a cancel walks up from it */
    if (!runs || !packed) {
        dag__fill_args(local.args, desc, args, num_args, packed);
        body_args = local.args;
    }
    bool done = runs ? dag__run_body(w, &local, NULL, body_args, local.result, 0, 0) : dag__execute(w, &local);
    return dag__undeferred_ended(w, ctx, r, &local, NULL, NULL, 0, done);
}
/* (out of line: the record on its stack stays out of the frame of every spawn) */
static DAG__NOINLINE dag_task dag__spawn_plain_here(dag__worker *w, dag__context *ctx, dag__region *r,
                                                   const dag_task_desc *desc, const dag_arg *args, int num_args,
                                                   const void *packed) {
    return dag__run_here(w, ctx, r, desc, args, num_args, packed);
}

/* A task with a result, asked to run inline (OpenMP's if(0)) with a result
   larger than a handle carries, or spawned with plenty queued (a handle that
   carried its result would fetch again and again, where a queued task's
   fetch spends it: this one keeps the rule of every task): its record
   from the pool, but nothing else can see it until the spawn returns, so it
   runs at once and finishes with plain stores: no queue, no count in its
   region (only the result kept there for dag_fetch), no successor list to
   close, no reference but its region's. Children its body leaves running
   are waited for at its end, as for a task run on the spawner's stack. */
static DAG__NOINLINE dag_task dag__spawn_plain_now(dag__worker *w, dag__region *r, const dag_task_desc *desc,
                                                  const dag_arg *args, int num_args, const void *packed) {
    uint32_t gen;
    dag__task *t = dag__task_alloc(w, &gen, 1);
    t->flags = DAG__TF_UNDEFERRED | dag__mpi_spawn_flags;
    dag__record_init(t, r, desc);
    dag__fill_args(t->args, desc, args, num_args, packed);
    dag__count_inlined(w);
    if (DAG__UNLIKELY(!dag__execute(w, t))) {
        dag__retain(w, r->counter, t);
        return dag__undeferred_detached(w, dag__tls_ctx, r, t, NULL, NULL, 0, gen);
    }
    t->flags &= ~(uint32_t)DAG__TF_UNDEFERRED;
    atomic_store_explicit(&t->succ, DAG__CLOSED, memory_order_release);   /* done: a wait or Fut on it goes on */
    int status = atomic_load_explicit(&t->status, memory_order_relaxed);
    if (DAG__UNLIKELY(status)) dag__region_record_failure(r->counter, t, status);
    dag__retain(w, r->counter, t);
    return dag__handle(t, gen, true);
}

/* Where a spawn of plain Vals (checked by the caller) goes: DAG__PLAIN_HERE
   (on the stack, dag__spawn_plain_here), DAG__PLAIN_NOW (a pooled record run
   at once, dag__spawn_plain_now), DAG__PLAIN_QUEUE (a pooled record queued),
   or DAG__PLAIN_NO: not a plain spawn after all (options, a sequence, the
   device layer, a trace, backpressure's turn: dag__spawn takes it).
   `front`: the spawn front's, whose description is a constant of the
   spawn site, with arguments it packed in a record's bytes. */
enum { DAG__PLAIN_NO, DAG__PLAIN_HERE, DAG__PLAIN_NOW, DAG__PLAIN_QUEUE };
static DAG__HOT int dag__plain_where(const dag_task_desc *desc, bool now, bool front, dag__worker **wp,
                                   dag__context **ctxp, dag__region **rp) {
    dag__context *ctx = *ctxp = dag__tls_ctx;
    dag__worker *w = *wp = dag__tls_worker;
    if (DAG__UNLIKELY(!ctx || !w || dag__tls_guest || (!front && (!desc || desc->args_size > DAG__INLINE_ARGS)) ||
                      dag__tls_epoch != __atomic_load_n(&dag__live_epoch, __ATOMIC_RELAXED) ||
                      desc->result_size > DAG__INLINE_RESULT ||
                      atomic_load_explicit(&dag__g.tracing, memory_order_relaxed) || dag__devices_used() ||
                      (DAG__HAS_MPI && dag__mpi_collective(ctx))))
        return DAG__PLAIN_NO;   /* (a thread outside the pool: counted in dag__spawn first, >>guests) */
    dag__region *r = *rp = ctx->top;
    if (!r) {
        /* a body's first spawn (none inherited options): one that runs here needs no region yet, nor
           does its body (dag__inline_region), unless some cancel was made (dag__cancel_asked walks up
           regions). (The test of `here` below, for the region that would be made: one shared path
           measured 1% more instructions on fib and nqueens.) */
        if (dag__stack_runnable(desc, now) && ctx->task && !ctx->base && w->index >= 0 &&
            (now || dag__deque_at_least(&w->deque, dag__g.throttle)) && dag__stack_room(w) &&
            !atomic_load_explicit(&dag__g.cancel_gen, memory_order_relaxed))
            return DAG__PLAIN_HERE;
        r = *rp = dag__ctx_top(w, ctx);
    }
    if (!r->plain || r->seq) return DAG__PLAIN_NO;
    now |= r->options.run_inline != 0;   /* DAG_WITH_OPTIONS(.run_inline = 1): every spawn in it */
    bool here = w->index >= 0 && (now || dag__deque_at_least(&w->deque, dag__g.throttle)) && (!ctx->task || dag__stack_room(w));
    if (here && dag__stack_runnable(desc, now)) return DAG__PLAIN_HERE;   /* (counted nowhere: no turn to take) */
    if ((r->counter->spawned & 63) == 63) return DAG__PLAIN_NO;
    return here ? DAG__PLAIN_NOW : DAG__PLAIN_QUEUE;   /* (plenty queued: one with a result runs now too) */
}

/* False: not such a spawn, and nothing done (dag__spawn takes it, errors included). The arguments
   are `args`, or when `packed` is set, the bytes the spawn front packed of plain Vals. */
static DAG__HOT bool dag__spawn_plain(const dag_task_desc *desc, const dag_arg *args, int num_args, const void *packed,
                                    bool now, dag_task *h, dag__after_spawn *after) {
    if (!packed) {
        if (DAG__UNLIKELY(!desc || num_args != desc->num_params || (num_args && !args))) return false;
        for (int i = 0; i < num_args; i++)
            if (!dag__plain_value(&args[i], &desc->params[i])) return false;
    }
    dag__worker *w;
    dag__context *ctx;
    dag__region *r;
    switch (dag__plain_where(desc, now, packed != NULL, &w, &ctx, &r)) {
    case DAG__PLAIN_HERE: *h = dag__spawn_plain_here(w, ctx, r, desc, args, num_args, packed); return true;
    case DAG__PLAIN_NOW: *h = dag__spawn_plain_now(w, r, desc, args, num_args, packed); return true;
    case DAG__PLAIN_QUEUE: break;
    default: return false;
    }
    uint32_t gen;
    dag__task *t = dag__task_alloc(w, &gen, 1 + (desc->result_size != 0));   /* the runtime's, and its region's */
    t->flags = dag__mpi_spawn_flags;
    dag__record_init(t, r, desc);
    dag__fill_args(t->args, desc, args, num_args, packed);
    dag__spawn_state st;
    st.added = st.refs = 0;
    *h = dag__spawn_publish(w, ctx, r, t, &st, gen, &r->options, now, after);
    return true;
}

static dag_result dag__wait_handle(dag_task h, bool tell);
/* What a spawn leaves its caller to do (dag__spawn_publish's `after`) once the handle is made. */
static inline dag_task dag__spawn_after(dag_task h, dag__after_spawn after) {
    if (DAG__LIKELY(after == DAG__AFTER_NOTHING)) return h;
    if (after == DAG__AFTER_RUN) dag__run_spawned(dag__tls_worker, h.ptr);
    else dag__wait_handle(h, false);
    return h;
}

dag_task dag_spawn_desc(const dag_task_desc *desc, const dag_arg *args, int num_args, const dag_options *options) {
    dag__after_spawn after = DAG__AFTER_NOTHING;
    dag_task h;
    int now = options ? dag__options_run_inline_only(options) : 0;
    if (now < 0 || !dag__spawn_plain(desc, args, num_args, NULL, now, &h, &after))
        h = dag__spawn(desc, args, num_args, options, &after);
    return dag__spawn_after(h, after);
}

/* A spawn the front packed that is not a plain spawn after all (see dag__plain_where): the general
   path, with Vals made again of the packed bytes. Out of line: its argument array would otherwise
   sit in the frame of every spawn the front makes, a recursion's stack among them. */
static DAG__NOINLINE dag_task dag__spawn_unpacked(const dag_task_desc *desc, const void *packed, bool run_inline) {
    dag_options inline_options;
    memset(&inline_options, 0, sizeof inline_options);
    inline_options.run_inline = 1;
    dag_arg args[DAG__MAX_PARAMS];
    for (int i = 0; i < desc->num_params && i < DAG__MAX_PARAMS; i++) {
        const dag__param *p = &desc->params[i];
        args[i] = dag__arg_value((int)p->tag, p->size, (const unsigned char *)packed + p->offset);
        args[i].elem = (uint8_t)(!p->pointee ? 0u : p->pointee == DAG__ANY_POINTEE ? (uint32_t)DAG__TAG_VOID : p->pointee >> 24);
    }
    return dag_spawn_desc(desc, args, desc->num_params, run_inline ? &inline_options : NULL);
}

/* A spawn of plain Vals the front packed (see dag__spawn_packed). */
static DAG__NOINLINE dag_task dag__spawn_packed_plain(const dag_task_desc *desc, const void *packed, bool run_inline) {
    dag__after_spawn after = DAG__AFTER_NOTHING;
    dag_task h;
    if (DAG__LIKELY(dag__spawn_plain(desc, NULL, 0, packed, run_inline, &h, &after))) return dag__spawn_after(h, after);
    return dag__spawn_unpacked(desc, packed, run_inline);
}

/* The spawn front's (dag__spawn_front, in the public part): a spawn of plain
   Vals, packed by the front already, whose only option is run_inline. One
   asked to run inline that can run on this stack (OpenMP's if(0), written at
   every step of a recursion below its cut-off) goes there in this one frame. */
DAG__NOINLINE dag_task dag__spawn_packed_now(const dag_task_desc *desc, const void *packed) {
    dag__worker *w;
    dag__context *ctx;
    dag__region *r;
    if (DAG__LIKELY(dag__plain_where(desc, true, true, &w, &ctx, &r) == DAG__PLAIN_HERE))
        return dag__run_here(w, ctx, r, desc, NULL, 0, packed);
    return dag__spawn_packed_plain(desc, packed, true);
}
dag_task dag__spawn_packed(const dag_task_desc *desc, const void *packed) {
    return dag__spawn_packed_plain(desc, packed, false);
}

/* >>waiting */
/* A handle with no record carries the error its spawn met, or is invalid (zero). */
static dag_result dag__handle_error(dag_task h) {
    return (dag_result)(h.gen ? (int)h.gen : (int)DAG_ERR_INVALID_HANDLE);
}

/* A handle of a task (a value handle too) from an earlier set-up, or with none running. */
static dag_result dag__stale(const char *call);
static DAG__NOINLINE dag_result dag__not_current(const char *call) {
    return dag__current_context() ? dag__stale(call) : DAG_ERR_SHUT_DOWN;
}

/* dag_wait; `tell`: a failure counts as seen by the caller's body (not when
   the wait is a run_inline spawn's own: its body is told only by asking). */
static dag_result dag__wait_handle(dag_task h, bool tell) {
    if (dag__value_handle(h)) return dag__handle_current(h) ? DAG_OK : dag__not_current("dag_wait");   /* ran inside its spawn */
    DAG__AS_GUEST(dag_result, "dag_wait", false, (dag__refused_done(h, true), DAG_ERR_SHUT_DOWN), dag__wait_handle(h, tell))
    if (DAG__HAS_MPI && !h.ptr && dag__mpi_handle(h)) return (dag_result)dag__mpi_wait(h, NULL, 0);
    if (!h.ptr) return dag__handle_error(h);
    if (!dag__current_context()) return DAG_ERR_SHUT_DOWN;
    if (!dag__handle_current(h)) return dag__stale("dag_wait");
    if (!dag__ref_handle(h)) {   /* finished, and its region has ended: a kept result says how */
        dag__kept_view v;
        return (dag_result)(dag__kept_read(h, &v, NULL, 0, DAG__KEPT_READ) ? v.status : DAG_OK);
    }
    dag__task *t = h.ptr;
    int s = dag__wait_task(dag__tls_worker, t);
    if (!s && atomic_load(&t->ended)) {   /* the region returned its failure; a kept result says it again */
        dag__kept_view v;
        s = dag__kept_read(h, &v, NULL, 0, DAG__KEPT_READ) ? v.status : DAG_OK;
    } else if (!s) {
        s = atomic_load(&t->status);
    }
    if (s && tell) dag__failure_seen(t, s);
    int e = dag__devices_settle(false, !dag__tls_ctx->task);   /* the program or the body may read what it wrote */
    if (!s) s = e;
    dag__decref(dag__tls_worker, t);
    return (dag_result)s;
}
dag_result dag_wait(dag_task h) { return dag__wait_handle(h, true); }

static inline int dag__result_copy(dag_task h, bool held, void *out, size_t size) {
    if (!held) {
        dag__kept_view v;
        if (!dag__kept_read(h, &v, out, size, DAG__KEPT_READ)) return DAG_ERR_STALE_HANDLE;
        return v.status ? v.status : v.size == size ? DAG_OK : DAG_ERR_FETCH_SIZE;
    }
    dag__task *t = h.ptr;
    int s = dag__wait_task(dag__tls_worker, t);
    if (!s) s = atomic_load(&t->status);
    if (!s) memcpy(out, dag__result_of(t), size);
    return s;
}

bool dag_ready(dag_task h) {
    if (dag__value_handle(h)) return true;
    if (DAG__HAS_MPI && !h.ptr && dag__mpi_handle(h)) return dag__mpi_ready(h);
    if (!h.ptr) return true;
    DAG__AS_GUEST(bool, "dag_ready", false, dag__refused_done(h, false), dag_ready(h))
    if (!dag__current_context() || !dag__ref_handle(h)) return true;
    bool done = dag__done(h.ptr);
    dag__worker *w = dag__tls_worker;
    /* A loop that polls (Dagger's isready) must not spin forever on work only this thread can run: a task
       pinned to it, or any task in a pool of one thread. Such a poll runs one, as a wait would. */
    if (!done && w && w->index >= 0 && dag__stack_room(w)) {
        dag__isolation saved = dag__isolate(w);
        dag__task *t = dag__unmail(w);
        if (!t && dag_num_threads() == 1) t = dag__find_work(w);
        if (t) dag__run_found(w, t);
        dag__unisolate(w, saved);
        done = dag__done(h.ptr);
    }
    dag__decref(w, h.ptr);
    return done;
}

/* A task of the rank layer (run on one rank): the calls below ask the task
   itself on the rank that ran it. Elsewhere dag_task_result says the status
   known here; cancel and release have nothing to do (DAG_OK). */
static dag_result dag__on_rank_task(dag_task h, dag_result (*call)(dag_task), bool status_elsewhere) {
    dag_task here;
    int status;
    if (dag__mpi_here(h, &here, &status, NULL, 0)) return call(here);
    return (dag_result)(status_elsewhere || status == DAG_ERR_STALE_HANDLE ? status : DAG_OK);
}

dag_result dag_task_result(dag_task h) {
    if (dag__value_handle(h)) return dag__handle_current(h) ? DAG_OK : dag__not_current("dag_task_result");
    if (DAG__HAS_MPI && !h.ptr && dag__mpi_handle(h)) return dag__on_rank_task(h, dag_task_result, true);
    if (!h.ptr) return dag__handle_error(h);
    DAG__AS_GUEST(dag_result, "dag_task_result", false, DAG_ERR_SHUT_DOWN, dag_task_result(h))
    if (!dag__current_context()) return DAG_ERR_SHUT_DOWN;
    if (!dag__handle_current(h)) return dag__stale("dag_task_result");
    dag__kept_view v;
    if (!dag__ref_handle(h)) return (dag_result)(dag__kept_read(h, &v, NULL, 0, DAG__KEPT_READ) ? v.status : DAG_OK);
    int s = DAG_OK;
    if (dag__done(h.ptr)) {   /* once its region has ended, what the region kept says it (as for dag_wait) */
        if (!atomic_load(&h.ptr->ended)) s = atomic_load(&h.ptr->status);
        else if (dag__kept_read(h, &v, NULL, 0, DAG__KEPT_READ)) s = v.status;
    }
    if (s) dag__failure_seen(h.ptr, s);
    dag__decref(dag__tls_worker, h.ptr);
    return (dag_result)s;
}

const char *dag_task_message(dag_task h) {
    /* a few buffers in turn, so that printf("%s %s", dag_task_message(a),
       dag_task_message(b)) prints both */
    static DAG__THREAD_LOCAL char bufs[8][640];
    static DAG__THREAD_LOCAL unsigned turn;
    char *buf = bufs[turn++ % 8];
    buf[0] = 0;
    if (dag__value_handle(h)) {   /* it finished fine, in this set-up or an earlier one */
        if (!dag__handle_current(h)) snprintf(buf, sizeof bufs[0], "%s", dag_result_string(DAG_ERR_STALE_HANDLE));
        return buf;
    }
    if (DAG__HAS_MPI && !h.ptr && dag__mpi_handle(h)) {
        dag_task here;
        int status;
        return dag__mpi_here(h, &here, &status, buf, sizeof bufs[0]) ? dag_task_message(here) : buf;
    }
    if (!h.ptr) {
        if (h.gen) snprintf(buf, sizeof bufs[0], "the spawn failed: %s", dag_result_string((int)h.gen));
        return buf;
    }
    DAG__AS_GUEST(const char *, "dag_task_message", false, buf, dag_task_message(h))
    if (!dag__current_context()) return buf;
    if (!dag__handle_current(h)) {
        snprintf(buf, sizeof bufs[0], "%s", dag_result_string(DAG_ERR_STALE_HANDLE));
        return buf;
    }
    if (!dag__ref_handle(h)) {   /* a failure kept past its region keeps its words */
        dag__kept_view v;
        if (!(h.bits & 1) || !dag__kept_read(h, &v, buf, sizeof bufs[0], DAG__KEPT_READ) || !v.status) buf[0] = 0;
        return buf;
    }
    dag__task *t = h.ptr;
    int s = dag__done(t) ? atomic_load(&t->status) : 0;
    if (s) dag__failure_words(t, s, buf, sizeof bufs[0]);
    dag__decref(dag__tls_worker, t);
    return buf;
}


/* A result the handle no longer reaches (fetched, released, dropped, or
   from an earlier set-up). */
static DAG__NOINLINE dag_result dag__stale(const char *call) {
    return (dag_result)dag__err(DAG_ERR_STALE_HANDLE, "%s: stale handle (its result was fetched already, released by "
                                "dag_release or discard_results, or it is from an earlier set-up)", call);
}

/* A fetch whose output cannot take the result: NULL, or of another size (`name`: the task's, or NULL). */
static DAG__NOINLINE dag_result dag__fetch_size_refused(const char *name, const void *out, size_t size, size_t result_size) {
    const char *at = name ? "(" : "", *end = name ? ")" : "";
    if (!out)
        return (dag_result)dag__err(DAG_ERR_FETCH_SIZE, "dag_fetch%s%s%s: the output is NULL (the result is %zu bytes)", at,
                                    name ? name : "", end, result_size);
    return (dag_result)dag__err(DAG_ERR_FETCH_SIZE, "dag_fetch%s%s%s: output is %zu bytes, the result is %zu bytes", at,
                                name ? name : "", end, size, result_size);
}

/* dag_fetch after the task's region ended: the kept result. */
static dag_result dag__fetch_kind_refused(const char *name, int tag, int result_tag);
static DAG__NOINLINE dag_result dag__fetch_kept(dag_task h, void *out, size_t size, int tag) {
    dag__kept_view v;
    if (!dag__kept_read(h, &v, NULL, 0, DAG__KEPT_READ)) return dag__stale("dag_fetch");
    if (v.status) return (dag_result)v.status;
    if (size != v.size || !out) return dag__fetch_size_refused(NULL, out, size, v.size);
    if (dag__kinds_differ(tag, v.tag)) return dag__fetch_kind_refused("a task whose region has ended", tag, v.tag);
    return dag__kept_read(h, &v, out, size, DAG__KEPT_TAKE) ? DAG_OK : DAG_ERR_STALE_HANDLE;
}

dag_result dag_cancel(dag_task h) {
    if (dag__value_handle(h)) return dag__handle_current(h) ? DAG_OK : dag__not_current("dag_cancel");   /* finished */
    if (DAG__HAS_MPI && !h.ptr && dag__mpi_handle(h)) return dag__on_rank_task(h, dag_cancel, false);
    if (!h.ptr) return dag__handle_error(h);
    DAG__AS_GUEST(dag_result, "dag_cancel", false, DAG_ERR_SHUT_DOWN, dag_cancel(h))
    if (!dag__current_context()) return DAG_ERR_SHUT_DOWN;
    if (!dag__handle_current(h)) return dag__stale("dag_cancel");
    if (!dag__ref_handle(h)) return DAG_OK;   /* finished long ago */
    if (!dag__done(h.ptr) && !atomic_exchange(&h.ptr->cancel, 1)) {
        const char *cause = dag__cause_new(dag__task_name(h.ptr), "was cancelled");   /* what its dependents and region will say */
        dag__cause_set(&h.ptr->failed_dep, cause);
        dag__cause_drop(cause);
        dag__cancel_made();   /* a running task's children see it too */
    }
    dag__decref(dag__tls_worker, h.ptr);
    return DAG_OK;
}

void dag_region_cancel(void) {
    if (DAG__UNLIKELY(dag__guest_call())) {   /* (DAG__AS_GUEST, for a call that returns nothing) */
        if (!dag__guest_enter("dag_region_cancel", NULL, false)) return;
        dag_region_cancel();
        dag__guest_leave();
        return;
    }
    dag__context *ctx = dag__current_context();
    if (!ctx) return;
    atomic_store(&dag__ctx_top(dag__tls_worker, ctx)->counter->cancelled, 1);
    dag__cancel_made();
}

dag_result dag_cancel_siblings(void) {
    DAG__AS_GUEST(dag_result, "dag_cancel_siblings", false, DAG_ERR_SHUT_DOWN, dag_cancel_siblings())
    dag__context *ctx = dag__current_context();
    if (!ctx) return DAG_ERR_SHUT_DOWN;
    dag__body_region(dag__tls_worker, ctx);
    if (!ctx->task || !ctx->task->region)
        return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_cancel_siblings: called outside a task body (the "
                                    "program's own blocks are cancelled with dag_region_cancel)");
    atomic_store(&ctx->task->region->cancelled, 1);
    dag__cancel_made();
    return DAG_OK;
}

/* The context of the body this thread runs, or NULL: dag_cancelled, dag_fail and dag_detach belong
   in a body. Read only where it cannot be gone: a context of an earlier set-up cycle is, and a
   thread outside the pool between calls (dag__tls_guest) runs no body, while its context is one
   dag_shutdown may be freeing (>>guests). Sets nothing up. */
static inline dag__context *dag__body_context(void) {
    dag__context *ctx = dag__attached() && !dag__tls_guest ? dag__tls_ctx : NULL;
    return ctx && ctx->task ? ctx : NULL;
}
/* A body that sees its cancel and returns early has been cancelled: its
   status says so (one that never asks finishes as usual). */
bool dag_cancelled(void) {
    dag__context *ctx = dag__body_context();
    /* (a cancel made walks up regions: before any, a body run inside its spawn needs none) */
    if (atomic_load_explicit(&dag__g.cancel_gen, memory_order_relaxed)) dag__body_region(dag__tls_worker, ctx);
    if (!ctx || !dag__cancel_asked(ctx->task)) return false;
    int32_t fine = 0;
    atomic_compare_exchange_strong(&ctx->task->status, &fine, DAG_ERR_CANCELLED);
    return true;
}

dag_result dag_release(dag_task h) {
    if (dag__value_handle(h)) return dag__handle_current(h) ? DAG_OK : DAG_ERR_STALE_HANDLE;   /* nothing kept but itself */
    if (DAG__HAS_MPI && !h.ptr && dag__mpi_handle(h)) return (dag_result)dag__mpi_release(h);
    if (!h.ptr) return dag__handle_error(h);
    DAG__AS_GUEST(dag_result, "dag_release", false, DAG_ERR_SHUT_DOWN, dag_release(h))
    dag__context *ctx = dag__current_context();
    if (!ctx) return DAG_ERR_SHUT_DOWN;
    if (!dag__handle_current(h)) return dag__stale("dag_release");
    if (!(h.bits & 1)) {   /* a void task keeps nothing but its failure, which goes now */
        int before = 0;
        if (dag__ref_handle(h)) {
            before = atomic_fetch_or(&h.ptr->ended, 2);
            dag__decref(dag__tls_worker, h.ptr);
        }
        return (before & 2) ? DAG_ERR_STALE_HANDLE : DAG_OK;   /* released already (no log, as below) */
    }
    dag__task *t = dag__retained_take(ctx, h, 0, 0, false);
    if (t) {   /* the region's reference, handed over */
        atomic_fetch_or(&t->ended, 2);
        dag__decref(dag__tls_worker, t);
        return DAG_OK;
    }
    if (dag__ref_handle(h)) {
        int ended = atomic_fetch_or(&h.ptr->ended, 2);   /* its region drops it instead of keeping it */
        dag__decref(dag__tls_worker, h.ptr);
        if (ended & 2) return DAG_ERR_STALE_HANDLE;   /* spent: fetched or released (no log: fetch then
                                                         release is a common, harmless idiom) */
        if (!(ended & 1)) return DAG_OK;
    }
    dag__kept_view v;
    return dag__kept_read(h, &v, NULL, 0, DAG__KEPT_DROP) ? DAG_OK : DAG_ERR_STALE_HANDLE;
}

/* dag_fetch's wait and copy. A fetch that gets the value spends the handle
   (unless keep_results): `held` says the caller has the region's reference
   to t (dag__retained_take), which it drops; otherwise t is marked, and a
   result its region kept already goes. A failure is not spent: the handle
   still tells it (dag_task_message). */
static DAG__HOT dag_result dag__fetch_live(dag__worker *w, dag__context *ctx, dag__task *t, dag_task h, bool held, void *out,
                                  size_t size) {
    int s = dag__wait_task(w, t);
    if (!s) s = atomic_load_explicit(&t->status, memory_order_relaxed);
    if (!s && DAG__UNLIKELY(dag__devices_used())) s = dag__devices_settle(false, !ctx->task);   /* before the claim: its error leaves the result */
    if (DAG__UNLIKELY(s)) dag__failure_seen(t, s);
    if (held && s) {
        dag__retain(w, ctx->top->counter, t);   /* back where it was: the handle still tells */
        return (dag_result)s;
    }
    int before = 0;   /* the fetch takes the result: of two at once (two threads, one handle), one wins */
    if (!s && !(t->flags & DAG__TF_KEEP)) before = atomic_fetch_or_explicit(&t->ended, 2, memory_order_acq_rel);
    if (before & 2) {
        dag__decref(w, t);
        return dag__stale("dag_fetch");
    }
    if (!s) {
        const void *result = dag__result_of(t);
        switch (size) {   /* sizes the compiler knows: a move, not a call */
        case 8: memcpy(out, result, 8); break;
        case 4: memcpy(out, result, 4); break;
        default: memcpy(out, result, size); break;
        }
    }
    if (before & 1) {   /* its region kept a copy meanwhile: the copy goes too */
        dag__kept_view v;
        dag__kept_read(h, &v, NULL, 0, DAG__KEPT_DROP);
    }
    dag__decref(w, t);
    return (dag_result)s;
}

/* A fetch into an output of another kind (dag__kinds_differ) */
static DAG__NOINLINE dag_result dag__fetch_kind_refused(const char *name, int tag, int result_tag) {
    const char *result = result_tag ? dag__tag_name(result_tag) : "a struct or pointer";
    return (dag_result)dag__err(DAG_ERR_ARG_TYPE, "dag_fetch(%s): the output's type is %s, the result's %s: fetch into %s%s",
                                name ? name : "a task run inside its spawn", dag__tag_name(tag), result,
                                result_tag ? "a " : "a variable of the task's result type", result_tag ? result : "");
}

/* dag_fetch of a handle that carries its result: the copy inline, a refusal out of line */
static DAG__NOINLINE dag_result dag__fetch_value_refused(dag_task h, void *out, size_t size, int tag) {
    if (!dag__handle_current(h)) return dag__stale("dag_fetch");
    if (out && size == dag__value_size(h)) return dag__fetch_kind_refused(NULL, tag, dag__value_tag(h));
    return dag__fetch_size_refused(NULL, out, size, dag__value_size(h));
}
static inline dag_result dag__fetch_value(dag_task h, void *out, size_t size, int tag) {
    if (DAG__UNLIKELY(!dag__value_fetchable(h, out, size, tag))) return dag__fetch_value_refused(h, out, size, tag);
    switch (size) {   /* sizes the compiler knows: a move, not a call */
    case 8: memcpy(out, &h.ptr, 8); break;
    case 4: memcpy(out, &h.ptr, 4); break;
    default: memcpy(out, &h.ptr, size < sizeof h.ptr ? size : sizeof h.ptr); break;   /* (at most 8: gcc -O3 cannot tell) */
    }
    return DAG_OK;
}

static DAG__NOINLINE dag_result dag__fetch_record(dag_task h, void *out, size_t size, int tag);
dag_result dag__fetch_as(dag_task h, void *out, size_t size, int tag) {
    return dag__value_handle(h) ? dag__fetch_value(h, out, size, tag) : dag__fetch_record(h, out, size, tag);
}
dag_result dag_fetch_bytes(dag_task h, void *out, size_t size) { return dag__fetch_as(h, out, size, 0); }

static DAG__NOINLINE dag_result dag__fetch_record(dag_task h, void *out, size_t size, int tag) {
    DAG__AS_GUEST(dag_result, "dag_fetch", false, (dag__refused_done(h, true), DAG_ERR_SHUT_DOWN),
                  dag__fetch_record(h, out, size, tag))
    if (DAG__HAS_MPI && !h.ptr && dag__mpi_handle(h)) {
        if (!(h.bits & 1)) return (dag_result)dag__err(DAG_ERR_NO_RESULT, "dag_fetch: the task returns void");
        return (dag_result)dag__mpi_wait(h, out, size);
    }
    if (!h.ptr) return (dag_result)(h.gen ? (int)h.gen : dag__err(DAG_ERR_INVALID_HANDLE, "dag_fetch: invalid handle"));
    dag__context *ctx = dag__current_context();
    if (!ctx) return DAG_ERR_SHUT_DOWN;
    if (!dag__handle_current(h)) return dag__stale("dag_fetch");   /* (a void task's of an earlier set-up too) */
    if (!(h.bits & 1)) return (dag_result)dag__err(DAG_ERR_NO_RESULT, "dag_fetch: the task returns void");
    dag__worker *w = dag__tls_worker;
    dag__task *t = out ? dag__retained_take(ctx, h, size, tag, true) : NULL;
    if (DAG__LIKELY(t != NULL)) return dag__fetch_live(w, ctx, t, h, true, out, size);
    if (!dag__ref_handle(h)) return dag__fetch_kept(h, out, size, tag);
    t = h.ptr;
    if (out && size == t->desc->result_size && dag__kinds_differ(tag, t->desc->result_tag)) {
        dag_result e = dag__fetch_kind_refused(dag__task_name(t), tag, t->desc->result_tag);
        dag__decref(w, t);
        return e;
    }
    int ended = atomic_load_explicit(&t->ended, memory_order_acquire);
    if (ended) {   /* its region kept the result: this fetch takes the copy, unless another took the result */
        bool takes = ended == 1 && !(t->flags & DAG__TF_KEEP) && !atomic_load(&t->status) && out &&
                     size == t->desc->result_size;
        if (takes) ended = atomic_fetch_or_explicit(&t->ended, 2, memory_order_acq_rel);
        dag__decref(w, t);
        return ended == 1 ? dag__fetch_kept(h, out, size, tag) : dag__stale("dag_fetch");
    }
    if (size != t->desc->result_size || !out) {
        dag_result s = dag__fetch_size_refused(dag__task_name(t), out, size, t->desc->result_size);
        dag__decref(w, t);
        return s;
    }
    return dag__fetch_live(w, ctx, t, h, false, out, size);
}

static bool dag__region_drained(void *p) {
    dag__region *r = (dag__region *)p;
    if (atomic_load_explicit(&r->count, memory_order_acquire) != 0) return false;
    DAG__HA(&r->count);
    return true;
}

/* Closes r (see DAG__OPEN) and returns the count after closing: `target`
   plus the tasks still unfinished. */
static int64_t dag__region_shut(dag__region *r, int64_t target) {
    int64_t delta = DAG__OPEN - r->spawned - target;
    DAG__HB(&r->count);
    return atomic_fetch_sub_explicit(&r->count, delta, memory_order_seq_cst) - delta;
}

/* Waits until every task counted in r has finished, then opens r again. */
static void dag__drain(dag__worker *w, dag__region *r) {
    if (dag__region_shut(r, 0) != 0 && !dag__work_first(w, dag__region_drained, r)) {
        atomic_store_explicit(&r->waiter, w, memory_order_seq_cst);
        dag__help_until(w, dag__region_drained, r, NULL);
        atomic_store_explicit(&r->waiter, NULL, memory_order_relaxed);
    }
    DAG__HA(&r->count);
    r->spawned = r->stalled_at = 0;
    atomic_store_explicit(&r->count, DAG__OPEN, memory_order_relaxed);
}

/* >>regions implementation */
static const char *dag__region_name(int kind) {
    switch (kind) {
    case DAG_REGION_DATADEPS: return "DAG_DATADEPS";
    case DAG_REGION_SEQUENTIAL: return "DAG_SEQUENTIAL";
    case DAG_REGION_BULK: return "DAG_BULK";
    case DAG_REGION_OPTIONS: return "DAG_WITH_OPTIONS";
    default: return "root";
    }
}

/* A waiting region inside a sequence is one step of it: when the step
   failed, a finished, failed record stands in for it, so the next step is
   cancelled exactly as after a failed task. */
static const dag_task_desc dag__failed_step = { "a region in DAG_SEQUENTIAL", NULL, 0, NULL, 0, 0, 0, NULL, 0 };
static void dag__mark_step_failed(dag__worker *w, dag__region *outer, const char *cause) {
    uint32_t gen;
    dag__task *m = dag__task_alloc(w, &gen, 1);
    m->desc = &dag__failed_step;
    m->extra = NULL;
    m->flags = 0;
    m->region = NULL;
    atomic_store_explicit(&m->parent, NULL, memory_order_relaxed);
    atomic_store_explicit(&m->level, 0, memory_order_relaxed);
    atomic_store(&m->status, DAG_ERR_DEPENDENCY_FAILED);
    dag__cause_hold(cause);
    atomic_store(&m->failed_dep, cause);
    atomic_store(&m->ended, 0);
    atomic_store(&m->waiters, 0);
    atomic_store(&m->cancel, 0);
    atomic_store(&m->pending, 0);
    atomic_store(&m->succ, DAG__CLOSED);
    if (outer->bulk) {
        dag__list_push(&outer->bulk->step, m);
    } else {
        dag__task_list *prev = &outer->seq->prev;
        for (size_t i = 0; i < prev->count; i++) dag__decref(w, prev->items[i]);
        prev->count = 0;
        dag__list_push(prev, m);
    }
}

static int dag__region_close(dag__worker *w, dag__context *ctx, dag__region *r) {
    int err = DAG_OK;
    if (r->counter == r) {
        dag__drain(w, r);
        err = dag__region_error(r);
        if (err && r->outer && r->outer->seq) {
            const char *cause = atomic_load(&r->failed_name);
            dag__mark_step_failed(w, r->outer, cause ? cause : dag__cause_nested_failed);
        }
        dag__region_release(w, r);
    } else if (r->kind == DAG_REGION_BULK && r->bulk == r && r->step.count) {
        /* the step's tasks become what the next sequential spawn follows
           (an empty step leaves the previous one in place) */
        dag__task_list *prev = &r->seq->prev;
        for (size_t i = 0; i < prev->count; i++) dag__decref(w, prev->items[i]);
        dag__task_list tmp = *prev;
        *prev = r->step;
        r->step = tmp;
        r->step.count = 0;
    }
    ctx->top = r->outer;
    ctx->depth--;
    dag__region_recycle(r);
    return err;
}

/* Closes regions left open above `stop`: a return or goto out of a block, or the call `where` made
   inside the block (dag_wait_all in a DAG_DATADEPS block: the block's tasks are waited for, and its
   end, when it comes, finds it closed). */
static int dag__close_abandoned(dag__worker *w, dag__context *ctx, dag__region *stop, const char *where) {
    int found = 0;
    while (ctx->top && ctx->top != stop && ctx->top != ctx->root) {
        dag__region *r = ctx->top;
        dag__err(DAG_ERR_UNBALANCED_REGION, "%s: %s opened at depth %u is still open, and is closed here (%s inside "
                 "its block, or a return, goto or break out of it?)", where, dag__region_name(r->kind), r->depth, where);
        if (!found) dag__tls_closed.last = r->serial;   /* (closed from the innermost out) */
        dag__tls_closed.ctx = ctx;
        dag__tls_closed.first = r->serial;
        dag__tls_closed.by = where;
        dag__region_close(w, ctx, r);
        found = 1;
    }
    return found;
}

dag_region dag_region_begin(dag_region_kind kind, const dag_options *options) {
    dag_region token;
    token.depth = UINT32_MAX;   /* non-zero: a block still runs its body when the runtime is down */
    token.serial = 0;
    DAG__AS_GUEST(dag_region, dag__region_name(kind), false, token, dag_region_begin(kind, options))
    dag__context *ctx = dag__current_context();
    if (!ctx) {
        dag__shut_down_err(dag__region_name(kind), NULL);
        return token;
    }
    if (kind < DAG_REGION_DATADEPS || kind > DAG_REGION_OPTIONS) {
        dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_region_begin: unknown region kind %d", (int)kind);
        return token;
    }
    dag__worker *w = dag__tls_worker;
    dag__region *outer = dag__ctx_top(w, ctx);
    bool waits = kind == DAG_REGION_DATADEPS || kind == DAG_REGION_SEQUENTIAL;
    const char *cancel = outer->cancel;
    if (waits && outer->seq) {
        /* a nested waiting region is one step of the enclosing sequence:
           after the previous step, and cancelled if that step failed */
        for (size_t i = 0; i < outer->seq->prev.count; i++) {
            dag__task *p = outer->seq->prev.items[i];
            dag__wait_task(w, p);
            if (!cancel && dag__poisons(p)) cancel = atomic_load(&p->failed_dep);
        }
    }
    dag__region *r = dag__region_new(kind);
    dag__cause_hold(cancel);   /* its own: the step it came from may go first */
    r->cancel = cancel;
    dag__region_parent(r, ctx->task);
    r->outer = outer;
    r->depth = ++ctx->depth;
    r->serial = ++ctx->serial;
    dag__region_set_options(r, dag__merge_options(outer->options, options));
    r->discard_owner = options && options->discard_results && !outer->options.discard_results ? r->serial
                                                                                              : outer->discard_owner;
    r->counter = waits ? r : outer->counter;
    switch (kind) {
    case DAG_REGION_DATADEPS: r->seq = r->bulk = NULL; break;
    case DAG_REGION_SEQUENTIAL: r->seq = r; r->bulk = NULL; break;
    case DAG_REGION_BULK:
        /* a bulk inside a bulk adds to the same step */
        r->seq = outer->seq;
        r->bulk = outer->bulk ? outer->bulk : outer->seq ? r : NULL;
        break;
    default: r->seq = outer->seq; r->bulk = outer->bulk; break;
    }
    ctx->top = r;
    token.depth = r->depth;
    token.serial = r->serial;
    return token;
}

/* A DAG_WITH_OPTIONS(.discard_results = 1) block ends: its tasks' results go now (a task still running
   drops its own when it finishes), from the list of the region that counts them. */
static DAG__NOINLINE void dag__discard_block_end(dag__worker *w, dag__region *block) {
    dag__region *r = block->counter;
    bool dropped = false;
    for (size_t i = 0; i < r->retained.count; i++) {
        dag__task *t = r->retained.items[i];
        if ((t->flags & DAG__TF_DISCARD) && t->extra && t->extra->discard_owner == block->serial) {
            atomic_fetch_or(&t->ended, 2);
            dropped = true;
        }
    }
    if (dropped) dag__retained_sweep(w, r);
}

dag_result dag_region_end(dag_region token) {
    DAG__AS_GUEST(dag_result, "dag_region_end", true, dag__tls_last_region = DAG_ERR_SHUT_DOWN, dag_region_end(token))
    dag__context *ctx = dag__current_context();
    if (!ctx) return dag__tls_last_region = DAG_ERR_SHUT_DOWN;
    if (token.serial == 0) return dag__tls_last_region = DAG_ERR_INVALID_ARGUMENT;
    dag__worker *w = dag__tls_worker;
    dag__region *r = ctx->top;
    while (r && r != ctx->root && r->serial != token.serial) r = r->outer;
    if (!r || r == ctx->root) {
        if (dag__tls_closed.ctx == ctx && token.serial >= dag__tls_closed.first && token.serial <= dag__tls_closed.last)
            dag__err(DAG_ERR_UNBALANCED_REGION, "dag_region_end: this region was closed already, by the %s that found it "
                     "open (logged above)", dag__tls_closed.by);
        else
            dag__err(DAG_ERR_UNBALANCED_REGION, "dag_region_end: this region is not open (closed twice, or by another thread?)");
        return dag__tls_last_region = DAG_ERR_UNBALANCED_REGION;
    }
    int unbalanced = dag__close_abandoned(w, ctx, r, "dag_region_end");
    if (r->kind == DAG_REGION_OPTIONS && r->discard_owner == r->serial) dag__discard_block_end(w, r);
    bool datadeps = r->kind == DAG_REGION_DATADEPS;
    if (r->spawn_failures > 1)
        dag_log(DAG_LOG_ERROR, r->spawn_error, "dag_region_end: %d spawns in this region failed; the first is logged above, "
                "and dag_last_region_result() gives its code", r->spawn_failures);
    bool waits = datadeps || r->kind == DAG_REGION_SEQUENTIAL;
    int end = datadeps ? DAG__MPI_END_DATADEPS : DAG__MPI_END_SEQUENTIAL;   /* over ranks, a collective end */
    if (DAG__HAS_MPI && waits) dag__mpi_region_ending(ctx, end);   /* each rank's data home, in the region */
    dag__region *outer = r->outer;
    int inner = r->kind == DAG_REGION_OPTIONS ? r->inner_error : 0;
    int err = dag__region_close(w, ctx, r);
    if (waits) {   /* host memory current again */
        int e = dag__devices_settle(false, !ctx->task);
        if (!err) err = e;
    }
    if (DAG__HAS_MPI && waits) err = dag__mpi_region_ended(ctx, end, err);
    if (unbalanced) err = DAG_ERR_UNBALANCED_REGION;
    /* DAG_WITH_OPTIONS(...) DAG_DATADEPS { } reads as one block: an options block's result is that of
       the first region that failed inside it, when it has no failure of its own */
    if (!err) err = inner;
    if (err && outer && outer != ctx->root && outer->kind == DAG_REGION_OPTIONS && !outer->inner_error)
        outer->inner_error = err;
    dag__tls_last_region = (dag_result)err;
    return dag__tls_last_region;
}

dag_result dag_last_region_result(void) { return dag__tls_last_region; }

static dag__region *dag__events_region(dag__context *ctx);
/* t, detached and counted in the root of a body run inside its spawn
   (spawner), counts as one more of that body's events instead: the body's
   end must not wait for a fulfilment that may come once its spawn has
   returned. Done before anything can finish t. */
static void dag__as_spawner_event(dag__context *spawner, dag__task *t) {
    if (t->region != spawner->root) return;   /* an inner region's: its end waits, as the program asked */
    spawner->root->spawned--;   /* nothing has counted it down yet */
    t->region = dag__events_region(spawner);
    t->region->spawned++;
}
/* Called when a body returns: closes what it left open, forgets its
   dependency state, and says whether the task is finished now. */
static bool dag__end_body(dag__worker *w, dag__context *ctx) {
    dag__task *t = ctx->task;
    if (DAG__UNLIKELY(ctx->top != ctx->root) && dag__close_abandoned(w, ctx, ctx->root, dag__task_name(t))) {
        int32_t none = 0;
        atomic_compare_exchange_strong(&t->status, &none, DAG_ERR_UNBALANCED_REGION);
    }
    if (ctx->domain) dag__domain_destroy(w, ctx->domain);
    dag__region *root = ctx->root;
    if (DAG__LIKELY(!root && !ctx->events)) return true;   /* it spawned nothing and detached nothing */
    if (t->flags & DAG__TF_UNDEFERRED) {
        /* a record on the spawner's stack cannot be finished later by its
           last child: wait for the children here instead. Detached events
           are no children (their spawner may fulfil them): with any, the
           task goes on, its events region in child_root, and its spawner
           makes it a task like others (dag__undeferred_detached). */
        if (root) {
            dag__drain(w, root);
            DAG__HA(&root->count);
            dag__finish_root(w, t);
        }
        t->child_root = ctx->events;
        return !ctx->events;
    }
    if (DAG__UNLIKELY(ctx->detached) && dag__tls_inline_spawner) dag__as_spawner_event(dag__tls_inline_spawner, t);   /* dag__run_spawned's */
    if (dag__region_shut(root, DAG__OWNER) != DAG__OWNER) return false;   /* the last child finishes t */
    DAG__HA(&root->count);
    dag__finish_root(w, t);
    return true;
}

/* All children of t have finished: a child's failure fails t too, unless
   the body was told of it (dag__failure_seen). The cause named is the first
   such failure still held, else the region's first. */
static void dag__finish_root(dag__worker *w, dag__task *t) {
    dag__region *r = t->child_root;
    int err = r->spawn_error;
    if (!err && atomic_load(&r->unseen) > 0) err = dag__region_error(r);
    if (err && !atomic_load(&t->status)) {
        const char *name = atomic_load(&r->failed_name);
        for (dag__task *f = atomic_load(&r->failed); f; f = f->next)
            if (!atomic_load(&f->seen)) name = atomic_load(&f->failed_dep);
        dag__cause_set(&t->failed_dep, name ? name : dag__cause_child_failed);
        atomic_store(&t->status, DAG_ERR_DEPENDENCY_FAILED);
    }
    dag__region_release(w, r);
    dag__region_recycle(r);
    t->child_root = NULL;
}

/* ctx's root, its tasks finished: what it held let go and its failures, cancel and spawn errors
   forgotten, as new (dag_wait_all's end, and a thread's exit before the next thread takes its records) */
static void dag__root_reset(dag__worker *w, dag__context *ctx) {
    dag__region *root = ctx->root;
    dag__region_release(w, root);
    if (ctx->domain) dag__domain_clear(w, ctx->domain);   /* its tasks have finished: their spans order nothing now */
    atomic_store(&root->first_error, 0);
    atomic_store(&root->unseen, 0);
    if (atomic_exchange(&root->cancelled, 0)) dag__cancel_made();   /* what saw it cancelled asks again */
    atomic_store(&root->first_cancel, 0);
    dag__cause_clear(&root->failed_name);
    root->spawn_error = 0;
}

dag_result dag_wait_all(void) {
    DAG__AS_GUEST(dag_result, "dag_wait_all", true, DAG_ERR_SHUT_DOWN, dag_wait_all())
    dag__context *ctx = dag__current_context();
    if (!ctx) return DAG_ERR_SHUT_DOWN;
    dag__worker *w = dag__tls_worker;
    /* DAG_WITH_OPTIONS blocks the call is in stay open: a wait inside one (the program's, or a table
       operation's) waits with its options still in force. A region open above them was left by a
       return, goto or longjmp out of its block, and is closed. */
    dag__region *stop = ctx->top;
    for (dag__region *r = ctx->top; r && r != ctx->root; r = r->outer)
        if (r->kind != DAG_REGION_OPTIONS) stop = r->outer;
    int unbalanced = stop ? dag__close_abandoned(w, ctx, stop, "dag_wait_all") : 0;
    if (DAG__HAS_MPI) dag__mpi_region_ending(ctx, DAG__MPI_END_WAIT_ALL);   /* each rank's data home first */
    dag__region *root = ctx->root;
    int err = DAG_OK;
    if (root) {
        dag__drain(w, root);
        err = dag__region_error(root);
        int e = dag__devices_settle(false, !ctx->task);
        if (!err) err = e;
        dag__root_reset(w, ctx);
    }
    if (DAG__HAS_MPI) err = dag__mpi_region_ended(ctx, DAG__MPI_END_WAIT_ALL, err);
    return (dag_result)(unbalanced ? DAG_ERR_UNBALANCED_REGION : err);
}

/* What an operation that reads host memory outside its tasks waits for
   first (dag_table.h's): every task this thread spawned so far. Outside any
   block, dag_wait_all; inside the program's DAG_DATADEPS or DAG_SEQUENTIAL
   block, the same wait for the tasks spawned so far, with the block left
   open (its failures are still its own, reported at its end). Over ranks
   it is the collective point a nested block's end is. */
static inline dag_result dag__wait_spawned(void) {   /* (inline: dag_table.h alone calls it) */
    DAG__AS_GUEST(dag_result, "dag_table (its wait for the tasks spawned so far)", true, DAG_ERR_SHUT_DOWN,
                  dag__wait_spawned())
    dag__context *ctx = dag__current_context();
    if (!ctx) return DAG_ERR_SHUT_DOWN;
    bool in_block = false;
    for (dag__region *r = ctx->top; r && r != ctx->root; r = r->outer) in_block |= r->kind != DAG_REGION_OPTIONS;
    if (!in_block) return dag_wait_all();
    dag__worker *w = dag__tls_worker;
    if (DAG__HAS_MPI) dag__mpi_region_ending(ctx, DAG__MPI_END_WAIT_SPAWNED);
    for (dag__region *r = ctx->top; r; r = r->outer)
        if (r->counter == r) dag__drain(w, r);   /* (an options or bulk block counts in the region it is in) */
    int err = dag__devices_settle(false, !ctx->task);
    if (DAG__HAS_MPI) err = dag__mpi_region_ended(ctx, DAG__MPI_END_WAIT_SPAWNED, err);
    return (dag_result)err;
}

/* by_owner: the layer's object that owns the span lets go of it (dag__data_owned); the program may not */
static dag_result dag__data_unregister(dag_data h, int how, const char *call, bool by_owner) {
    DAG__AS_GUEST(dag_result, call, true, DAG_ERR_SHUT_DOWN, dag__data_unregister(h, how, call, by_owner))
    dag__context *ctx = dag__current_context();
    if (!ctx) return DAG_ERR_SHUT_DOWN;
    dag__data_slot *s = dag__data_slot_of(h);
    if (!s && dag__data_earlier_setup(h))
        return (dag_result)dag__err(DAG_ERR_STALE_HANDLE, "%s: a data handle from an earlier set-up (its span went with "
                                    "dag_shutdown)", call);
    if (!s) return (dag_result)dag__err(DAG_ERR_BAD_DATA, "%s: unknown handle", call);
    if (s->owned && !by_owner)
        return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "%s: the handle is an array's tile or a table's chunk; it "
                                    "goes with dag_array_free or dag_table_free", call);
    if (ctx->domain) {
        /* wait for every task of this context that touches the span */
        dag__domain *d = ctx->domain;
        dag__span sp = dag__data_span(s);
        d->num_hits = 0;
        dag__treap_query(d, d->root, &sp, NULL);
        for (size_t i = 0; i < d->num_hits; i++) {
            dag__entry *e = d->hits[i];
            if (e->writer) dag__wait_task(dag__tls_worker, e->writer);
            for (uint32_t k = 0; k < e->num_readers; k++) dag__wait_task(dag__tls_worker, e->readers[k]);
        }
    }
    int e = dag__data_home(s, how);
    dag__mutex_lock(&dag__g.data_lock);
    uint32_t index = (uint32_t)(h.id & 0xffffffffu) - 1;
    s->live = 0;
    s->next_free = dag__g.data_free;
    dag__g.data_free = index + 1;
    dag__mutex_unlock(&dag__g.data_lock);
    return (dag_result)e;
}
/* A span a layer (dag_array.h, dag_table.h) registered for an object of its own: the program's
   dag_data_unregister and dag_data_discard refuse it (the object would be left with a dead handle), and
   the object lets go of it (dag__data_let_go). */
DAG__UNUSED static dag_data dag__data_owned(dag_data h) {   /* (used by the layers) */
    dag__data_slot *s = dag__data_slot_of(h);
    if (s) s->owned = 1;
    return h;
}
dag_result dag_data_unregister(dag_data h) { return dag__data_unregister(h, DAG__HOME_FORGET, "dag_data_unregister", false); }
dag_result dag_data_discard(dag_data h) { return dag__data_unregister(h, DAG__HOME_DISCARD, "dag_data_discard", false); }
/* A layer's object lets go of its span (discarded: what devices hold of it is dropped where it is): nothing
   for none, nor for one of an earlier set-up, which its dag_shutdown let go already (an array or table may
   outlive a set-up cycle). */
DAG__UNUSED static void dag__data_let_go(dag_data h, bool discard) {
    if (h.id && !dag__data_earlier_setup(h))
        (void)dag__data_unregister(h, discard ? DAG__HOME_DISCARD : DAG__HOME_FORGET,
                                   discard ? "dag_data_discard" : "dag_data_unregister", true);
}

/* >>fail */
void dag_fail(int code, const char *fmt, ...) {
    dag__context *ctx = dag__body_context();
    if (!ctx) {
        dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_fail called outside a task body");
        return;
    }
    dag__task *t = ctx->task;
    dag__extra *x = dag__extra_of(dag__tls_worker, t);
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    if (fmt) vsnprintf(buf, sizeof buf, fmt, ap);
    else buf[0] = 0;
    va_end(ap);
    DAG_FREE(x->message);
    size_t n = strlen(buf) + 1;
    x->message = (char *)dag__xmalloc(n);
    memcpy(x->message, buf, n);
    atomic_store(&t->status, code ? code : DAG_ERR_TASK_FAILED);
    dag_log(DAG_LOG_ERROR, code ? code : DAG_ERR_TASK_FAILED, "task '%s' failed: %s", dag__task_name(t), buf);
}

/* >>detach: an event is a slot (index + 1 in the id's low 24 bits) and a
   serial that never repeats, not even across set-up cycles, so a stale or
   second fulfil is caught. The detached task counts as one more child of
   its body's root region: the body's end and the fulfilment both count it
   down, and whichever comes last finishes the task (dag__child_done). */
typedef struct dag__event_slot {
    uint64_t id;                           /* 0: free */
    dag__task *task;
    dag__region *root;
    uint32_t next_free;                    /* index + 1, 0 = none */
} dag__event_slot;
static uint64_t dag__event_serial;         /* under event_lock */

/* A body run inside its spawn: the region that counts what its end does not
   wait for (its events, and tasks it ran inside their spawn that detached),
   made on first use. */
static dag__region *dag__events_region(dag__context *ctx) {
    if (!ctx->events) {
        dag__region *r = dag__region_new(0);
        r->counter = r;
        r->owner_task = ctx->task;
        dag__region_parent(r, ctx->task);
        ctx->events = r;
    }
    return ctx->events;
}

dag_event dag_detach(void) {
    dag_event none = { 0 };
    dag__context *ctx = dag__body_context();
    if (!ctx) {
        dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_detach called outside a task body");
        return none;
    }
    dag__worker *w = dag__tls_worker;
    dag__body_region(w, ctx);   /* the events' region names its task as parent: cancels walk on up */
    dag__region *root;
    if (ctx->task->flags & DAG__TF_UNDEFERRED) root = dag__events_region(ctx);   /* apart from its children */
    else root = ctx->root ? ctx->root : (dag__ctx_top(w, ctx), ctx->root);
    dag__mutex_lock(&dag__g.event_lock);
    uint32_t index;
    if (dag__g.event_free) {
        index = dag__g.event_free - 1;
        dag__g.event_free = dag__g.events[index].next_free;
    } else {
        if (dag__g.events_used == dag__g.events_cap) {
            uint32_t cap = dag__g.events_cap ? dag__g.events_cap * 2 : 64;
            if (cap > (1u << 24)) {
                dag__mutex_unlock(&dag__g.event_lock);
                dag__err(DAG_ERR_OUT_OF_MEMORY, "dag_detach: %u events are pending already", dag__g.events_cap);
                return none;
            }
            dag__g.events = (dag__event_slot *)dag__xrealloc(dag__g.events, cap * sizeof *dag__g.events);
            dag__g.events_cap = cap;
        }
        index = dag__g.events_used++;
    }
    dag__event_slot *e = &dag__g.events[index];
    e->id = (++dag__event_serial << 24) | (index + 1);
    e->task = ctx->task;
    e->root = root;
    dag__g.events_pending++;
    dag_event ev = { e->id };
    dag__mutex_unlock(&dag__g.event_lock);
    root->spawned++;   /* one more child, finished by dag_fulfill */
    ctx->detached = true;
    return ev;
}

/* A task on its spawner's stack whose body detached: moves it to a pooled
   record, which its events name from then on. Under the lock, so that a
   fulfilment meanwhile marks the record before or after the move, never
   one that is gone. */
static dag__task *dag__events_off_stack(dag__worker *w, dag__task *t, uint32_t *gen_out) {
    dag__mutex_lock(&dag__g.event_lock);
    dag__task *f = dag__record_from_stack(w, t, gen_out);
    for (uint32_t i = 0; i < dag__g.events_used; i++)
        if (dag__g.events[i].id && dag__g.events[i].task == t) dag__g.events[i].task = f;
    t->child_root->owner_task = f;
    dag__region_parent(t->child_root, f);
    dag__mutex_unlock(&dag__g.event_lock);
    return f;
}

/* A body run inside its spawn called dag_detach (see >>detach): its task
   goes on until the last fulfilment, and its spawn returns. It becomes a
   task like those spawned the usual way: a pooled record (moved off the
   spawner's stack; gen 0: t is there), counted in its region, and known
   to its spans and its sequence, so that what comes after it waits for
   the fulfilment as for any unfinished task. */
static DAG__NOINLINE dag_task dag__undeferred_detached(dag__worker *w, dag__context *ctx, dag__region *r, dag__task *t,
                                                       const dag__span *spans, const int *modes, int num_spans,
                                                       uint32_t gen) {
    dag__region *events = t->child_root;
    if (!gen) {
        t = dag__events_off_stack(w, t, &gen);
        if (t->desc->result_size) dag__retain(w, r->counter, t);   /* where dag_fetch finds it */
    } else {
        t->flags &= ~(uint32_t)DAG__TF_UNDEFERRED;
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);   /* the runtime's, dropped when it finishes */
    }
    t->child_root = events;
    atomic_store_explicit(&t->pending, 0, memory_order_relaxed);
    dag__inline_task_known(w, ctx, r, t, spans, modes, num_spans);
    r->counter->spawned++;
    if (ctx->task && (ctx->task->flags & DAG__TF_UNDEFERRED)) dag__as_spawner_event(ctx, t);
    dag_task h = dag__handle(t, gen, t->desc->result_size != 0);
    if (dag__region_shut(events, DAG__OWNER) == DAG__OWNER) {   /* fulfilled already */
        DAG__HA(&events->count);
        dag__finish_root(w, t);
        dag__task *next = dag__complete(w, t);
        if (next) dag__make_ready(w, next);
    }
    return h;
}

static dag_result dag__fulfill(dag_event event, int status);
/* A fulfilment from a thread of the program may finish the last task that
   dag_shutdown's drain waits for, and go on touching records after it: the
   shutdown waits for the calls under way before it frees them (the store
   of late_closed then the load of late_running there, and here the
   add then the load: one side sees the other). */
dag_result dag_fulfill(dag_event event, int status) {
    atomic_fetch_add(&dag__g.late_running, 1);
    dag_result r = atomic_load(&dag__g.late_closed) ? DAG_ERR_SHUT_DOWN : dag__fulfill(event, status);
    atomic_fetch_sub(&dag__g.late_running, 1);
    return r;
}
static dag_result dag__fulfill(dag_event event, int status) {
    if (!dag_is_setup()) return DAG_ERR_SHUT_DOWN;   /* its task went with the runtime: never set up again here */
    /* a pool thread (an idle worker completing messages) has its record; a thread new to dag.h gets
       one, even once dag_shutdown has begun (which refuses other attaches, >>guests): the shutdown may
       be waiting for this very fulfilment, and it frees no record before late_running is 0 */
    if (!dag__attached()) dag__guest_attach();
    dag__worker *w = dag__tls_worker;
    uint32_t index = (uint32_t)(event.id & 0xffffffu);
    dag__mutex_lock(&dag__g.event_lock);
    dag__event_slot *e = index && index <= dag__g.events_used ? &dag__g.events[index - 1] : NULL;
    if (!e || !event.id || e->id != event.id) {
        dag__mutex_unlock(&dag__g.event_lock);
        return (dag_result)dag__err(DAG_ERR_INVALID_HANDLE, "dag_fulfill: the event was fulfilled already, "
                                    "or dag_detach did not give it");
    }
    dag__task *t = e->task;
    dag__region *root = e->root;
    e->id = 0;
    e->next_free = dag__g.event_free;
    dag__g.event_free = index;
    dag__g.events_pending--;
    char what[160];
    const char *name = dag__task_name(t);   /* t is alive until its last event below */
    if (status != DAG_OK) {   /* under the lock: the task's record may be moving off its spawner's stack */
        snprintf(what, sizeof what, "failed: its detached work reported %s", dag_result_string(status));
        const char *cause = dag__cause_new(name, what);
        int32_t ok = 0;
        dag__cause_set(&t->failed_dep, cause);
        dag__cause_drop(cause);
        atomic_compare_exchange_strong(&t->status, &ok, (int32_t)status);
    }
    dag__mutex_unlock(&dag__g.event_lock);
    /* a dependency's failure was said where it happened, as for any dependent; the ranks' divergence (the
       rank layer's messages, let go) by the end that found it, naming the call */
    if (status != DAG_OK && status != DAG_ERR_DEPENDENCY_FAILED && status != DAG_ERR_DIVERGED)
        dag_log(DAG_LOG_ERROR, status, "task '%s' %s", name, what);
    dag__task *owner = dag__child_done(root);
    if (owner) {   /* the body has ended and this was the last: t finishes here */
        dag__finish_root(w, owner);
        dag__task *next = dag__complete(w, owner);
        if (next) dag__make_ready(w, next);
    }
    return DAG_OK;
}

/* >>environment: the values of DAG_NUM_THREADS, DAG_WAIT_POLICY,
   DAG_BLOCKTIME, DAG_LOG, DAG_DEVICES, DAG_SIMULATE_RANKS and
   DAG_MPI_PROGRESS (>>defaults reads them). A value that does not parse
   is reported and ignored. */
static int dag__env_int(const char *name, int lo, int hi) {
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < lo || n > hi) {
        dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "%s=%s: not a whole number from %d to %d; ignored", name, v, lo, hi);
        return 0;
    }
    return (int)n;
}

static bool dag__env_is(const char *v, const char *word) {
    for (; *v && *word; v++, word++)
        if (tolower((unsigned char)*v) != *word) return false;
    return !*v && !*word;
}

/* dag_desc.log_level, or DAG_LOG where it is 0 (0 stays: the logger's default). */
static dag_log_level dag__log_level(dag_log_level asked) {
    static const char *const words[] = { "none", "error", "warn", "info" };
    static const dag_log_level levels[] = { DAG_LOG_NONE, DAG_LOG_ERROR, DAG_LOG_WARN, DAG_LOG_INFO };
    if (asked == DAG_LOG_NONE || asked == DAG_LOG_ERROR || asked == DAG_LOG_WARN || asked == DAG_LOG_INFO) return asked;
    if ((int)asked != 0) {
        dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "dag_setup: log_level %d is not a dag_log_level; using the default",
                (int)asked);
        return (dag_log_level)0;
    }
    const char *v = getenv("DAG_LOG");
    if (!v || !*v) return (dag_log_level)0;
    for (int i = 0; i < 4; i++)
        if (dag__env_is(v, words[i]) || (i == 2 && dag__env_is(v, "warning"))) return levels[i];
    dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "DAG_LOG=%s: not none, error, warn or info; ignored", v);
    return (dag_log_level)0;
}

/* The spin window of the wait policy in nanoseconds (UINT64_MAX: always). */
static uint64_t dag__wait_window(dag_desc *d) {
    const char *v = getenv("DAG_WAIT_POLICY");
    if (d->wait_policy == DAG_WAIT_DEFAULT && v && *v) {
        if (dag__env_is(v, "active")) d->wait_policy = DAG_WAIT_ACTIVE;
        else if (dag__env_is(v, "passive")) d->wait_policy = DAG_WAIT_PASSIVE;
        else if (!dag__env_is(v, "default"))
            dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "DAG_WAIT_POLICY=%s: not active, passive or default; ignored", v);
    }
    if (d->wait_policy == DAG_WAIT_ACTIVE) return UINT64_MAX;
    if (d->wait_policy == DAG_WAIT_PASSIVE) return 0;
    if (d->wait_policy != DAG_WAIT_DEFAULT)
        dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "dag_setup: wait_policy %d is not a dag_wait_policy; using the default",
                (int)d->wait_policy);
    d->wait_policy = DAG_WAIT_DEFAULT;
    v = getenv("DAG_BLOCKTIME");
    if (d->block_time_us <= 0 && v && *v) {   /* as KMP_BLOCKTIME: a bare number is milliseconds */
        char *end;
        double n = strtod(v, &end);
        double unit = dag__env_is(end, "us") ? 1 : dag__env_is(end, "s") ? 1e6 : (dag__env_is(end, "ms") || !*end) ? 1e3 : -1;
        if (dag__env_is(v, "infinite")) return UINT64_MAX;
        if (end == v || unit < 0 || !(n >= 0 && n * unit <= 1e9))   /* (NaN fails both: strtod takes "nan") */
            dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "DAG_BLOCKTIME=%s: not a time such as 200us, 5ms, 1s or "
                    "infinite; ignored", v);
        else
            return (uint64_t)(n * unit * 1000);
    }
    return (uint64_t)(d->block_time_us > 0 ? d->block_time_us : DAG_DEFAULT_BLOCK_TIME_US) * 1000u;
}

/* DAG_DEVICES / dag_desc.devices: "none", "all", or a comma-separated list
   of backends, each alone (all its devices) or with a device number from 1
   ("cuda:2"). Fills allowed[b] (bit i: device i); returns false, with the
   reason in why, when spec does not parse. */
static bool dag__devices_parse(const char *spec, uint64_t allowed[DAG_BACKEND_COUNT], char *why, size_t size) {
    static const char *const words[DAG_BACKEND_COUNT][2] = { DAG__BACKENDS(DAG__BACKEND_WORDS) };
    for (int b = 0; b < DAG_BACKEND_COUNT; b++) allowed[b] = 0;
    allowed[DAG_CPU] = ~(uint64_t)0;
    const char *p = spec;
    for (;;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, ":, ");
        char word[16] = "";
        if (n == 0 || n >= sizeof word) break;
        for (size_t i = 0; i < n; i++) word[i] = (char)tolower((unsigned char)p[i]);
        p += n;
        int b = -1;
        bool all = !strcmp(word, "all"), none = !strcmp(word, "none");
        for (int k = 0; k < DAG_BACKEND_COUNT && b < 0; k++)
            for (int j = 0; j < 2; j++)
                if (!strcmp(word, words[k][j])) b = k;
        if (b < 0 && !all && !none) {   /* "'x' is not none, all, opencl, cuda, hip or ze", from the list */
            int used = snprintf(why, size, "'%s' is not none, all", word);
            for (int k = 1; k < DAG_BACKEND_COUNT && used >= 0 && (size_t)used < size; k++)
                used += snprintf(why + used, size - (size_t)used, "%s%s", k + 1 < DAG_BACKEND_COUNT ? ", " : " or ",
                                 words[k][1]);
            return false;
        }
        uint64_t which = ~(uint64_t)0;
        if (*p == ':') {
            char *end;
            long num = strtol(p + 1, &end, 10);
            if (end == p + 1 || num < 1 || num > 64 || b < 0) {
                snprintf(why, size, "after '%s:' comes a device number from 1 to 64%s", word,
                         b < 0 ? " of a backend" : "");
                return false;
            }
            which = (uint64_t)1 << (num - 1);
            p = end;
        }
        if (all) for (int k = 1; k < DAG_BACKEND_COUNT; k++) allowed[k] = ~(uint64_t)0;
        else if (b > 0) allowed[b] |= which;
        while (*p == ' ') p++;
        if (*p == '\0') return true;
        if (*p++ != ',') break;
    }
    snprintf(why, size, "expected a list such as \"none\", \"cuda\" or \"opencl:2,cuda\"");
    return false;
}

/* >>defaults: every setting is resolved here and nowhere else: a dag_desc
   field left at 0 takes the environment's value, then dag.h's default.
   Called once the logger is in place, so a bad value is reported where
   it should be. What has no dag_desc field goes to dag__g. */
static void dag__desc_defaults(dag_desc *d) {
    d->log_level = dag__log_level(d->log_level);
    dag__log_settings_set(d->logger, d->log_level);
    dag__g.cores = dag__core_count() > 0 ? dag__core_count() : 1;
    /* 0 means "choose"; a negative count or one past the cap is said, as the environment's are */
    if (d->num_threads < 0 || d->num_threads > 1024)
        dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "dag_desc.num_threads = %d: not in 1..1024; %s", d->num_threads,
                d->num_threads < 0 ? "chosen as for 0" : "1024 instead");
    if (d->throttle < 0)
        dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "dag_desc.throttle = %d: negative; 64 instead", d->throttle);
    if (d->num_threads <= 0) d->num_threads = dag__env_int("DAG_NUM_THREADS", 1, 1024);
    if (d->num_threads <= 0) d->num_threads = dag__g.cores;
    if (d->num_threads > 1024) d->num_threads = 1024;
    if (d->throttle <= 0) d->throttle = 64;
    dag__g.spin_ns = dag__wait_window(d);
    if (!d->trace_path) d->trace_path = getenv("DAG_TRACE");
    dag__g.devices_from = d->devices ? "dag_desc.devices" : "DAG_DEVICES";
    if (!d->devices) d->devices = getenv("DAG_DEVICES");
    dag__g.ranks_progress_thread = false;
    if (!DAG__HAS_MPI) return;   /* the rank layer's settings mean nothing without it */
    if (!d->simulate_ranks) d->simulate_ranks = dag__env_int("DAG_SIMULATE_RANKS", 1, DAG_MPI_MAX_RANKS);
    const char *progress = getenv("DAG_MPI_PROGRESS");
    dag__g.ranks_progress_thread = progress && dag__env_is(progress, "thread");
    if (progress && *progress && !dag__g.ranks_progress_thread && !dag__env_is(progress, "workers"))
        dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "DAG_MPI_PROGRESS=%s: not workers or thread; ignored", progress);
}

/* >>setup */
static void dag__worker_init(dag__worker *w, int index) {
    memset((void *)w, 0, sizeof *w);
    w->index = index;
    w->rng = 0x2545F4914F6CDD1Dull * (uint64_t)(index + 2);
    if (index >= 0) dag__deque_init(&w->deque);
    dag__mutex_init(&w->mail_lock);
    atomic_init(&w->mail_count, 0);
    atomic_init(&w->mail_mask, 0);
    DAG__HG_IGNORE(&w->mail_mask, sizeof w->mail_mask);   /* only ever touched atomically */
    dag__mutex_init(&w->park_lock);
    dag__mutex_init(&w->trace_lock);
    dag__cond_init(&w->cond);
    atomic_init(&w->sleep_state, DAG__AWAKE);
    atomic_init(&w->waiting_for, NULL);
    atomic_init(&w->blocked, 0);
    atomic_init(&w->parked, 0);
    atomic_init(&w->looking, 1);
    atomic_init(&w->sleeps, 0);
    atomic_init(&w->spawner_waits, 0);
    /* only ever touched atomically; a reserve thread's are read as soon as
       num_slots counts it, an edge helgrind cannot see */
    DAG__HG_IGNORE(&w->sleep_state, sizeof w->sleep_state);
    DAG__HG_IGNORE(&w->waiting_for, sizeof w->waiting_for);
    DAG__HG_IGNORE(&w->blocked, sizeof w->blocked);
    DAG__HG_IGNORE(&w->parked, sizeof w->parked);
    DAG__HG_IGNORE(&w->looking, sizeof w->looking);
    DAG__HG_IGNORE(&w->sleeps, sizeof w->sleeps);
    DAG__HG_IGNORE(&w->spawner_waits, sizeof w->spawner_waits);
    dag__pool_init(&w->tasks, sizeof(dag__task), DAG__CACHE_LINE);
    dag__pool_init(&w->edges, sizeof(dag__edge), 16);
    dag__pool_init(&w->extras, sizeof(dag__extra), 16);
    /* its counts (DAG__COUNT): only its thread adds, dag_get_stats reads them relaxed */
    DAG__HG_IGNORE(&w->spawned, (size_t)((char *)(&w->records_back + 1) - (char *)&w->spawned));
    DAG__HG_IGNORE(&w->tasks.objects, sizeof w->tasks.objects);
}

static void dag__worker_destroy(dag__worker *w) {
    if (w->index >= 0) dag__deque_destroy(&w->deque);
    dag__mutex_destroy(&w->mail_lock);
    dag__mutex_destroy(&w->park_lock);
    dag__mutex_destroy(&w->trace_lock);
    dag__cond_destroy(&w->cond);
    dag__pool_destroy(&w->tasks);
    dag__pool_destroy(&w->edges);
    dag__pool_destroy(&w->extras);
    for (size_t i = 0; i < w->num_events; i++) {
        DAG_FREE(w->events[i].placement);
        DAG_FREE(w->events[i].name_copy);
    }
    DAG_FREE(w->events);
    DAG_FREE(w->trace_edges);
}

static void dag__context_init(dag__context *c) {
    memset(c, 0, sizeof *c);
    c->root = c->top = dag__region_new(0);
    c->root->counter = c->root;
}

/* A thread outside the pool that spawns gets its own context and a worker
   record (no deque: its ready tasks go to the shared injection queue). */
/* When the thread that set up has exited: this one takes its seat (worker 1, with the main
   context), so that tasks pinned to thread 1 (or mailed to it) run and dag_num_threads stays true,
   and returns true. */
static bool dag__take_vacant_seat(void) {
    if (!atomic_load(&dag__g.first_vacant) || !atomic_exchange(&dag__g.first_vacant, 0)) return false;
    dag__worker *w = &dag__g.workers[0];
    dag__tls_worker = w;
    dag__tls_guest = false;
    dag__stack_mark(w);
    dag__tls_ctx = &dag__main_ctx;
    dag__tls_epoch = __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST);
    if (dag__g.guest_key_ok) dag__tss_set(dag__g.guest_key, w);
    return true;
}
static void dag__guest_attach(void) {
    if (dag__take_vacant_seat()) return;
    dag__mutex_lock(&dag__g.guest_lock);
    dag__worker *w = dag__guests();
    while (w && !w->retired) w = w->next_guest;
    if (w) {   /* the records of a thread that exited */
        w->retired = 0;
    } else {
        w = (dag__worker *)dag__xmalloc_aligned(sizeof *w);
        dag__worker_init(w, -1);
        w->guest_no = dag__guest_records();
        dag__context *c = (dag__context *)dag__xmalloc(sizeof *c);
        dag__context_init(c);
        w->guest_ctx = c;
        dag__mutex_lock(&dag__g.sleep_lock);   /* wakers walk the guest list under it */
        w->next_guest = atomic_load_explicit(&dag__g.guests, memory_order_relaxed);
        DAG__HB(&dag__g.guests);
        atomic_store_explicit(&dag__g.guests, w, memory_order_release);   /* its record complete first */
        dag__mutex_unlock(&dag__g.sleep_lock);
        c->next_guest = dag__g.guest_contexts;
        dag__g.guest_contexts = c;
    }
    dag__mutex_unlock(&dag__g.guest_lock);
    dag__tls_worker = w;
    dag__tls_guest = true;
    dag__stack_mark(w);
    dag__tls_ctx = w->guest_ctx;
    dag__tls_epoch = __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST);
    if (dag__g.guest_key_ok) dag__tss_set(dag__g.guest_key, w);
}

/* A guest thread exits: its tasks finish (they may write its memory), what
   its regions held is released (results are kept), and its records wait
   for the next thread, so a thread per request costs nothing lasting. */
static void dag__guest_exit(void *p) {
    dag__worker *w = (dag__worker *)p;
    /* Announce the exit, then look for a shutdown (both seq_cst, against
       dag_shutdown's store of closing then load of exits_running): either
       dag_shutdown waits for this drain, or this thread leaves it the drain. */
    atomic_fetch_add(&dag__g.exits_running, 1);
    if (atomic_load(&dag__g.closing) || atomic_load(&dag__g.phase) != 1 || dag__tls_worker != w ||
        dag__tls_epoch != __atomic_load_n(&dag__live_epoch, __ATOMIC_SEQ_CST)) {
        atomic_fetch_sub(&dag__g.exits_running, 1);
        return;   /* shutting down, shut down since, or not this thread's */
    }
    /* worker 1's seat (the thread that set up, or one that took its place) waits for its tasks as
       any other thread does, then waits for the next thread */
    dag__context *c = w->index == 0 ? &dag__main_ctx : w->guest_ctx;
    dag__tls_ctx = c;
    /* dag_shutdown waits for this drain (exits_running), as for a counted call: the bodies it runs
       here make their calls as bodies do, not as this thread's own (refused once it has begun) */
    dag__tls_guest = false;
    dag__close_abandoned(w, c, c->root, "a thread's exit");
    dag__drain(w, c->root);
    dag__root_reset(w, c);   /* (a cancel of it too: the next thread's spawns are not cancelled) */
    if (c->domain) dag__domain_destroy(w, c->domain);
    c->domain = NULL;
    c->top = c->root;
    c->depth = c->serial = 0;
    dag__tls_ctx = NULL;
    dag__tls_worker = NULL;
    if (w->index == 0) {
        atomic_store(&dag__g.first_vacant, 1);
    } else {
        dag__mutex_lock(&dag__g.guest_lock);
        w->retired = 1;
        dag__mutex_unlock(&dag__g.guest_lock);
    }
    atomic_fetch_sub(&dag__g.exits_running, 1);
}

/* A program that ends without dag_shutdown still gets the trace it asked
   for (dag_desc.trace_path, DAG_TRACE): at exit, when every task the
   program spawned has finished, it is written, and a warning says so; when
   some have not (their events may still be growing) or exit was called
   from another thread, a warning says it was not. */
static void dag__trace_at_exit(void) {
    if (atomic_load(&dag__g.phase) != 1 || !dag__g.trace_path) return;
    atomic_store(&dag__g.tracing, 0);   /* no task starts another event */
    dag__region *root = dag__main_ctx.root;
    int64_t unfinished = dag__tls_ctx != &dag__main_ctx ? -1   /* (spawned is the main thread's to read) */
                       : root ? root->spawned - (DAG__OPEN - atomic_load(&root->count)) : 0;
    if (unfinished == 0 && dag_trace_write_json(dag__g.trace_path) == DAG_OK)
        dag_log(DAG_LOG_WARN, DAG_OK, "the program ended without dag_shutdown: the trace was written to %s at exit",
                dag__g.trace_path);
    else if (unfinished != 0)
        dag_log(DAG_LOG_WARN, DAG_OK, "the program ended without dag_shutdown, %s: the trace %s was not written (call "
                "dag_shutdown before the program ends)", unfinished < 0 ? "from another thread than the one that set "
                "up" : "with tasks unfinished", dag__g.trace_path);
}

/* Every compiled-in backend looks for its devices; one that finds none
   says why, and the CPU does the work. */
static void dag__backends_init(void) {
    static const char *const flags[DAG_BACKEND_COUNT] = { DAG__BACKENDS(DAG__BACKEND_FLAG) };
    for (int b = 1; b < DAG_BACKEND_COUNT; b++) {
        dag__g.backend_ok[b] = false;
        snprintf(dag__g.backend_status[b], sizeof dag__g.backend_status[b], "%s: not compiled in (build with -D%s)",
                 dag__backend_name[b], flags[b]);
    }
    dag__g.backend_ok[DAG_CPU] = true;
    snprintf(dag__g.backend_status[DAG_CPU], sizeof dag__g.backend_status[DAG_CPU], "CPU: %d worker threads",
             dag__g.num_workers);
    uint64_t allowed[DAG_BACKEND_COUNT];
    const char *spec = dag__g.desc.devices, *from = dag__g.devices_from;
    char why[200] = "";
    if (!spec || !*spec || !dag__devices_parse(spec, allowed, why, sizeof why)) {
        if (spec && *spec) dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "%s=%s: %s; every device is used", from, spec, why);
        for (int b = 0; b < DAG_BACKEND_COUNT; b++) allowed[b] = ~(uint64_t)0;
        spec = NULL;
    }
    dag__devices_setup(allowed, spec, from);
}

bool dag_backend_available(dag_backend b) {
    DAG__AS_GUEST(bool, "dag_backend_available", false, false, dag_backend_available(b))
    if (b < 0 || b >= DAG_BACKEND_COUNT || !dag__current_context()) return false;
    return dag__g.backend_ok[b];
}

int dag_device_count(dag_backend b) {
    if (!dag_backend_available(b)) return 0;
    if (b == DAG_CPU) return dag__g.num_workers;
    int n = 0;
    for (int d = 0; d < dag__devices_num(); d++) n += dag__device_backend(d) == b;
    return n;
}

dag_result dag_memory_stats(dag_backend b, int device, dag_memory_info *out) {
    if (!out) return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_memory_stats: out is NULL");
    memset(out, 0, sizeof *out);
    DAG__AS_GUEST(dag_result, "dag_memory_stats", false, DAG_ERR_SHUT_DOWN, dag_memory_stats(b, device, out))
    if (!dag__current_context()) return DAG_ERR_SHUT_DOWN;
    int d = dag__device_index(b, device - 1);
    if (d < 0)
        return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_memory_stats: no device %d for backend %d (%s)",
                                    device, (int)b, dag_backend_status(b));
    dag__device_memory(d, out);
    return DAG_OK;
}

dag_result dag_synchronize(dag_backend b) {
    DAG__AS_GUEST(dag_result, "dag_synchronize", true, DAG_ERR_SHUT_DOWN, dag_synchronize(b))
    dag__context *ctx = dag__current_context();
    if (!ctx) return DAG_ERR_SHUT_DOWN;
    if (b < 0 || b >= DAG_BACKEND_COUNT) return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_synchronize: unknown backend %d", (int)b);
    int err = dag_wait_all();   /* tasks not yet queued on a device count too */
    int e = dag__devices_synchronize(b);
    if (e && !err) err = e;
    e = dag__devices_settle(true, !ctx->task);
    return (dag_result)(err ? err : e);
}

bool dag_library_stands_in(const dag_kernel_source *k, const dag_scope *s) {
    return k && s && dag_is_setup() && dag__library_stands_in(k, s);
}

const char *dag_backend_status(dag_backend b) {
    if (b < 0 || b >= DAG_BACKEND_COUNT) return "unknown backend";
    DAG__AS_GUEST(const char *, "dag_backend_status", false, "the runtime is shut down", dag_backend_status(b))
    if (!dag__current_context()) return "the runtime is shut down";
    return dag__g.backend_status[b];
}

/* The first call sets up: true. One that finds dag.h set up, or being set
   up by another thread (an implicit set-up too), returns false once that
   one has finished. */
static bool dag__setup_claim(void) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&dag__g.phase, &expected, 3)) return true;
    expected = 2;
    if (atomic_compare_exchange_strong(&dag__g.phase, &expected, 3)) return true;
    while (atomic_load(&dag__g.phase) == 3) dag__thread_yield();
    return false;
}

/* A set-up cycle's shared state: counters at zero, queues empty, locks made. */
static void dag__state_init(void) {
    atomic_store(&dag__g.stop, 0);
    atomic_store(&dag__g.sleepers, 0);
    atomic_store(&dag__g.inject_count, 0);
    atomic_store(&dag__g.prio_count, 0);
    atomic_store(&dag__g.blocked, 0);
    atomic_store(&dag__g.cancel_gen, 0);
    dag__mutex_init(&dag__g.kept_lock);
    atomic_store(&dag__g.reserve_active, 0);
    atomic_store(&dag__g.reserve_failed, 0);
    dag__g.reserve_peak = 0;
    dag__g.inject_head = dag__g.inject_tail = NULL;
    dag__g.heap_count = 0;
    atomic_store(&dag__g.guests, NULL);
    dag__g.guest_contexts = NULL;
    dag__mutex_init(&dag__g.sleep_lock);
    dag__mutex_init(&dag__g.inject_lock);
    dag__mutex_init(&dag__g.prio_lock);
    dag__mutex_init(&dag__g.guest_lock);
    dag__mutex_init(&dag__g.data_lock);
    dag__data_gens_close();   /* (the first cycle's floor: 1) */
    dag__mutex_init(&dag__g.event_lock);
    dag__mutex_init(&dag__g.wait_lock);
    dag__mutex_init(&dag__region_lock);
    dag__mutex_init(&dag__cause_lock);
}

/* The workers' records, with room for the reserve threads (their slots stay
   untouched until used); worker 1 is this thread, with the main context. */
static void dag__workers_init(int num_threads) {
    dag__g.cap_workers = num_threads + DAG_MAX_RESERVE_THREADS;
    dag__g.workers = (dag__worker *)dag__xmalloc_aligned((size_t)dag__g.cap_workers * sizeof(dag__worker));
    for (int i = 0; i < num_threads; i++) dag__worker_init(&dag__g.workers[i], i);
    DAG__HG_IGNORE(&dag__g.num_slots, sizeof dag__g.num_slots);   /* only touched atomically */
    atomic_store(&dag__g.num_slots, num_threads);
    dag__tls_worker = &dag__g.workers[0];
    dag__tls_guest = false;   /* (a thread outside the pool of an earlier set-up may set up this one) */
    dag__stack_mark(&dag__g.workers[0]);
    dag__context_init(&dag__main_ctx);
    dag__tls_ctx = &dag__main_ctx;
    __atomic_store_n(&dag__g.epochs, dag__g.epochs + 1, __ATOMIC_RELAXED);   /* (read by dag__shut_down_err) */
    dag__tls_epoch = dag__g.epochs;
    __atomic_store_n(&dag__live_epoch, dag__tls_epoch, __ATOMIC_SEQ_CST);
}

/* Whether path names something other than a plain file: a FIFO, a
   terminal, /dev/fd/N of a pipe. Opening those to probe them would block
   (a FIFO opened to read waits for a writer) or end them for their reader. */
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#include <fcntl.h>
static bool dag__not_a_plain_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}
/* Before a trace is written to path: for a FIFO that something reads, a
   descriptor that holds it open for writing until the trace's own open has
   it (closing a probe would hand its reader an end of file); -1 for a FIFO
   nothing reads (opening it to write would wait for a reader for good, the
   reader having died or never come); -2 for anything else. */
static int dag__fifo_hold(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode)) return -2;
    int fd = open(path, O_WRONLY | O_NONBLOCK);
    return fd >= 0 ? fd : errno == ENXIO ? -1 : -2;
}
static void dag__fifo_release(int fd) {
    if (fd >= 0) close(fd);
}
#else
static bool dag__not_a_plain_file(const char *path) { (void)path; return false; }
static int dag__fifo_hold(const char *path) { (void)path; return -2; }
static void dag__fifo_release(int fd) { (void)fd; }
#endif

/* Tracing from the start when asked (trace_path: written at dag_shutdown,
   or at exit). */
static void dag__trace_setup(dag_desc *d) {
    dag__g.trace_path = NULL;
    if (d->trace_path && *d->trace_path) {
        dag__g.trace_path = dag__copy_text(d->trace_path);
        bool probe = !dag__not_a_plain_file(d->trace_path);   /* (the others are written once, at the end) */
        FILE *f = probe ? fopen(d->trace_path, "r") : NULL;   /* said now, not after the run: a path it cannot write */
        bool existed = f != NULL;
        if (f) fclose(f);
        errno = 0;
        f = probe ? fopen(d->trace_path, "a") : NULL;
        if (f) {
            fclose(f);
            if (!existed) remove(d->trace_path);   /* (a program that never shuts down leaves no empty file) */
        } else if (probe) dag_log(DAG_LOG_WARN, DAG_ERR_IO, "DAG_TRACE / dag_desc.trace_path '%s': cannot write there (%s); "
                                  "the trace is recorded, but writing it at dag_shutdown will fail the same way",
                                  d->trace_path, errno ? strerror(errno) : "?");
        d->trace = 1;
        static bool at_exit;   /* (set-ups are one at a time) */
        if (!at_exit) at_exit = atexit(dag__trace_at_exit) == 0;
    }
    atomic_store(&dag__g.tracing, d->trace ? 1 : 0);
    atomic_store_explicit(&dag__g.trace_epoch, dag__now_ns(), memory_order_relaxed);
}

/* Workers 2 to num_threads; when one does not start, dag.h runs with those
   that did. */
static void dag__workers_start(int num_threads) {
    for (int i = 1; i < num_threads; i++) {
        if (dag__thread_create(&dag__g.workers[i].thread, dag__worker_main, &dag__g.workers[i]) != 0) {
            dag__err(DAG_ERR_THREAD, "dag_setup: could not start worker thread %d of %d", i + 1, num_threads);
            dag__g.num_workers = i;   /* run with the ones that started */
            atomic_store(&dag__g.num_slots, i);
            for (int k = i; k < num_threads; k++) dag__worker_destroy(&dag__g.workers[k]);   /* (reserves reuse them) */
            break;
        }
    }
}

dag_result dag_setup(const dag_desc *desc) {
    if (DAG__UNLIKELY(atomic_load(&dag__g.phase) == 4)) return (dag_result)dag__err(DAG_ERR_SHUT_DOWN, "dag_setup: " DAG__FORKED_WHY);
    dag__watch_fork();   /* before set-up starts: a child forked while it runs is refused too */
    /* Set up already: by an earlier dag_setup, or by a call into dag.h made before this one (a C++
       global's constructor, a library's initializer), which sets up with the defaults. A dag_desc
       given now is not applied, and the program hears it. */
    if (!dag__setup_claim())
        return desc ? (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_setup: already set up, so this dag_desc is "
                                           "not applied (a call into dag.h before dag_setup sets up with the defaults; "
                                           "call dag_setup first, or dag_shutdown and then dag_setup)")
                    : DAG_OK;
    dag_desc d;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    dag__desc_defaults(&d);
    dag__g.desc = d;
    dag__g.num_workers = d.num_threads;
    dag__g.throttle = d.throttle;
    dag__state_init();
    dag__workers_init(d.num_threads);
    if (!atomic_load(&dag__g.asymmetric_fence)) atomic_store(&dag__g.asymmetric_fence, dag__membarrier_register());
    dag__trace_setup(&d);
    dag__g.guest_key_ok = dag__tss_create(&dag__g.guest_key, dag__guest_exit) == 0;
    if (dag__g.guest_key_ok) dag__tss_set(dag__g.guest_key, &dag__g.workers[0]);   /* its exit, too */
    atomic_store(&dag__g.first_vacant, 0);
    dag__workers_start(d.num_threads);
    dag__backends_init();
    atomic_store(&dag__g.closing, 0);   /* (guest_calls is 0 already: each call that counted itself left) */
    atomic_store(&dag__g.late_closed, 0);
    atomic_store(&dag__g.phase, 1);   /* last: a thread that arrived meanwhile waited for this */
    if (!DAG__HAS_MPI && d.simulate_ranks > 1)
        return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_setup: simulate_ranks needs the rank layer "
                                    "(-DDAG_BACKEND_MPI); it runs as one rank");
    /* its progress thread fulfils events: after the pool */
    return (dag_result)dag__mpi_setup(d.simulate_ranks, d.rank_cache_limit, dag__g.ranks_progress_thread);
}

bool dag_is_setup(void) { return atomic_load(&dag__g.phase) == 1; }
int dag_num_threads(void) { return dag_is_setup() ? dag__g.num_workers : 0; }
int dag_current_worker(void) {
    /* a thread outside the pool (between its counted calls) is 0 without a look at its record, which a
       dag_shutdown running on another thread may be freeing (>>guests) */
    if (dag__tls_guest) return 0;
    return dag__attached() && dag__tls_worker->index >= 0 ? dag__tls_worker->index + 1 : 0;
}

/* >>shutdown */
/* Every context's tasks finish: the main thread's (the result is its first
   error), then those of each thread outside the pool that has not exited. */
static dag_result dag__shutdown_drain(dag__worker *w) {
    dag_result res = DAG_OK;
    dag__context *mine = dag__tls_ctx;
    if (DAG__HAS_MPI) dag__mpi_region_ending(&dag__main_ctx, DAG__MPI_END_SHUTDOWN);   /* each rank's data home first */
    if (dag__main_ctx.root) {
        dag__tls_ctx = &dag__main_ctx;
        int unbalanced = dag__close_abandoned(w, &dag__main_ctx, dag__main_ctx.root, "dag_shutdown");
        dag__drain(w, dag__main_ctx.root);
        res = (dag_result)(unbalanced ? DAG_ERR_UNBALANCED_REGION : dag__region_error(dag__main_ctx.root));   /* as dag_wait_all */
    }
    for (dag__worker *g = dag__guests(); g; g = g->next_guest) {
        dag__mutex_lock(&dag__g.guest_lock);
        int retired = g->retired;   /* its thread exited and drained it (the lock orders that before this) */
        dag__mutex_unlock(&dag__g.guest_lock);
        if (retired) continue;
        dag__context *c = g->guest_ctx;
        dag__tls_ctx = c;
        dag__close_abandoned(w, c, c->root, "dag_shutdown");
        dag__drain(w, c->root);
    }
    dag__tls_ctx = mine;
    return res;
}

/* The pool's threads stop and are joined; returns how many workers there were. */
static int dag__workers_stop(void) {
    atomic_store(&dag__g.phase, 3);
    __atomic_store_n(&dag__live_epoch, 0, __ATOMIC_SEQ_CST);
    atomic_store(&dag__g.stop, 1);
    dag__wake_all();
    int slots = dag__slots();
    for (int i = 1; i < slots; i++) dag__thread_join(dag__g.workers[i].thread);
    return slots;
}

/* What the contexts still hold, then the contexts, the regions and the
   workers' records themselves. */
static void dag__contexts_free(dag__worker *w, int slots) {
    dag__region_release(w, dag__main_ctx.root);
    if (dag__main_ctx.domain) dag__domain_destroy(w, dag__main_ctx.domain);
    dag__context *c = dag__g.guest_contexts;
    while (c) {
        dag__context *n = c->next_guest;
        dag__region_release(w, c->root);
        if (c->domain) dag__domain_destroy(w, c->domain);
        DAG_FREE(c);
        c = n;
    }
    memset(&dag__main_ctx, 0, sizeof dag__main_ctx);
    for (size_t i = 0; i < dag__num_all_regions; i++) {
        DAG_FREE(dag__all_regions[i]->retained.items);
        DAG_FREE(dag__all_regions[i]->prev.items);
        DAG_FREE(dag__all_regions[i]->step.items);
        dag__free_aligned(dag__all_regions[i]);
    }
    DAG_FREE(dag__all_regions);
    dag__all_regions = NULL;
    dag__free_regions = NULL;
    dag__num_all_regions = dag__cap_all_regions = 0;
    for (int i = 0; i < slots; i++) dag__worker_destroy(&dag__g.workers[i]);
    dag__worker *gw = dag__guests();
    while (gw) {
        dag__worker *n = gw->next_guest;
        dag__worker_destroy(gw);
        dag__free_aligned(gw);
        gw = n;
    }
    dag__free_aligned(dag__g.workers);
    dag__g.workers = NULL;
}

/* The rest of the set-up cycle's state: queues, data, events, kept
   results, causes, locks, and the devices. */
static void dag__state_free(void) {
    DAG_FREE(dag__g.heap);
    dag__g.heap = NULL;
    dag__g.heap_cap = 0;
    for (size_t i = 0; i < DAG__DATA_PAGES; i++) {
        DAG_FREE(atomic_load(&dag__g.data_pages[i]));
        atomic_store(&dag__g.data_pages[i], NULL);
    }
    dag__g.data_count = dag__g.data_free = 0;
    dag__data_gens_close();
    dag__mutex_destroy(&dag__g.sleep_lock);
    dag__mutex_destroy(&dag__g.inject_lock);
    dag__mutex_destroy(&dag__g.prio_lock);
    dag__mutex_destroy(&dag__g.guest_lock);
    dag__mutex_destroy(&dag__g.data_lock);
    DAG_FREE(dag__g.events);
    dag__g.events = NULL;
    dag__g.events_cap = dag__g.events_used = dag__g.event_free = 0;
    dag__g.events_pending = 0;
    dag__mutex_destroy(&dag__g.event_lock);
    dag__mutex_destroy(&dag__g.wait_lock);
    if (dag__g.guest_key_ok) dag__tss_delete(dag__g.guest_key);
    dag__g.guest_key_ok = 0;
    dag__kept_free_all();
    dag__mutex_destroy(&dag__g.kept_lock);
    while (dag__causes) {
        dag__cause_node *next = dag__causes->next;
        DAG_FREE(dag__causes);
        dag__causes = next;
    }
    dag__num_causes = 0;
    dag__mutex_destroy(&dag__cause_lock);
    dag__mutex_destroy(&dag__region_lock);
    dag__devices_shutdown();
}

static bool dag__no_exits_running(void *unused) {
    (void)unused;
    return atomic_load(&dag__g.exits_running) == 0;
}
dag_result dag_shutdown(void) {
    if (atomic_load(&dag__g.phase) != 1) return DAG_OK;
    if (dag__guest_call()) {
        /* a thread outside the pool (or new to dag.h) reads its records inside the count (>>guests):
           another thread's dag_shutdown may be freeing them. It may shut down only in the seat of the
           thread that set up, once that one has exited (its records as such a thread stay, and go
           as the others' do). */
        if (!dag__guest_enter("dag_shutdown", NULL, false)) return DAG_ERR_INVALID_ARGUMENT;
        bool seat = dag__tls_worker->index == 0 || (!dag__tls_ctx->task && dag__take_vacant_seat());
        dag__guest_leave();
        if (!seat)
            return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_shutdown: called from a thread other than the "
                                        "one that set up (which may be one whose first dag.h call set up implicitly); "
                                        "call it from the thread that set up, or call dag_setup on the thread that "
                                        "will shut down before other threads call into dag.h");
    }
    /* (the set-up thread's calls are not counted, >>guests: shut down under them, they would read freed records) */
    if (dag__tls_ctx->task || dag__tls_worker->index != 0)
        return (dag_result)dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_shutdown: called from a task or a pool thread; "
                                    "call it from the thread that set up");
    /* threads exiting now drain their own contexts; later ones leave them to this (helped: their
       tasks may be pinned to this thread) */
    atomic_store(&dag__g.closing, 1);
    dag__worker *w = dag__tls_worker;
    dag__help_until(w, dag__no_exits_running, NULL, NULL);
    dag__help_until(w, dag__no_guest_calls, NULL, NULL);   /* other threads' spawns and waits end (>>guests) */
    dag_result res = dag__shutdown_drain(w);
    atomic_store(&dag__g.late_closed, 1);
    while (atomic_load(&dag__g.late_running)) dag__thread_yield();
    res = (dag_result)dag__mpi_shutdown(res);   /* nothing is in flight now; every rank returns the same */
    if (dag__g.trace_path) {   /* every task has finished: the trace is whole */
        if (dag_trace_write_json(dag__g.trace_path) == DAG_OK)
            dag_log(DAG_LOG_INFO, DAG_OK, "trace written to %s (open it in Perfetto)", dag__g.trace_path);
        DAG_FREE(dag__g.trace_path);
        dag__g.trace_path = NULL;
    }
    dag__contexts_free(w, dag__workers_stop());
    dag__state_free();
    dag__tls_ctx = NULL;
    dag__tls_worker = NULL;
    atomic_store(&dag__g.phase, 2);
    return res;
}

/* >>opencl text of a kernel: "((type, name), ...)" becomes a parameter list
   after the hidden range, and the body gets the bounds guard. The body is
   C, and the text says so to the OpenCL compiler, so that a kernel means
   the same on a device as on the CPU: C's contraction rule (no a * b + c
   fused into one rounding: FP_CONTRACT OFF, as gcc -std=c11 compiles the
   CPU launch), abs of an int an int (OpenCL's is unsigned), C's float
   functions (sqrtf: OpenCL C has sqrt of a float), long long a long (a
   reserved 128-bit type in OpenCL C), OpenCL C's words that C programs use
   as names (half, global, local...) renamed, the function named
   dag_k_<name> (a kernel named max or dot is no built-in's), and a pointer
   parameter that lost DAG_GLOBAL (a wrapper macro expanded it to nothing)
   in global memory. The program's own macros and global names are not
   there: a kernel's body uses its parameters, its locals and math. */
static const char dag__cl_prelude[] =
    "#define DAG_GLOBAL __global\n#define DAG_INDEX() dag__index\n#pragma OPENCL FP_CONTRACT OFF\n"
    "int dag__c_abs(int x) { return x < 0 ? -x : x; }\nlong dag__c_labs(long x) { return x < 0 ? -x : x; }\n"
    "#undef abs\n#define abs(x) dag__c_abs(x)\n#undef labs\n#define labs(x) dag__c_labs(x)\n"
    "#undef llabs\n#define llabs(x) dag__c_labs(x)\n"   /* (#undef: an OpenCL compiler may have its own macros) */
#define DAG__CL_FLOAT_NAME(f) "#undef " #f "f\n#define " #f "f " #f "\n"
    DAG__CL_FLOAT_NAME(sqrt) DAG__CL_FLOAT_NAME(cbrt) DAG__CL_FLOAT_NAME(fabs) DAG__CL_FLOAT_NAME(exp)
    DAG__CL_FLOAT_NAME(exp2) DAG__CL_FLOAT_NAME(expm1) DAG__CL_FLOAT_NAME(log) DAG__CL_FLOAT_NAME(log2)
    DAG__CL_FLOAT_NAME(log10) DAG__CL_FLOAT_NAME(log1p) DAG__CL_FLOAT_NAME(pow) DAG__CL_FLOAT_NAME(sin)
    DAG__CL_FLOAT_NAME(cos) DAG__CL_FLOAT_NAME(tan) DAG__CL_FLOAT_NAME(asin) DAG__CL_FLOAT_NAME(acos)
    DAG__CL_FLOAT_NAME(atan) DAG__CL_FLOAT_NAME(atan2) DAG__CL_FLOAT_NAME(sinh) DAG__CL_FLOAT_NAME(cosh)
    DAG__CL_FLOAT_NAME(tanh) DAG__CL_FLOAT_NAME(floor) DAG__CL_FLOAT_NAME(ceil) DAG__CL_FLOAT_NAME(round)
    DAG__CL_FLOAT_NAME(trunc) DAG__CL_FLOAT_NAME(rint) DAG__CL_FLOAT_NAME(fmin) DAG__CL_FLOAT_NAME(fmax)
    DAG__CL_FLOAT_NAME(fmod) DAG__CL_FLOAT_NAME(hypot) DAG__CL_FLOAT_NAME(erf) DAG__CL_FLOAT_NAME(erfc)
    DAG__CL_FLOAT_NAME(tgamma) DAG__CL_FLOAT_NAME(lgamma) DAG__CL_FLOAT_NAME(copysign) DAG__CL_FLOAT_NAME(fdim)
    DAG__CL_FLOAT_NAME(fma) DAG__CL_FLOAT_NAME(ldexp) DAG__CL_FLOAT_NAME(frexp) DAG__CL_FLOAT_NAME(modf)
    DAG__CL_FLOAT_NAME(asinh) DAG__CL_FLOAT_NAME(acosh) DAG__CL_FLOAT_NAME(atanh) DAG__CL_FLOAT_NAME(remainder)
    DAG__CL_FLOAT_NAME(remquo) DAG__CL_FLOAT_NAME(logb) DAG__CL_FLOAT_NAME(ilogb) DAG__CL_FLOAT_NAME(nextafter)
#undef DAG__CL_FLOAT_NAME
/* <math.h>'s names OpenCL C has not, as what they mean in C's default rounding */
#define DAG__CL_MATH(f, as) "#undef " #f "\n#define " #f as "\n#undef " #f "f\n#define " #f "f " #f "\n"
    DAG__CL_MATH(nearbyint, "(x) rint(x)") DAG__CL_MATH(lrint, "(x) ((long)rint(x))")
    DAG__CL_MATH(llrint, "(x) ((long)rint(x))") DAG__CL_MATH(lround, "(x) ((long)round(x))")
    DAG__CL_MATH(llround, "(x) ((long)round(x))") DAG__CL_MATH(scalbn, "(x, n) ldexp((x), (int)(n))")
    DAG__CL_MATH(scalbln, "(x, n) ldexp((x), (int)(n))")
#undef DAG__CL_MATH
/* <stdint.h>'s types and limits, as OpenCL C's own */
#define DAG__CL_INT(t, as) "#undef " #t "\n#define " #t " " #as "\n"
    DAG__CL_INT(int8_t, char) DAG__CL_INT(uint8_t, uchar) DAG__CL_INT(int16_t, short) DAG__CL_INT(uint16_t, ushort)
    DAG__CL_INT(int32_t, int) DAG__CL_INT(uint32_t, uint) DAG__CL_INT(int64_t, long) DAG__CL_INT(uint64_t, ulong)
    DAG__CL_INT(INT8_MIN, CHAR_MIN) DAG__CL_INT(INT8_MAX, CHAR_MAX) DAG__CL_INT(UINT8_MAX, UCHAR_MAX)
    DAG__CL_INT(INT16_MIN, SHRT_MIN) DAG__CL_INT(INT16_MAX, SHRT_MAX) DAG__CL_INT(UINT16_MAX, USHRT_MAX)
    DAG__CL_INT(INT32_MIN, INT_MIN) DAG__CL_INT(INT32_MAX, INT_MAX) DAG__CL_INT(UINT32_MAX, UINT_MAX)
    DAG__CL_INT(INT64_MIN, LONG_MIN) DAG__CL_INT(INT64_MAX, LONG_MAX) DAG__CL_INT(UINT64_MAX, ULONG_MAX)
#undef DAG__CL_INT
#define DAG__CL_C_NAME(w) "#undef " #w "\n#define " #w " dag__c_" #w "\n"
    DAG__CL_C_NAME(half) DAG__CL_C_NAME(global) DAG__CL_C_NAME(local) DAG__CL_C_NAME(constant)
    DAG__CL_C_NAME(private) DAG__CL_C_NAME(kernel) DAG__CL_C_NAME(read_only) DAG__CL_C_NAME(write_only)
    DAG__CL_C_NAME(read_write) DAG__CL_C_NAME(uniform) DAG__CL_C_NAME(pipe);
#undef DAG__CL_C_NAME

/* Appends text, with each `long long` (whole words) as `long`. */
static size_t dag__cl_put(char *s, size_t n, const char *text, size_t len) {
    for (size_t i = 0; i < len;) {
        bool word_start = i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
        if (word_start && len - i >= 9 && !memcmp(text + i, "long", 4) && (text[i + 4] == ' ' || text[i + 4] == '\t')) {
            size_t j = i + 4;
            while (j < len && (text[j] == ' ' || text[j] == '\t')) j++;
            if (len - j >= 4 && !memcmp(text + j, "long", 4) &&
                (j + 4 == len || !(isalnum((unsigned char)text[j + 4]) || text[j + 4] == '_'))) {
                memcpy(s + n, "long", 4);
                n += 4;
                i = j + 4;
                continue;
            }
        }
        s[n++] = text[i++];
    }
    return n;
}
static bool dag__cl_has_word(const char *text, size_t len, const char *word) {
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= len; i++)
        if (!memcmp(text + i, word, w) && (i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_')) &&
            (i + w == len || !(isalnum((unsigned char)text[i + w]) || text[i + w] == '_')))
            return true;
    return false;
}

char *dag_kernel_opencl_source(const dag_kernel_source *k) {
    /* the name twice; a parameter "(T*,x)" of at least 5 characters becomes at most ", __global T* x", 12 more;
       and 256 for the fixed text */
    size_t cap = k && k->name && k->params && k->body
                     ? sizeof dag__cl_prelude + strlen(k->body) + 2 * strlen(k->name) + 4 * strlen(k->params) + 256
                     : 0;
    char *s = k && k->name && k->params && k->body ? (char *)malloc(cap) : NULL;
    if (!s) return NULL;
    size_t n = 0;
#define DAG__PUT(str, len) (n = dag__cl_put(s, n, (str), (len)))
#define DAG__PUTS(str) DAG__PUT((str), strlen(str))
    DAG__PUTS(dag__cl_prelude);
    DAG__PUTS("__kernel void dag_k_");
    DAG__PUTS(k->name);
    DAG__PUTS("(ulong dag__n");
    /* each "(type, name)" group at depth 2 becomes ", type name" */
    int depth = 0;
    const char *group = NULL, *comma = NULL;
    for (const char *c = k->params; *c; c++) {
        if (*c == '(' && ++depth == 2) {
            group = c + 1;
            comma = NULL;
        } else if (*c == ',' && depth == 2) {
            comma = c;
        } else if (*c == ')' && depth-- == 2 && group && comma) {
            const char *type = group, *type_end = comma, *name = comma + 1, *name_end = c;
            while (*type == ' ') type++;
            while (type_end > type && type_end[-1] == ' ') type_end--;
            while (*name == ' ') name++;
            while (name_end > name && name_end[-1] == ' ') name_end--;
            size_t type_len = (size_t)(type_end - type);
            DAG__PUTS(", ");
            if (memchr(type, '*', type_len) && !dag__cl_has_word(type, type_len, "DAG_GLOBAL") &&
                !dag__cl_has_word(type, type_len, "__global") && !dag__cl_has_word(type, type_len, "__constant") &&
                !dag__cl_has_word(type, type_len, "__local"))
                DAG__PUTS("__global ");
            DAG__PUT(type, type_len);
            DAG__PUTS(" ");
            DAG__PUT(name, (size_t)(name_end - name));
        }
    }
    /* a compiler's message about the body names the kernel, at a column of its body (one line, as
       the preprocessor made it a string) */
    DAG__PUTS(") {\n    size_t dag__index = get_global_id(0);\n    if (dag__index >= dag__n) return;\n#line 1 \"DAG_KERNEL ");
    DAG__PUTS(k->name);
    DAG__PUTS("'s body\"\n");
    DAG__PUTS(k->body);
    DAG__PUTS("\n}\n");
#undef DAG__PUTS
#undef DAG__PUT
    s[n] = 0;
    return s;
}

/* >>stats */
static void dag__stats_add(dag_stats *s, dag__worker *w, uint64_t *out, uint64_t *back) {
    uint64_t ran_at_spawn = atomic_load_explicit(&w->ran_at_spawn, memory_order_relaxed);
    s->tasks_spawned += atomic_load_explicit(&w->spawned, memory_order_relaxed) + ran_at_spawn;
    s->tasks_run += atomic_load_explicit(&w->run, memory_order_relaxed) + ran_at_spawn;
    s->tasks_stolen += atomic_load_explicit(&w->stolen, memory_order_relaxed);
    s->tasks_inlined += atomic_load_explicit(&w->inlined, memory_order_relaxed) + ran_at_spawn;
    s->sleeps += atomic_load(&w->sleeps);
    s->spawner_waits += atomic_load(&w->spawner_waits);
    size_t records = atomic_load_explicit(&w->tasks.objects, memory_order_relaxed);
    s->records_allocated += records;
    s->record_bytes += records * w->tasks.object_size;
    *out += atomic_load_explicit(&w->records_out, memory_order_relaxed);
    *back += atomic_load_explicit(&w->records_back, memory_order_relaxed);
}
dag_stats dag_get_stats(void) {
    dag_stats s;
    memset(&s, 0, sizeof s);
    s.bytes_per_task = (sizeof(dag__task) + DAG__CACHE_LINE - 1) / DAG__CACHE_LINE * DAG__CACHE_LINE;   /* (its pool's spacing) */
    if (!dag_is_setup()) return s;
    DAG__AS_READER(dag_stats, NULL, s, dag_get_stats())   /* (refused: as with no runtime up) */
    s.reserve_threads = dag__slots() - dag__g.num_workers;
    s.reserve_peak = dag__g.reserve_peak;
    s.blocked_waits = atomic_load(&dag__g.blocked);
    dag__mutex_lock(&dag__g.event_lock);
    s.events_pending = dag__g.events_pending;
    dag__mutex_unlock(&dag__g.event_lock);
    dag__mpi_stats(&s);
    dag__mutex_lock(&dag__g.kept_lock);
    s.results_kept = dag__g.kept_count;
    s.result_bytes = dag__g.kept_bytes + dag__g.kept_buckets_n * sizeof(void *);
    dag__mutex_unlock(&dag__g.kept_lock);
    dag__mutex_lock(&dag__cause_lock);
    s.failures_described = dag__num_causes;
    dag__mutex_unlock(&dag__cause_lock);
    /* every thread's counts and record pool: the pool's workers' and the
       program's own threads' (guests). A record may come from one thread's
       pool and go back through another's: out and back balance over all. */
    uint64_t out = 0, back = 0;
    for (int i = 0; i < dag__slots(); i++) dag__stats_add(&s, &dag__g.workers[i], &out, &back);
    dag__mutex_lock(&dag__g.sleep_lock);   /* the guest list grows under it */
    for (dag__worker *g = dag__guests(); g; g = g->next_guest) dag__stats_add(&s, g, &out, &back);
    dag__mutex_unlock(&dag__g.sleep_lock);
    s.tasks_live = out > back ? (size_t)(out - back) : 0;   /* read while tasks run: never below 0 */
    return s;
}

#if !DAG__HAS_MPI
dag_rank_stats dag_get_rank_stats(int rank) {
    dag_rank_stats s;
    memset(&s, 0, sizeof s);
    if (rank != 0) dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_get_rank_stats: rank %d, but without MPI there is rank 0 alone", rank);
    return s;
}
#endif

/* >>trace output (call while no tasks run, e.g. after dag_wait_all) */

/* fn on each worker's trace, under its lock: tasks that finish meanwhile add to it */
static void dag__trace_locked(dag__worker *w, void (*fn)(dag__worker *, void *), void *arg) {
    dag__mutex_lock(&w->trace_lock);
    fn(w, arg);
    dag__mutex_unlock(&w->trace_lock);
}
static void dag__for_each_trace(void (*fn)(dag__worker *, void *), void *arg) {
    for (int i = 0; i < dag__slots(); i++) dag__trace_locked(&dag__g.workers[i], fn, arg);
    for (dag__worker *w = dag__guests(); w; w = w->next_guest) dag__trace_locked(w, fn, arg);
}

static void dag__trace_count(dag__worker *w, void *count) { *(size_t *)count += w->num_events; }
void dag_trace_enable(int on) {
    DAG__AS_READER_VOID("dag_trace_enable", dag_trace_enable(on))
    /* The trace's time origin is set when it starts empty: turned on again over the events it kept,
       it keeps theirs (their times would otherwise come out before it, as 0) */
    if (on && !atomic_load(&dag__g.tracing)) {
        size_t kept = 0;
        if (dag_is_setup()) dag__for_each_trace(dag__trace_count, &kept);
        if (!kept) atomic_store_explicit(&dag__g.trace_epoch, dag__now_ns(), memory_order_relaxed);
    }
    atomic_store(&dag__g.tracing, on ? 1 : 0);
}

static void dag__trace_reset(dag__worker *w, void *arg) {
    (void)arg;
    for (size_t i = 0; i < w->num_events; i++) {
        DAG_FREE(w->events[i].placement);
        DAG_FREE(w->events[i].name_copy);
    }
    w->num_events = 0;
    w->num_trace_edges = 0;
}
void dag_trace_clear(void) {
    DAG__AS_READER_VOID("dag_trace_clear", dag_trace_clear())
    if (dag_is_setup()) {
        dag__for_each_trace(dag__trace_reset, NULL);
        dag__devices_trace_clear();
    }
    atomic_store_explicit(&dag__g.trace_epoch, dag__now_ns(), memory_order_relaxed);
}

typedef struct dag__trace_out { FILE *f; int first; } dag__trace_out;

static void dag__json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

/* A trace's rows: the pool's threads (workers, then reserve threads), the devices, then the threads of
   the program outside the pool, each its own (numbered from 0 in that order) */
static int dag__trace_row(const dag__trace_event *e) {
    int pool = dag__slots();
    if (e->processor) return pool + e->processor - 1;
    return e->worker >= 0 ? e->worker : pool + dag__devices_num() + (-1 - e->worker);
}
static int dag__trace_rows(void) { return dag__slots() + dag__devices_num() + dag__guest_records(); }
static void dag__trace_row_name(int row, char *name, size_t size) {
    int pool = dag__slots(), devices = dag__devices_num();
    if (row < dag__g.num_workers) snprintf(name, size, "worker %d", row + 1);
    else if (row < pool) snprintf(name, size, "reserve thread %d", row - dag__g.num_workers + 1);
    else if (row < pool + devices) dag__dev_short_name(row - pool, name, size);
    else snprintf(name, size, "program thread %d", row - pool - devices + 1);
}
static void dag__json_events(dag__worker *w, void *arg) {
    dag__trace_out *o = (dag__trace_out *)arg;
    for (size_t i = 0; i < w->num_events; i++) {
        dag__trace_event *e = &w->events[i];
        fprintf(o->f, "%s\n{\"name\":", o->first ? "" : ",");
        o->first = 0;
        dag__json_string(o->f, e->name);
        uint64_t t0 = atomic_load_explicit(&dag__g.trace_epoch, memory_order_relaxed);
        uint64_t s = e->start > t0 ? e->start - t0 : 0;
        int row = dag__trace_row(e) + 1;   /* (a tid of 0 is none) */
        fprintf(o->f, ",\"cat\":\"task\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                      "\"args\":{\"id\":%llu,\"status\":\"%s\",\"bytes_moved\":%llu,\"placement\":",
                row, (double)s / 1e3, (double)(e->end - e->start) / 1e3,
                (unsigned long long)e->id, dag_result_string(e->status), (unsigned long long)e->bytes_moved);
        dag__json_string(o->f, e->placement ? e->placement : "");
        fprintf(o->f, "}}");
    }
}

/* Closes a trace file written by `who`: DAG_ERR_IO, logged, when a write
   or the close failed (a full disk: the trace is lost, and said so). */
static dag_result dag__trace_close(FILE *f, const char *who, const char *path) {
    errno = 0;
    bool failed = ferror(f) != 0;
    int saved = errno;
    if (fclose(f) != 0) failed = true, saved = saved ? saved : errno;
    if (!failed) return DAG_OK;
    return (dag_result)dag__err(DAG_ERR_IO, "%s: writing '%s' failed (%s); the trace there is incomplete", who, path,
                                saved ? strerror(saved) : "a write error");
}

/* Opens a trace file for writing, or says why not in *err. */
static FILE *dag__trace_open(const char *path, const char *who, dag_result *err) {
    *err = DAG_OK;
    if (!dag_is_setup()) {   /* the trace went with the runtime */
        *err = (dag_result)dag__err(DAG_ERR_SHUT_DOWN, "%s: the runtime is shut down, and its trace with it (write "
                                    "the trace before dag_shutdown, or name it in DAG_TRACE or dag_desc.trace_path)", who);
        return NULL;
    }
    int held = path ? dag__fifo_hold(path) : -2;
    if (held == -1) {
        *err = (dag_result)dag__err(DAG_ERR_IO, "%s: '%s' is a FIFO that nothing reads; the trace is not written "
                                    "(opening it would wait for a reader for good)", who, path);
        return NULL;
    }
    errno = 0;
    FILE *f = path ? fopen(path, "w") : NULL;
    dag__fifo_release(held);
    if (!f)
        *err = (dag_result)dag__err(DAG_ERR_IO, "%s: cannot open '%s' (%s)", who, path ? path : "(null)",
                                    path && errno ? strerror(errno) : "no path");
    return f;
}

dag_result dag_trace_write_json(const char *path) {
    DAG__AS_READER(dag_result, "dag_trace_write_json", DAG_ERR_SHUT_DOWN, dag_trace_write_json(path))
    dag_result err;
    FILE *f = dag__trace_open(path, "dag_trace_write_json", &err);
    if (!f) return err;
    dag__trace_out o;
    o.f = f;
    o.first = 1;
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    int rows = dag__trace_rows();
    for (int r = 0; r < rows; r++) {
        char name[200];
        bool device = r >= dag__slots() && r < dag__slots() + dag__devices_num();
        fprintf(f, "%s\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":",
                o.first ? "" : ",", r + 1);
        o.first = 0;
        if (device) dag__dev_name(r - dag__slots(), name, sizeof name);
        else dag__trace_row_name(r, name, sizeof name);
        dag__json_string(f, name);
        fprintf(f, "}}");
    }
    dag__for_each_trace(dag__json_events, &o);
    dag__devices_trace_json(f, rows + 1);
    fprintf(f, "\n]}\n");
    return dag__trace_close(f, "dag_trace_write_json", path);
}

typedef struct dag__trace_copy { dag_trace_record *out; size_t max, count; } dag__trace_copy;
static void dag__trace_copy_events(dag__worker *w, void *arg) {
    dag__trace_copy *c = (dag__trace_copy *)arg;
    for (size_t i = 0; i < w->num_events; i++, c->count++) {
        if (c->count >= c->max) continue;
        const dag__trace_event *e = &w->events[i];
        dag_trace_record *r = &c->out[c->count];
        r->name = e->name;
        r->backend = e->processor ? dag__device_backend(e->processor - 1) : DAG_CPU;
        r->processor = e->processor ? dag__device_ordinal(e->processor - 1) + 1 : e->worker >= 0 ? e->worker + 1 : 0;
        uint64_t t0 = atomic_load_explicit(&dag__g.trace_epoch, memory_order_relaxed);
        r->start_us = e->start > t0 ? (double)(e->start - t0) / 1e3 : 0;
        r->end_us = e->end > t0 ? (double)(e->end - t0) / 1e3 : 0;
        r->bytes_moved = e->bytes_moved;
        r->status = e->status;
        snprintf(r->placement, sizeof r->placement, "%s", e->placement ? e->placement : "");
    }
}
static int dag__record_order(const void *a, const void *b) {
    double x = ((const dag_trace_record *)a)->start_us, y = ((const dag_trace_record *)b)->start_us;
    return x < y ? -1 : x > y;
}
size_t dag_trace_records(dag_trace_record *out, size_t max) {
    if (!dag_is_setup()) return 0;
    DAG__AS_READER(size_t, "dag_trace_records", 0, dag_trace_records(out, max))
    dag__trace_copy c;
    c.out = out;
    c.max = out ? max : 0;
    c.count = 0;
    dag__for_each_trace(dag__trace_copy_events, &c);
    if (c.max) qsort(out, c.count < c.max ? c.count : c.max, sizeof *out, dag__record_order);
    return c.count;
}

static void dag__dot_nodes(dag__worker *w, void *arg) {
    FILE *f = ((dag__trace_out *)arg)->f;
    for (size_t i = 0; i < w->num_events; i++) {
        dag__trace_event *e = &w->events[i];
        fprintf(f, "  t%llu [label=\"", (unsigned long long)e->id);
        for (const char *s = e->name; *s; s++) {
            if (*s == '"' || *s == '\\') fputc('\\', f);
            fputc(*s, f);
        }
        char where[200];
        dag__trace_row_name(dag__trace_row(e), where, sizeof where);
        fprintf(f, "\\n#%llu %s\"%s];\n", (unsigned long long)e->id, where, e->status ? ", color=red" : "");
    }
}
static void dag__dot_edges(dag__worker *w, void *arg) {
    FILE *f = ((dag__trace_out *)arg)->f;
    for (size_t i = 0; i < w->num_trace_edges; i++)
        fprintf(f, "  t%llu -> t%llu;\n", (unsigned long long)w->trace_edges[i].from,
                (unsigned long long)w->trace_edges[i].to);
}

dag_result dag_trace_write_dot(const char *path) {
    DAG__AS_READER(dag_result, "dag_trace_write_dot", DAG_ERR_SHUT_DOWN, dag_trace_write_dot(path))
    dag_result err;
    FILE *f = dag__trace_open(path, "dag_trace_write_dot", &err);
    if (!f) return err;
    dag__trace_out o;
    o.f = f;
    o.first = 1;
    fprintf(f, "digraph dag {\n  node [shape=box, fontname=\"Helvetica\"];\n");
    dag__for_each_trace(dag__dot_nodes, &o);
    dag__for_each_trace(dag__dot_edges, &o);
    fprintf(f, "}\n");
    return dag__trace_close(f, "dag_trace_write_dot", path);
}

/* >>svg gantt chart */
#define DAG__SVG_NAMES 16
typedef struct dag__svg {
    FILE *f;
    uint64_t first, last;        /* ns */
    const char *names[DAG__SVG_NAMES];
    int num_names;
    double scale;                /* px per ns */
} dag__svg;
enum { DAG__SVG_LEFT = 90, DAG__SVG_WIDTH = 1200, DAG__SVG_ROW = 22, DAG__SVG_TOP = 30, DAG__SVG_AXIS = 30,
       DAG__SVG_CHAR = 7 /* px per character at font-size 11, wide enough for labels to fit */ };

/* Escaped for XML, at most max characters (UTF-8 ones: a cut never splits one), control characters
   (which XML 1.0 has no place for) as '?' */
static void dag__svg_text(FILE *f, const char *s, int max) {
    for (int n = 0; *s && n < max; n++) {
        unsigned char c = (unsigned char)*s++;
        if (c == '<') fputs("&lt;", f);
        else if (c == '&') fputs("&amp;", f);
        else if (c == '>') fputs("&gt;", f);
        else if (c == '"') fputs("&quot;", f);
        else if (c < 0x20 || c == 0x7f) fputc('?', f);
        else {
            fputc(c, f);
            while (((unsigned char)*s & 0xc0) == 0x80) fputc(*s++, f);   /* the rest of a UTF-8 character */
        }
    }
}
static int dag__svg_colour(dag__svg *g, const char *name) {   /* a hue per name, the same for equal names */
    for (int i = 0; i < g->num_names; i++)
        if (strcmp(g->names[i], name) == 0) return i;
    if (g->num_names < DAG__SVG_NAMES) g->names[g->num_names++] = name;
    return g->num_names < DAG__SVG_NAMES ? g->num_names - 1 : DAG__SVG_NAMES - 1;
}
static void dag__svg_extent(dag__worker *w, void *arg) {
    dag__svg *g = (dag__svg *)arg;
    for (size_t i = 0; i < w->num_events; i++) {
        if (w->events[i].start < g->first) g->first = w->events[i].start;
        if (w->events[i].end > g->last) g->last = w->events[i].end;
        dag__svg_colour(g, w->events[i].name);
    }
}
static void dag__svg_bars(dag__worker *w, void *arg) {
    dag__svg *g = (dag__svg *)arg;
    for (size_t i = 0; i < w->num_events; i++) {
        const dag__trace_event *e = &w->events[i];
        double x = DAG__SVG_LEFT + (double)(e->start - g->first) * g->scale;
        double width = (double)(e->end - e->start) * g->scale;
        int y = DAG__SVG_TOP + dag__trace_row(e) * DAG__SVG_ROW;
        int hue = dag__svg_colour(g, e->name) * 137 % 360;   /* the golden angle: neighbours differ */
        fprintf(g->f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"hsl(%d,65%%,%s)\"><title>", x, y,
                width < 0.5 ? 0.5 : width, DAG__SVG_ROW - 4, hue, e->status ? "30%" : "55%");
        dag__svg_text(g->f, e->name, 1 << 30);   /* the whole name */
        fprintf(g->f, " %.1f-%.1f us%s</title></rect>\n", (double)(e->start - g->first) / 1e3,
                (double)(e->end - g->first) / 1e3, e->status ? " (failed)" : "");
        /* the name on the bar where at least three characters fit; the
           legend and the tooltip name the narrower ones */
        int fits = (int)((width - 4) / DAG__SVG_CHAR);
        if (fits >= 3) {
            fprintf(g->f, "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" pointer-events=\"none\">", x + 2, y + 13);
            dag__svg_text(g->f, e->name, fits);
            fputs("</text>\n", g->f);
        }
    }
}
/* Ticks 1, 2 or 5 times a power of ten apart: the widest such step that
   still gives five intervals, so 6 to 13 ticks over the chart, labelled in
   the unit that keeps the numbers short. */
static void dag__svg_axis(dag__svg *g, int y) {
    double span = (double)(g->last - g->first), step = 1;
    for (double p = 1; p <= span; p *= 10) {
        if (span / (5 * p) >= 5) step = 5 * p;
        else if (span / (2 * p) >= 5) step = 2 * p;
        else if (span / p >= 5) step = p;
    }
    const char *unit = step >= 1e6 ? "ms" : step >= 1e3 ? "us" : "ns";
    double div = step >= 1e6 ? 1e6 : step >= 1e3 ? 1e3 : 1;
    fprintf(g->f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", DAG__SVG_LEFT, y,
            DAG__SVG_LEFT + DAG__SVG_WIDTH, y);
    for (double t = 0; span > 0 && t <= span; t += step) {
        double x = DAG__SVG_LEFT + t * g->scale;
        fprintf(g->f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#ccc\"/>"
                      "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"black\"/>"
                      "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g %s</text>\n",
                x, DAG__SVG_TOP, x, y, x, y, x, y + 5, x, y + 18, t / div, unit);
    }
}

dag_result dag_trace_write_svg(const char *path) {
    DAG__AS_READER(dag_result, "dag_trace_write_svg", DAG_ERR_SHUT_DOWN, dag_trace_write_svg(path))
    dag_result err;
    FILE *f = dag__trace_open(path, "dag_trace_write_svg", &err);
    if (!f) return err;
    dag__svg g;
    memset(&g, 0, sizeof g);
    g.f = f;
    g.first = UINT64_MAX;
    dag__for_each_trace(dag__svg_extent, &g);
    if (g.first > g.last) g.first = g.last = 0;
    g.scale = g.last > g.first ? (double)DAG__SVG_WIDTH / (double)(g.last - g.first) : 0.0;
    int rows = dag__trace_rows(), axis = DAG__SVG_TOP + rows * DAG__SVG_ROW;
    int height = axis + DAG__SVG_AXIS + 20 + (g.num_names + 3) / 4 * 18;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"4\" y=\"18\">%.3f ms, %d rows</text>\n",
            DAG__SVG_LEFT + DAG__SVG_WIDTH + 30, height, (double)(g.last - g.first) / 1e6, rows);
    dag__svg_axis(&g, axis);
    for (int r = 0; r < rows; r++) {
        char name[200];
        dag__trace_row_name(r, name, sizeof name);
        fprintf(f, "<text x=\"4\" y=\"%d\">%s</text>\n", DAG__SVG_TOP + r * DAG__SVG_ROW + 14, name);
    }
    dag__for_each_trace(dag__svg_bars, &g);
    for (int i = 0; i < g.num_names; i++) {   /* the legend */
        int x = DAG__SVG_LEFT + (i % 4) * 300, y = axis + DAG__SVG_AXIS + 10 + (i / 4) * 18;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"hsl(%d,65%%,55%%)\"/>"
                   "<text x=\"%d\" y=\"%d\">", x, y, i * 137 % 360, x + 16, y + 11);
        dag__svg_text(f, g.names[i], 40);
        fputs("</text>\n", f);
    }
    fprintf(f, "</svg>\n");
    return dag__trace_close(f, "dag_trace_write_svg", path);
}

/* Where a file is missing, one error that names the files to copy (README: Which files to copy) */
/* >>other layers: the device and rank layers, after the core, whose seams
   they fill */
#if DAG__HAS_DEVICES && defined(__has_include)
#if !__has_include("dag_backends/dag_device.h") || !__has_include("dag_backends/dag_opencl.h") || \
    !__has_include("dag_backends/dag_cuda.h") || !__has_include("dag_backends/dag_hip.h") || \
    !__has_include("dag_backends/dag_level_zero.h") || !__has_include("dag_backends/dag_gpu_stream.h")
#error "dag.h: a device backend (-DDAG_BACKEND_OPENCL, _CUDA, _HIP, _LEVEL_ZERO) needs the whole folder dag_backends/ beside dag.h (README: Which files to copy)"
#endif
#endif
#if DAG__HAS_MPI && defined(__has_include)
#if !__has_include("dag_backends/dag_mpi.h")
#error "dag.h: -DDAG_BACKEND_MPI needs the folder dag_backends/ beside dag.h (README: Which files to copy)"
#endif
#endif
#if DAG__HAS_DEVICES && !defined(__cplusplus)   /* as C++: the one #error at >>device seam */
#include "dag_backends/dag_device.h"
#endif
#if DAG__HAS_MPI && !defined(__cplusplus)
#include "dag_backends/dag_mpi.h"
#endif
#ifdef DAG__TSAN_WARNING_OFF
#pragma GCC diagnostic pop
#endif
#endif /* DAG_IMPLEMENTATION_INCLUDED */
#endif /* DAG_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the dag.h authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
