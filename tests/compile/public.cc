// The public part of dag.h from C++: declarations, handles, options, and the
// argument constructors a C++ caller uses with dag_spawn_desc.
#include "dag_kernels.h"   /* includes dag.h */
int main() {
    double x[4] = {0, 0, 0, 0};
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
    return (a[0].kind == 2 && a[1].size == sizeof(double) && o.scope.threads == 3 && o.scope.cl_devices == 2) ? 0 : 1;
}
