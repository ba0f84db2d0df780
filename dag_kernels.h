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
   - `name##__cl`, the same kernel as OpenCL C source: dag_kernel_opencl_source()
     writes it out, with the bounds guard inserted (the global size may be
     rounded up) and DAG_GLOBAL meaning __global.
   DAG_INDEX() is the global linear index. DAG_GLOBAL means nothing in C.
   Parameters must have types that OpenCL C accepts as kernel arguments:
   pointers to global memory, int, long, float, double... (not size_t or
   bool). 1 to 14 parameters; the body is plain C and may not use `return`
   values. Accelerator backends arrive with the device layer; until then a
   launch runs on the CPU workers.
*/
#ifndef DAG_KERNELS_H_INCLUDED
#define DAG_KERNELS_H_INCLUDED

#include "dag.h"
#include <stdlib.h>
#include <string.h>

#define DAG_GLOBAL
#define DAG_INDEX() dag__index

typedef struct dag_kernel_source {
    const char *name;
    const char *params;   /* "((type, name), ...)" as written */
    const char *body;
} dag_kernel_source;

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
    DAG__UNUSED static const dag_kernel_source name##__cl = { #name, #params, #__VA_ARGS__ }; \
    DAG_TASK(void, name, (size_t, dag__n), DAG__EXPAND params) { \
        size_t dag__chunks = dag__kernel_chunks(dag__n); \
        for (size_t dag__c = 0; dag__c < dag__chunks; dag__c++) \
            dag_spawn(name##__chunk, DAG_VAL(dag__n * dag__c / dag__chunks), \
                      DAG_VAL(dag__n * (dag__c + 1) / dag__chunks), DAG__MAP(DAG__KVAL, DAG__EXPAND params)); \
    }

/* dag_spawn(DAG_LAUNCH(name, n), args...): the kernel over [0, n). */
#define DAG_LAUNCH(name, n) name, DAG_VAL((size_t)(n))

/* The kernel as OpenCL C (malloc'd; free it). The parameters come as the
   text written in DAG_KERNEL, so DAG_GLOBAL survives to mean __global. */
static inline char *dag_kernel_opencl_source(const dag_kernel_source *k) {
    size_t cap = strlen(k->body) + strlen(k->name) + strlen(k->params) + 256;
    char *s = (char *)malloc(cap);
    if (!s) return NULL;
    size_t n = 0;
#define DAG__PUT(str, len) do { memcpy(s + n, (str), (len)); n += (len); } while (0)
#define DAG__PUTS(str) DAG__PUT((str), strlen(str))
    DAG__PUTS("#define DAG_GLOBAL __global\n#define DAG_INDEX() dag__index\n__kernel void ");
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
            DAG__PUTS(", ");
            DAG__PUT(type, (size_t)(type_end - type));
            DAG__PUTS(" ");
            DAG__PUT(name, (size_t)(name_end - name));
        }
    }
    DAG__PUTS(") {\n    size_t dag__index = get_global_id(0);\n    if (dag__index >= dag__n) return;\n    ");
    DAG__PUTS(k->body);
    DAG__PUTS("\n}\n");
#undef DAG__PUTS
#undef DAG__PUT
    s[n] = 0;
    return s;
}

#endif /* DAG_KERNELS_H_INCLUDED */
