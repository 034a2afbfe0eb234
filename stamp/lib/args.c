/*
 * args.c — command-line values of the applications (see args.h).
 */
#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long args_long(const char *prog, int opt, const char *arg, long min, long max)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "%s: bad value '%s' for -%c (allowed %ld..%ld)\n", prog, arg,
		        opt, min, max);
		exit(2);
	}
	return v;
}

double args_double(const char *prog, int opt, const char *arg, double min, double max,
                   int min_open)
{
	char *end;
	double v = strtod(arg, &end);
	int low_ok = min_open ? v > min : v >= min;
	if (*arg == '\0' || *end != '\0' || !low_ok || !(v <= max)) {
		if (max >= ARGS_NO_MAX)
			fprintf(stderr, "%s: bad value '%s' for -%c (a number %s %g)\n", prog,
			        arg, opt, min_open ? ">" : ">=", min);
		else
			fprintf(stderr, "%s: bad value '%s' for -%c (a number %s %g and <= %g)\n",
			        prog, arg, opt, min_open ? ">" : ">=", min, max);
		exit(2);
	}
	return v;
}

void args_bad_option(const char *prog)
{
	fprintf(stderr, "%s: unknown option or missing value: -%c\n", prog, optopt);
}

void args_no_operands(int argc, char **argv, void (*usage)(const char *prog))
{
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		usage(argv[0]);
	}
}
