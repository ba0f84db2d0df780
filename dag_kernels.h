/* dag_kernels.h: portable kernels for dag.h, written once.

       #include "dag_kernels.h"

       DAG_KERNEL(axpy, ((double, a), (DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
           size_t i = DAG_INDEX();
           y[i] += a * x[i];
       )

       dag_spawn(DAG_LAUNCH(axpy, n), Val(2.0), In(x, n), InOut(y, n));

   DAG_KERNEL(name, ((type, param), ...), body) defines, from one text:
   - a task `name` whose first (hidden) parameter is the range; launched on
     the CPU it splits [0, n) into chunks that run on the workers as its
     children (the task finishes when every chunk has);
   - `name##__cl`, the same kernel as text: dag_kernel_opencl_source()
     writes it out as OpenCL C, with the bounds guard inserted (the global
     size may be rounded up) and DAG_GLOBAL meaning __global. A task whose
     scope allows an OpenCL device may run there: the text is built once per
     device at run time, and a build failure fails the task with
     DAG_ERR_KERNEL_BUILD and the compiler's log as its message.
   - for CUDA, HIP and Level Zero, the same kernel compiled ahead of time
     (below); a kernel without a build for a backend runs elsewhere.
   DAG_KERNEL_OR_LIBRARY(name, libraries, params, body) is the same kernel,
   with library routines that stand in for it on their backends' devices
   where their library loads (libraries: a NULL-terminated array of
   const dag_library_kernel *, dag.h says what they are given; dag_blas.h's
   gemm is the example). dag_desc.no_library_kernels turns them off.
   DAG_INDEX() is the global linear index. DAG_GLOBAL means nothing in C.
   Parameters must have types that OpenCL C accepts as kernel arguments:
   pointers to global memory, int, long (long long), float, double... (not
   size_t or bool). 1 to 14 parameters; the body is plain C and may not use
   `return` values. The OpenCL text keeps C's meaning (no contraction of
   a * b + c into one rounding, abs of an int an int, C's float functions,
   <math.h>'s nearbyint, lround, scalbn..., <stdint.h>'s int64_t...,
   OpenCL C's words such as half or local free as names), so arithmetic,
   sqrt and the exact functions (fabs, floor, fmin, nearbyint...) give the
   same bits on a device as on the CPU; sin, exp, pow and the other
   transcendental functions are each side's own library, which may differ
   in the last bits. The body may use its
   parameters, its own locals and <math.h>; not the program's macros,
   global names or functions, which a device's compiler never sees (there
   the kernel fails with DAG_ERR_KERNEL_BUILD, the message at a column of
   its body). On a device, an Out parameter must be written whole (it is
   not copied in first, as in StarPU's W mode); use InOut for partial
   writes, and never write through an In parameter (a device writes its
   own copy, which the program never sees).

   GPU BUILDS. Put the kernels in a header of their own (kernels.h: only
   #include "dag_kernels.h" and DAG_KERNELs), include it from the program
   as usual, and build it once more per GPU backend; the program, built
   with the backend's -D flag, finds each kernel's build by its name:
   - CUDA: a .cu file holding #include "kernels.h",
       nvcc -DDAG_BACKEND_CUDA -gencode arch=compute_90,code=sm_90 -c kernels.cu
     (each kernel becomes a __global__ function and its record name##__cuda);
   - HIP: hipcc --genco --offload-arch=gfx90a --offload-arch=gfx1030 -x hip
       kernels.h -o kernels.hipfb, then tools/dag_embed.py --hip kernels.h
       kernels.hipfb -o kernels_hip.c (the code object as bytes, and the
       records name##__hip); compile and link kernels_hip.c;
   - Level Zero: clang -x cl -cl-std=CL2.0 -target spir64 -O0 -emit-llvm -c
       -Xclang -finclude-default-header kernels.h -o kernels.bc, then
       tools/dag_embed.py --level-zero kernels.h kernels.bc -o kernels_ze.c
       (a SPIR-V module per kernel, through llvm-extract-14 and
       llvm-spirv-14: a GPU without fp64 then runs the kernels without
       double).
   The Makefile's tests/gpu rules do all three. nvcc and hipcc fuse
   a * b + c into one fma by default: -fmad=false (nvcc) or
   -ffp-contract=off (hipcc) gives the CPU's bits there too.
*/
#ifndef DAG_KERNELS_H_INCLUDED
#define DAG_KERNELS_H_INCLUDED

