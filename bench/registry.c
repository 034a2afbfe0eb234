/*
 * bench/registry.c — potm_bench_main: run a benchmark by name.
 *
 * The benchmarks linked into this program or library announce themselves
 * with BENCH_REGISTER (harness.h), which puts a pointer to their entry in
 * the section potm_bench_registry; the linker brackets that section with
 * __start_/__stop_ symbols, so the table is whatever was linked in.
 */
#include "harness.h"
#include "potm_bench.h"

#include <stdio.h>
#include <string.h>

/* Weak: a link with no benchmark at all still resolves them (to NULL). */
extern const bench_entry_t *const __start_potm_bench_registry[] __attribute__((weak));
extern const bench_entry_t *const __stop_potm_bench_registry[] __attribute__((weak));

static void bench_list_known(FILE *f)
{
	for (const bench_entry_t *const *e = __start_potm_bench_registry;
	     e < __stop_potm_bench_registry; e++)
		fprintf(f, "  %-10s %s\n", (*e)->name, (*e)->summary);
}

int potm_bench_main(int argc, char **argv)
{
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		fprintf(stderr, "potm_bench_main: argv[0] must name the benchmark; known:\n");
		bench_list_known(stderr);
		return BENCH_EXIT_USAGE;
	}
	for (const bench_entry_t *const *e = __start_potm_bench_registry;
	     e < __stop_potm_bench_registry; e++)
		if (strcmp((*e)->name, argv[0]) == 0)
			return (*e)->fn(argc, argv);
	fprintf(stderr, "potm_bench_main: unknown benchmark '%s'; known:\n", argv[0]);
	bench_list_known(stderr);
	return BENCH_EXIT_USAGE;
}
