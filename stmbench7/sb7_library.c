/*
 * sb7_library.c — STMBench7 as a library for the Python package.
 *
 * libpotm-bench-<backend>-stmbench7.so is built from the objects of
 * stmbench7-<backend>, whose main() is renamed to potm_app_main
 * (-Dmain=potm_app_main; the executable adds bench/app_main.c), and this
 * file.  The package's worker
 * process dlopen()s it and calls potm_bench_main(argc, argv) with
 * argv[0] = "stmbench7" and the program's options after it, as it calls
 * the microbenchmark library.  One run per process (the worker exits).
 */
#include <stdio.h>
#include <string.h>

#include "potm_bench.h"

int potm_app_main(int argc, char **argv);

int potm_bench_main(int argc, char **argv)
{
	if (argc < 1 || argv == NULL || argv[0] == NULL || strcmp(argv[0], "stmbench7") != 0) {
		fprintf(stderr, "potm_bench_main: this library runs 'stmbench7' only\n");
		return 2;
	}
	return potm_app_main(argc, argv);
}
