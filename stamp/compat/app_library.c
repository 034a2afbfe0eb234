/*
 * app_library.c — a STAMP application as a library for the Python package.
 *
 * The build compiles an application's sources once per backend, with its
 * main() renamed to potm_app_main (-Dmain=potm_app_main); those objects
 * and this file make libpotm-bench-<backend>-<app>.so, those objects and
 * bench/app_main.c the executable <app>-<backend>.  The package's worker
 * process dlopen()s the library and calls potm_bench_main(argc, argv)
 * with argv[0] = the application's name, exactly as it calls the
 * microbenchmark library.
 *
 * One application per process: the applications keep their state in
 * globals (as STAMP does), and each worker runs one benchmark and exits.
 */
#include <stdio.h>
#include <string.h>

#include "potm_bench.h"

#ifndef POTM_APP_NAME
#error "POTM_APP_NAME must name the application (the build defines it)"
#endif

int potm_app_main(int argc, char **argv);

int potm_bench_main(int argc, char **argv)
{
	if (argc < 1 || argv == NULL || argv[0] == NULL || strcmp(argv[0], POTM_APP_NAME) != 0) {
		fprintf(stderr, "potm_bench_main: this library runs '%s' only (argv[0] is '%s')\n",
		        POTM_APP_NAME, argc >= 1 && argv != NULL && argv[0] != NULL ? argv[0] : "");
		return 2;
	}
	return potm_app_main(argc, argv);
}
