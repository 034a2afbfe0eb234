/* bench/bank_main.c — the bank-<backend> executables. */
#include "potm_bench.h"

int main(int argc, char **argv)
{
	return potm_bench_bank(argc, argv);
}
