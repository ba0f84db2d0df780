// The public part of dag.h and dag_kernels.h from C++: declarations, handles,
// options, the argument constructors, dag_spawn itself, and a DAG_KERNEL
// (the CUDA and HIP backends compile kernels as C++).
#include "dag_kernels.h"   /* includes dag.h */
#include "dag_array.h"     /* its declarations too */
#include "dag_blas.h"

DAG_KERNEL(scale, ((double, a), (DAG_GLOBAL double *, y)),
    y[DAG_INDEX()] *= a;
)

int main() {
    double x[4] = {1, 2, 3, 4};
    dag_arg a[2] = { DAG_IN(x, 4), DAG_VAL(2.0) };
    dag_options o = {};
    dag_scope one = {}, two = {}, device = {};
    one.thread = 1;
    two.thread = 2;
    device.cl_device = 2;
    o.scope = dag_scope_union(dag_scope_union(one, two), device);
    dag_memory_info m = {};
    dag_trace_record r = {};
    (void)m;
    (void)r;
    dag_setup(NULL);
    dag_wait(dag_spawn(DAG_LAUNCH(scale, 4), DAG_VAL(3.0), DAG_INOUT(x, 4)));
    dag_shutdown();
    return (a[0].kind == 2 && a[1].size == sizeof(double) && o.scope.threads == 3 && o.scope.cl_devices == 2 &&
            scale__desc.kernel == &scale__cl && x[3] == 12.0) ? 0 : 1;
}
