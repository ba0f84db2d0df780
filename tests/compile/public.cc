// The public part of dag.h from C++: declarations, handles, options, and the
// argument constructors a C++ caller uses with dag_spawn_desc.
#include "dag_kernels.h"   /* includes dag.h */
int main() {
    double x[4] = {0, 0, 0, 0};
    dag_arg a[2] = { DAG_IN(x, 4), DAG_VAL(2.0) };
    dag_options o = {};
    o.scope = dag_scope_union(dag_scope{1, 0, 0}, dag_scope{2, 0, 0});
    return (a[0].kind == 2 && a[1].size == sizeof(double) && o.scope.threads == 3) ? 0 : 1;
}