/* one error that names the files to copy, not the compiler's about the first one missing */
#if defined(__has_include)
#if !__has_include("dag.h")
#error "dag_kernels.h needs dag.h beside it (README: Which files to copy)"
#endif
#endif
#include "dag.h"

#define DAG__KPARAM(p) DAG__PT(p) DAG__PN(p)

#if defined(__OPENCL_C_VERSION__)
/* clang -x cl: each kernel as OpenCL C, for Level Zero's SPIR-V, with C's
   meaning where OpenCL C's would differ silently (as dag.h's run-time text,
   dag__cl_prelude, has it): no contraction, abs of an int an int (a
   macro: each kernel is cut out of the module alone, with no helpers). */
#pragma OPENCL FP_CONTRACT OFF
#undef abs
#define abs(x) ((int)abs((int)(x)))
#define DAG_GLOBAL __global
#define DAG_INDEX() dag__index
#define DAG_KERNEL(name, params, ...) \
    __kernel void name(ulong dag__n, DAG__MAP(DAG__KPARAM, DAG__EXPAND params)) { \
        size_t dag__index = get_global_id(0); \
        if (dag__index >= dag__n) return; \
        __VA_ARGS__ \
    }
#define DAG_KERNEL_OR_LIBRARY(name, libraries, params, ...) DAG_KERNEL(name, params, __VA_ARGS__)

#elif defined(DAG_KERNEL_NAMES)
/* cc -E -DDAG_KERNEL_NAMES: one line per kernel (tools/dag_embed.py reads them). */
#define DAG_KERNEL(name, params, ...) dag_kernel_name name
#define DAG_KERNEL_OR_LIBRARY(name, libraries, params, ...) dag_kernel_name name

#elif defined(__CUDACC__) || defined(__HIP__)
/* nvcc or hipcc: each kernel as a __global__ function over [0, n). nvcc
   also writes its record; for HIP, tools/dag_embed.py writes them around
   the code object. */
#define DAG_GLOBAL
#define DAG_INDEX() dag__index
#define DAG__GPU_KERNEL(name, params, ...) \
    extern "C" __global__ void name##__gpu(size_t dag__n, DAG__MAP(DAG__KPARAM, DAG__EXPAND params)) { \
        size_t dag__index = (size_t)blockIdx.x * blockDim.x + threadIdx.x; \
        if (dag__index >= dag__n) return; \
        __VA_ARGS__ \
    }
#if defined(__HIP__)
#include <hip/hip_runtime.h>
#define DAG_KERNEL(name, params, ...) DAG__GPU_KERNEL(name, params, __VA_ARGS__)
#else
#define DAG_KERNEL(name, params, ...) \
    DAG__GPU_KERNEL(name, params, __VA_ARGS__) \
    extern "C" const dag_native_kernel name##__cuda = { #name "__gpu", (const void *)name##__gpu, 0, 0 };
#endif
#define DAG_KERNEL_OR_LIBRARY(name, libraries, params, ...) DAG_KERNEL(name, params, __VA_ARGS__)

#else
/* C or C++ on the host: the CPU task, the OpenCL text, and the records of
   the ahead-of-time builds for the backends the program is built with.
   The records are weak references: a kernel with no build for a backend
   runs elsewhere (or fails with a message saying how to build it). */
#include <stdlib.h>
#include <string.h>

#define DAG_GLOBAL
#define DAG_INDEX() dag__index

/* How many chunks a CPU launch of n items uses: a few per worker, none
   smaller than DAG_KERNEL_GRAIN items. */
#ifndef DAG_KERNEL_GRAIN
#define DAG_KERNEL_GRAIN 4096
#endif
static inline size_t dag__kernel_chunks(size_t n) {
    size_t by_workers = DAG__CAST(size_t, dag_num_threads() > 0 ? dag_num_threads() : 1) * 4;
    size_t by_grain = (n + DAG_KERNEL_GRAIN - 1) / DAG_KERNEL_GRAIN;
    size_t c = by_grain < by_workers ? by_grain : by_workers;
    return c ? c : 1;
}

/* A kernel run on the CPU splits into chunks, which are CPU tasks whatever scope the kernel's
   spawn named (one naming devices alone sends a kernel here when its spans overlap). */
