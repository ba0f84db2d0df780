/* A backend's flag turns it on whether it is defined as 1 (-DDAG_BACKEND_X)
   or as nothing (#define DAG_BACKEND_X), and an absent flag leaves its
   backend out: dag.h tests the flags with DAG__ON, from its backend list,
   and the device table lists the backends compiled in, in the list's order.
   In code a flag is no backend (tests/compile/misuse.c CASE 3). */
#define DAG_BACKEND_OPENCL
#define DAG_BACKEND_HIP 1
#define DAG_IMPLEMENTATION
#include "dag.h"

_Static_assert(DAG__ON(DAG_BACKEND_OPENCL) && DAG__ON(DAG_BACKEND_HIP) && !DAG__ON(DAG_BACKEND_CUDA) &&
                   !DAG__ON(DAG_BACKEND_LEVEL_ZERO),
               "DAG__ON: on for a flag defined as 1 or as nothing, off for one not defined");
#if DAG_BACKEND_HIP != 1 || !defined(DAG_BACKEND_OPENCL)
#error "a flag that is on still reads as 1 in #if, and stays defined"
#endif
_Static_assert(sizeof dag__backend_ops / sizeof dag__backend_ops[0] == 3, "OpenCL and HIP, then the NULL that ends them");

int main(void) {
    return dag__backend_ops[0] == &dag__opencl_ops && dag__backend_ops[1] == &dag__hip_ops && !dag__backend_ops[2] ? 0 : 1;
}
