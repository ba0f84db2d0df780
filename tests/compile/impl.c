/* The whole header, implementation included, as strict C11. Built with
   -DNO_MAIN it is the implementation unit that the C++ check links against. */
#define DAG_IMPLEMENTATION
#include "dag.h"
#ifndef NO_MAIN
int main(void) { return 0; }
#endif
