/* Mistakes that must not compile, each with a message that says what to
   write instead (make check-compile builds each CASE, as C and as C++, and
   looks for the message). */
#include "dag.h"
#if CASE == 5 && defined(__cplusplus)
#include <string>
DAG_TASK(void, takes_string, (std::string, s)) { (void)s; }   /* a parameter of such a type */
#endif
#if (CASE == 6 || CASE == 7 || CASE == 8) && defined(__cplusplus)
#include <vector>
struct point { double x, y; };
struct colour { int r, g, b; };
DAG_TASK(double, point_x, (const point *, p)) { return p->x; }
#endif

DAG_TASK(void, say, (const char *, s)) { (void)s; }
DAG_TASK(void, sum, (const double *, x)) { (void)x; }
DAG_TASK(long, times_ten, (long, v)) { return v * 10; }

int main(void) {
    double x[4] = {0, 0, 0, 0};
    (void)x;
#if CASE == 1
    dag_spawn(say, Val("text"));   /* a string by value: pass a pointer */
#elif CASE == 2
    dag_spawn(sum, In(x));         /* a pointer without a count */
#elif CASE == 3
    (void)dag_backend_status(DAG_BACKEND_CUDA);   /* the flag (built with -DDAG_BACKEND_CUDA), not DAG_CUDA */
#elif CASE == 4
    dag_spawn(times_ten, 1);       /* a number written as in a call: Val(1L) */
#elif CASE == 5 && defined(__cplusplus)
    std::string s = "x";           /* moved as bytes, it would be copied wrong: a pointer and a count */
    dag_spawn(say, Val(s));
#elif CASE == 6 && defined(__cplusplus)
    colour c = {1, 2, 3};          /* a pointer to a class the parameter's is no base of */
    dag_spawn(point_x, Val(&c));
#elif CASE == 7 && defined(__cplusplus)
    std::vector<double> v(4);      /* a container for a span: In(v.data(), v.size()) */
    dag_spawn(sum, In(v));
#elif CASE == 8 && defined(__cplusplus)
    struct triple { point a, b, c; };   /* 48 bytes: its Val points at the temporary, which is gone */
    dag_arg kept = Val((triple{{0, 0}, {1, 1}, {2, 2}}));
    (void)kept;
#endif
    return 0;
}