static inline dag_options dag__kernel_chunk_options(void) {
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope.all_threads = 1;
    return o;
}

#define DAG__KVAL(p) DAG_VAL(DAG__PN(p))

#if defined(__GNUC__) || defined(__clang__)
#define DAG__WEAK __attribute__((weak))
#else
#define DAG__WEAK
#endif
#ifdef __cplusplus
#define DAG__EXTERN_C extern "C"
#else
#define DAG__EXTERN_C extern
#endif
/* The records of the ahead-of-time builds, made from dag.h's backend list:
   for each backend whose kernels come built ahead of time (aot 1) and that
   the program is built with, a weak reference to name__word (axpy__cuda),
   in native[] at the backend's place; 0 elsewhere. */
#define DAG__NATIVE_ON(aot, flag) DAG__CAT(DAG__IF_, aot)(DAG__ON(flag), 0)
#define DAG__NATIVE_DECL(e, field, name, word, device, flag, aot, hint, kernel) \
    DAG__CAT(DAG__NATIVE_DECL_, DAG__NATIVE_ON(aot, flag))(kernel##__##word)
#define DAG__NATIVE_DECL_0(record)
#define DAG__NATIVE_DECL_1(record) DAG__EXTERN_C const dag_native_kernel record DAG__WEAK;
#define DAG__NATIVE_REF(e, field, name, word, device, flag, aot, hint, kernel) \
    DAG__CAT(DAG__NATIVE_REF_, DAG__NATIVE_ON(aot, flag))(kernel##__##word),
#define DAG__NATIVE_REF_0(record) DAG__NULL
#define DAG__NATIVE_REF_1(record) &record

#define DAG_KERNEL(name, params, ...) DAG__HOST_KERNEL(name, DAG__NULL, #params, #__VA_ARGS__, params, __VA_ARGS__)
#define DAG_KERNEL_OR_LIBRARY(name, libraries, params, ...) \
    DAG__HOST_KERNEL(name, libraries, #params, #__VA_ARGS__, params, __VA_ARGS__)
/* the text is written out by the two above, before their arguments expand */
#define DAG__HOST_KERNEL(name, libraries, params_text, body_text, params, ...) \
    static inline void name##__item(size_t dag__index, DAG__MAP(DAG__KPARAM, DAG__EXPAND params)) { \
        (void)dag__index; \
        __VA_ARGS__ \
    } \
    DAG_TASK(void, name##__chunk, (size_t, dag__lo), (size_t, dag__hi), DAG__EXPAND params) { \
        for (size_t dag__i = dag__lo; dag__i < dag__hi; dag__i++) \
            name##__item(dag__i, DAG__MAP(DAG__PN, DAG__EXPAND params)); \
    } \
    DAG__BACKENDS_K(DAG__NATIVE_DECL, name) \
    DAG__UNUSED static const dag_kernel_source name##__cl = { #name, params_text, body_text, \
        { DAG__BACKENDS_K(DAG__NATIVE_REF, name) }, libraries }; \
    DAG_TASK(void, name##__cpu, (size_t, dag__n), DAG__EXPAND params) { \
        size_t dag__chunks = dag__kernel_chunks(dag__n); \
        dag_options dag__on_cpu = dag__kernel_chunk_options(); \
        for (size_t dag__c = 0; dag__c < dag__chunks; dag__c++) \
            dag_spawn_with(&dag__on_cpu, name##__chunk, DAG_VAL(dag__n * dag__c / dag__chunks), \
                      DAG_VAL(dag__n * (dag__c + 1) / dag__chunks), DAG__MAP(DAG__KVAL, DAG__EXPAND params)); \
    } \
    enum { name##__nparams = name##__cpu__nparams }; \
    typedef name##__cpu__args name##__args;   /* (a spawn's arguments are converted for its fields) */ \
    DAG__UNUSED static const dag_task_desc name##__desc = { \
        #name, name##__cpu__run, name##__cpu__nparams, name##__cpu__params, sizeof(name##__cpu__args), 0, 0, &name##__cl, 0 };

/* dag_spawn(DAG_LAUNCH(name, n), args...): the kernel over [0, n). */
#define DAG_LAUNCH(name, n) name, DAG_VAL(DAG__CAST(size_t, n))
#endif

#endif /* DAG_KERNELS_H_INCLUDED */
