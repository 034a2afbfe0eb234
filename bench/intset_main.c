/* bench/intset_main.c — the intset-<backend> executables. */
#include "potm_bench.h"

int main(int argc, char **argv)
{
	return potm_bench_intset(argc, argv);
}
