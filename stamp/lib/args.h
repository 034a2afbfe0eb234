/*
 * args.h — command-line values of the applications.  A bad value is an
 * error that names the option and what it allows, and exits with status 2
 * (the usage-error status every benchmark of this project uses); nothing
 * is clamped or defaulted silently.
 */
#ifndef ARGS_H
#define ARGS_H 1

/* The integer argument arg of option -opt, in min..max. */
long args_long(const char *prog, int opt, const char *arg, long min, long max);

/* The real argument arg of option -opt, in [min, max] (min_open: (min, max]);
 * max = ARGS_NO_MAX: no upper bound. */
#define ARGS_NO_MAX 1e300
double args_double(const char *prog, int opt, const char *arg, double min, double max,
                   int min_open);

/* Report an unknown option or a missing value (getopt's optopt). */
void args_bad_option(const char *prog);

/* After getopt: the applications take options only, so an operand left
 * (argv[optind]) is reported and usage() called (which exits). */
void args_no_operands(int argc, char **argv, void (*usage)(const char *prog));

#endif /* ARGS_H */
