/*
 * bench/zipf.h — Zipf-distributed integers in constant time and memory.
 *
 * P(k) is proportional to k^-s for k = 1..n.  Rejection-inversion
 * (Hörmann and Derflinger, "Rejection-inversion to generate variates from
 * monotone discrete distributions", 1996): draw x from the continuous
 * density h(x) = x^-s over [1/2, n + 1/2] by inverting its integral H,
 * round it to k, and accept k unless the point falls in the part of the
 * area under h that does not belong to k's bar of height h(k).  Most
 * draws are accepted at once (the test k - x <= slack covers them), so a
 * draw costs a few exp/log and, unlike inverting a table of n cumulative
 * probabilities, no cache miss: a benchmark that draws keys measures its
 * keys, not the sampler.
 */
#ifndef POTM_BENCH_ZIPF_H
#define POTM_BENCH_ZIPF_H

#include <math.h>
#include <stdint.h>

typedef struct bench_zipf {
	double s;          /* the exponent, > 0 */
	uint64_t n;
	double h_x1;       /* H(3/2) - h(1): the top of the first bar */
	double h_n;        /* H(n + 1/2) */
	double slack;      /* k - x below this: k is accepted without a test */
} bench_zipf_t;

/* (e^x - 1) / x and log(1 + x) / x, continuous at 0. */
static inline double bench_zipf_expm1_div(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x / 2.0;
}

static inline double bench_zipf_log1p_div(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x / 2.0;
}

static inline double bench_zipf_h(const bench_zipf_t *z, double x)
{
	return exp(-z->s * log(x));
}

/* H(x) = (x^(1-s) - 1) / (1 - s), log x when s = 1: an integral of h. */
static inline double bench_zipf_H(const bench_zipf_t *z, double x)
{
	double lx = log(x);
	return bench_zipf_expm1_div((1.0 - z->s) * lx) * lx;
}

static inline double bench_zipf_H_inv(const bench_zipf_t *z, double y)
{
	double t = y * (1.0 - z->s);
	if (t < -1.0)
		t = -1.0;   /* rounding at the lower end */
	return exp(bench_zipf_log1p_div(t) * y);
}

static inline void bench_zipf_init(bench_zipf_t *z, uint64_t n, double s)
{
	z->s = s;
	z->n = n;
	z->h_x1 = bench_zipf_H(z, 1.5) - 1.0;
	z->h_n = bench_zipf_H(z, (double)n + 0.5);
	z->slack = 2.0 - bench_zipf_H_inv(z, bench_zipf_H(z, 2.5) - bench_zipf_h(z, 2.0));
}

/* A draw in 0..n-1 (0 the most likely), given uniform doubles in [0, 1)
 * from next(state). */
static inline uint64_t bench_zipf_draw(const bench_zipf_t *z, double (*next)(void *),
                                       void *state)
{
	for (;;) {
		double u = z->h_n + next(state) * (z->h_x1 - z->h_n);
		double x = bench_zipf_H_inv(z, u);
		double kd = floor(x + 0.5);
		if (kd < 1.0)
			kd = 1.0;
		else if (kd > (double)z->n)
			kd = (double)z->n;
		if (kd - x <= z->slack ||
		    u >= bench_zipf_H(z, kd + 0.5) - bench_zipf_h(z, kd))
			return (uint64_t)kd - 1;
	}
}

#endif /* POTM_BENCH_ZIPF_H */
