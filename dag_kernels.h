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
   DAG_INDEX() is the global linear index. DAG_GLOBAL means nothing in C.
   Parameters must have types that OpenCL C accepts as kernel arguments:
   pointers to global memory, int, long, float, double... (not size_t or
   bool). 1 to 14 parameters; the body is plain C and may not use `return`
   values. On a device, an Out parameter must be written whole (it is not
   copied in first, as in StarPU's W mode); use InOut for partial writes.
*/
#ifndef DAG_KERNELS_H_INCLUDED
#define DAG_KERNELS_H_INCLUDED

#include "dag.h"
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
    size_t by_workers = (size_t)(dag_num_threads() > 0 ? dag_num_threads() : 1) * 4;
    size_t by_grain = (n + DAG_KERNEL_GRAIN - 1) / DAG_KERNEL_GRAIN;
    size_t c = by_grain < by_workers ? by_grain : by_workers;
    return c ? c : 1;
}

#define DAG__KPARAM(p) DAG__PT(p) DAG__PN(p)
#define DAG__KVAL(p) DAG_VAL(DAG__PN(p))

#define DAG_KERNEL(name, params, ...) \
    static inline void name##__item(size_t dag__index, DAG__MAP(DAG__KPARAM, DAG__EXPAND params)) { \
        (void)dag__index; \
        __VA_ARGS__ \
    } \
    DAG_TASK(void, name##__chunk, (size_t, dag__lo), (size_t, dag__hi), DAG__EXPAND params) { \
        for (size_t dag__i = dag__lo; dag__i < dag__hi; dag__i++) \
            name##__item(dag__i, DAG__MAP(DAG__PN, DAG__EXPAND params)); \
    } \
    DAG__UNUSED static const dag_kernel_source name##__cl = { #name, #params, #__VA_ARGS__, 0, 0, 0 }; \
    DAG_TASK(void, name##__cpu, (size_t, dag__n), DAG__EXPAND params) { \
        size_t dag__chunks = dag__kernel_chunks(dag__n); \
        for (size_t dag__c = 0; dag__c < dag__chunks; dag__c++) \
            dag_spawn(name##__chunk, DAG_VAL(dag__n * dag__c / dag__chunks), \
                      DAG_VAL(dag__n * (dag__c + 1) / dag__chunks), DAG__MAP(DAG__KVAL, DAG__EXPAND params)); \
    } \
    enum { name##__nparams = name##__cpu__nparams }; \
    DAG__UNUSED static const dag_task_desc name##__desc = { \
        #name, name##__cpu__run, name##__cpu__nparams, name##__cpu__params, sizeof(name##__cpu__args), 0, 0, &name##__cl };

/* dag_spawn(DAG_LAUNCH(name, n), args...): the kernel over [0, n). */
#define DAG_LAUNCH(name, n) name, DAG_VAL((size_t)(n))

#endif /* DAG_KERNELS_H_INCLUDED */
