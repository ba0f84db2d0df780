// The macros a C++ program expands (DAG_TASK, DAG_KERNEL, dag_spawn, In/Out/InOut, Val, Fut, Ld,
// DAG_OPTIONS, the blocks) under C++'s stricter warnings: make check-compile builds this with
// -Wold-style-cast -Wzero-as-null-pointer-constant -Werror, which find nothing of dag.h's.
// (dag_blas.h's kernels are C for every backend's compiler, casts included: not here.)
#include "dag_kernels.h"
#include "dag_kernels.h"   /* (twice: harmless) */
#include <cstdio>
#include <vector>

DAG_TASK(double, dot, (const double *, x), (const double *, y), (size_t, n)) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}
DAG_TASK(void, scale_tile, (double *, t), (int, ld), (double, a)) { t[0] *= a; (void)ld; }
DAG_TASK(float, halve, (double, x)) { return static_cast<float>(x / 2); }
struct point { double x, y; };
DAG_TASK(point, mirror, (const point *, p)) { return point{p->y, p->x}; }
DAG_KERNEL(axpy, ((double, a), (const DAG_GLOBAL double *, x), (DAG_GLOBAL double *, y)),
    y[DAG_INDEX()] += a * x[DAG_INDEX()];
)

int main() {
    std::vector<double> x(64, 1.0), y(64, 2.0), m(16, 1.0);
    point p{1, 2}, q{};
    double d = 0;
    float h = 0;
    DAG_DATADEPS {
        dag_spawn(DAG_LAUNCH(axpy, x.size()), Val(2.0), In(x.data(), x.size()), InOut(y.data(), y.size()));
        dag_fetch(dag_spawn(dot, In(x.data(), x.size()), In(y.data(), y.size()), Val(x.size())), &d);
        dag_spawn(scale_tile, InOut(m.data(), 2, 2, 4), Ld(m.data()), Val(3));
    }
    DAG_WITH_OPTIONS(.priority = 1) {
        dag_task t = dag_spawn_with(DAG_OPTIONS(.run_inline = 1), halve, Val(d));
        dag_fetch(dag_spawn(mirror, Val(&p)), &q);
        dag_fetch(t, &h);
    }
    std::printf("%g %g %g\n", d, static_cast<double>(h), q.x);
    return dag_shutdown();
}
