/*
 * bench/lib_check.c — load libpotm-bench-<backend>.so the way the Python
 * package does (dlopen, look up potm_bench_main) and run one benchmark:
 *
 *     bench-lib-check <library> <benchmark> [options...]
 *
 * Exits with the benchmark's status, or 3 if the library cannot be used.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s <libpotm-bench-*.so> <benchmark> [options...]\n",
		        argv[0]);
		return 3;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		fprintf(stderr, "%s: %s\n", argv[0], dlerror());
		return 3;
	}
	int (*bench_main)(int, char **);
	*(void **)&bench_main = dlsym(lib, "potm_bench_main");
	if (bench_main == NULL) {
		fprintf(stderr, "%s: no potm_bench_main in %s: %s\n", argv[0], argv[1],
		        dlerror());
		return 3;
	}
	/* No dlclose: like the Python worker, one run and the process ends.
	 * (Unloading would also unmap liburcu under its call_rcu thread,
	 * which outlives tm_shutdown.) */
	return bench_main(argc - 2, argv + 2);
}
