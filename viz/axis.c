/*
 * axis.c - ticks, tick labels and units of the figures' axes and colour
 * bars (no drawing here: see viz/internal.h).
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "viz/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tc_vunit_of(int metric, double hi, bool log, struct tc_vunit *u)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

	u->scale = 1;
	if (metric == TC_HM_BYTES) {
		size_t k = 0;
		if (log) {
			snprintf(u->label, sizeof(u->label), "bytes (log scale)");
			return;
		}
		while (k + 1 < TC_ARRAY_SIZE(bin) && hi / u->scale >= 1024) {
			u->scale *= 1024;
			k++;
		}
		if (k)
			snprintf(u->label, sizeof(u->label), "bytes (%s)", bin[k]);
		else
			snprintf(u->label, sizeof(u->label), "bytes");
	} else if (metric == TC_HM_TIME) {
		/* the values are microseconds */
		if (log) {
			u->scale = 1e6;
			snprintf(u->label, sizeof(u->label), "time (s, log scale)");
		} else if (hi >= 1e6) {
			u->scale = 1e6;
			snprintf(u->label, sizeof(u->label), "time (s)");
		} else if (hi >= 1e3) {
			u->scale = 1e3;
			snprintf(u->label, sizeof(u->label), "time (ms)");
		} else {
			snprintf(u->label, sizeof(u->label), "time (\u00b5s)");
		}
	} else {
		if (log) {
			snprintf(u->label, sizeof(u->label), "messages (log scale)");
		} else if (hi >= 1e8) {
			u->scale = 1e6;
			snprintf(u->label, sizeof(u->label), "messages (millions)");
		} else if (hi >= 1e5) {
			u->scale = 1e3;
			snprintf(u->label, sizeof(u->label), "messages (thousands)");
		} else {
			snprintf(u->label, sizeof(u->label), "messages");
		}
	}
}

size_t tc_ticks_linear(double lo, double hi, int max, bool whole, double *t)
{
	double range = hi - lo, raw, mag, norm, step, v;
	size_t n = 0;

	if (max < 1)
		max = 1;
	if (max > TC_TICKS_MAX - 1)
		max = TC_TICKS_MAX - 1;
	if (!(range > 0)) {
		t[0] = lo;
		return 1;
	}
	raw = range / max;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
	if (whole && step < 1)
		step = 1;
	for (double k = ceil(lo / step - 1e-9); n < TC_TICKS_MAX; k++) {
		v = k * step;
		if (v > hi + step * 1e-9)
			break;
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

size_t tc_ticks_log(double lo, double hi, int max, double *t)
{
	static const int every[] = { 1, 2, 5, 10, 20, 50, 100 };
	int e0 = (int)floor(log10(lo) + 1e-9), e1 = (int)ceil(log10(hi) - 1e-9);
	int ev = every[TC_ARRAY_SIZE(every) - 1];
	size_t n = 0;

	if (max < 1)
		max = 1;
	for (size_t i = 0; i < TC_ARRAY_SIZE(every); i++) {
		int k = every[i], cnt = 0;
		for (int e = e0; e <= e1; e++)
			cnt += ((e % k) + k) % k == 0;
		if (cnt <= max) {
			ev = k;
			break;
		}
	}
	for (int e = e0; e <= e1 && n < TC_TICKS_MAX; e++)
		if (((e % ev) + ev) % ev == 0)
			t[n++] = pow(10, e);
	return n;
}

static const char *const super_digit[10] = {
	"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
	"\u2075", "\u2076", "\u2077", "\u2078", "\u2079",
};

void tc_tick_label(double v, bool log, char *buf, size_t len)
{
	char digits[16];
	size_t at;

	if (!log || !(v > 0)) {
		/* a minus sign, not a hyphen */
		snprintf(buf, len, "%s%.6g", v < 0 ? "\u2212" : "", v == 0 ? 0.0 : fabs(v));
		return;
	}
	{
		int e = (int)lround(log10(v));
		if (e >= -2 && e <= 2) {
			snprintf(buf, len, "%g", pow(10, e));
			return;
		}
		snprintf(digits, sizeof(digits), "%d", e < 0 ? -e : e);
		at = (size_t)snprintf(buf, len, "10%s", e < 0 ? "\u207b" : "");
		for (const char *d = digits; *d && at < len; d++)
			at += (size_t)snprintf(buf + at, len - at, "%s", super_digit[*d - '0']);
	}
}

int64_t tc_rank_step(int64_t n, double len, double w, double gap)
{
	int64_t p = 1;

	if (n <= 1 || !(len > 0))
		return n > 1 ? n : 1;
	for (;;) {
		static const int mult[] = { 1, 2, 5 };
		for (size_t i = 0; i < TC_ARRAY_SIZE(mult); i++) {
			int64_t s = mult[i] * p;
			if (len * (double)s / (double)n >= w + gap || s >= n)
				return s;
		}
		p *= 10;
	}
}

void tc_bytes_label(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t k = 0;
	double v = (double)b;

	while (k + 1 < TC_ARRAY_SIZE(unit) && v >= 1024) {
		v /= 1024;
		k++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f %s", v, unit[k]);
	else
		snprintf(buf, len, "%.3g %s", v, unit[k]);
}

int tc_fig_length(const char *s, double *pt, double *px)
{
	static const struct {
		const char *unit;
		double pt;
	} units[] = { { "in", 72.0 }, { "cm", 72.0 / 2.54 }, { "mm", 72.0 / 25.4 },
		      { "pt", 1.0 }, { "px", 0 } };
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v > 0) || !isfinite(v))
		return -1;
	for (size_t i = 0; i < TC_ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (units[i].pt > 0) {
			*pt = v * units[i].pt;
			*px = 0;
		} else {
			*pt = 0;
			*px = v;
		}
		return 0;
	}
	return -1;
}
