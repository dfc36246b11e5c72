/*
 * A compiled anchor for the timing of hpcsched's persistent DP (benchmark only, not part of the package).
 *
 * This is a plain C restatement, written for this repository, of the recurrence that
 * src/hpcsched/checkpoint/persistent/table.py (`PersistentTable`) fills: the table P(s, t)[m],
 * 0 <= s <= t <= L, 0 <= m <= S, over the same sizes in slots and the same chain, with the same
 * choices (-1: ``Fall s`` first, s' > 0: checkpoint x_{s'}, -2: no sequence) and the same tie rule
 * (``Fall`` wins ties; among checkpoints the smallest s' wins). It is not rotor's code. See
 * dp.py's module docstring for what P(s, t)[m] means.
 *
 * Rows are stored pair after pair, s-major: pair(s, t) = s (L + 1) - s (s - 1) / 2 + (t - s), as in
 * dp.py. Cells are filled by decreasing s, then increasing t: P(s, t) reads P(s + 1, t), P(s', t)
 * (s' > s) and P(s, s' - 1) (s' - 1 < t), all filled before it.
 *
 * Infinity is INT64_MAX / 4, as in dp.py: a sum of two infinite entries and a finite time does not
 * overflow and stays >= infinity, so it never beats a best value (which is at most infinity) and the
 * validity tests of the numpy code reduce to the loop bounds below.
 */
#include <stddef.h>
#include <stdint.h>

#define DP_INFINITY (INT64_MAX / 4)

static size_t pair_index(long s, long t, long L)
{
    return (size_t)s * (size_t)(L + 1) - (size_t)s * (size_t)(s - 1) / 2 + (size_t)(t - s);
}

static long max_long(long a, long b) { return a > b ? a : b; }

/* P(L, L): ``B L`` needs delta_L and its transient. */
static void last_stage(long L, long S, const int64_t *x, const int64_t *btmp, const int64_t *bw, int64_t *best,
                       int16_t *how)
{
    for (long m = max_long(0, x[L] + btmp[L]); m <= S; m++) {
        best[m] = bw[L];
        if (how)
            how[m] = -1;
    }
}

/* ``Fall s``, P(s + 1, t) with xbar_{s+1} held, ``B s``. */
static void fall_first(long s, long t, long L, long S, const int64_t *x, const int64_t *xbar, const int64_t *ftmp,
                       const int64_t *btmp, const int64_t *fw, const int64_t *bw, const int64_t *table, int64_t *best,
                       int16_t *how)
{
    long held = t < L ? x[t + 1] : 0;
    long shift = xbar[s + 1];
    long need = max_long(max_long(held + shift + ftmp[s], shift + x[s + 1] + x[s] + btmp[s]), shift);
    int64_t step = fw[s] + bw[s];
    const int64_t *sub = s == t ? NULL : table + pair_index(s + 1, t, L) * (size_t)(S + 1);
    for (long m = max_long(need, 0); m <= S; m++) {
        int64_t value = sub ? sub[m - shift] : 0; /* P(t + 1, t) = 0 */
        if (value < DP_INFINITY) {
            best[m] = value + step;
            if (how)
                how[m] = -1;
        }
    }
}

/* Every checkpoint s' in (s, t]: F s .. F s'-1, P(s', t) with x_{s'} held, then P(s, s' - 1). */
static void checkpoints(long s, long t, long L, long S, const int64_t *x, const int64_t *ftmp,
                        const int64_t *fw_prefix, const int64_t *table, int64_t *best, int16_t *how)
{
    long held = t < L ? x[t + 1] : 0;
    long forward_need = 0; /* running max of the forwards F s .. F s'-1 */
    for (long sp = s + 1; sp <= t; sp++) {
        long k = sp - 1;
        forward_need = max_long(forward_need, (k > s ? x[k] : 0) + x[k + 1] + ftmp[k]);
        long shift = x[sp];
        long low = max_long(forward_need + held, shift);
        int64_t forwards = fw_prefix[sp] - fw_prefix[s];
        const int64_t *right = table + pair_index(sp, t, L) * (size_t)(S + 1);
        const int64_t *left = table + pair_index(s, sp - 1, L) * (size_t)(S + 1);
        if (how) {
            for (long m = low; m <= S; m++) {
                int64_t cost = right[m - shift] + left[m] + forwards;
                if (cost < best[m]) {
                    best[m] = cost;
                    how[m] = (int16_t)sp;
                }
            }
        } else {
            for (long m = low; m <= S; m++) {
                int64_t cost = right[m - shift] + left[m] + forwards;
                best[m] = cost < best[m] ? cost : best[m];
            }
        }
    }
}

/*
 * Fill the whole table (and the choices when `choice` is not NULL; else values only).
 *
 * x, xbar, btmp: L + 1 entries; ftmp, fw: L entries (at least); bw: L + 1; fw_prefix: L + 1
 * (fw_prefix[i] = fw[0] + ... + fw[i - 1]). All sizes in slots, S >= 0. table: one row of S + 1
 * int64 per stage pair, (L + 1)(L + 2)/2 rows; choice: the same shape in int16 (L < 32767), or NULL.
 * Returns P(0, L)[S] (DP_INFINITY: no persistent sequence).
 */
int64_t dp_anchor_fill(long L, long S, const int64_t *x, const int64_t *xbar, const int64_t *ftmp,
                       const int64_t *btmp, const int64_t *fw, const int64_t *bw, const int64_t *fw_prefix,
                       int64_t *table, int16_t *choice)
{
    for (long s = L; s >= 0; s--) {
        for (long t = s; t <= L; t++) {
            size_t row = pair_index(s, t, L) * (size_t)(S + 1);
            int64_t *best = table + row;
            int16_t *how = choice ? choice + row : NULL;
            for (long m = 0; m <= S; m++) {
                best[m] = DP_INFINITY;
                if (how)
                    how[m] = -2;
            }
            if (s == L) {
                last_stage(L, S, x, btmp, bw, best, how);
                continue;
            }
            fall_first(s, t, L, S, x, xbar, ftmp, btmp, fw, bw, table, best, how);
            checkpoints(s, t, L, S, x, ftmp, fw_prefix, table, best, how);
        }
    }
    return table[pair_index(0, L, L) * (size_t)(S + 1) + (size_t)S];
}
