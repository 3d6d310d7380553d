/* The int8 batch kernel of docqa's exact compact search (wrapped by csrc/_compact.pyx; the
 * bound it applies is derived in src/docqa/search/compact.py, "Batches").
 *
 * A block of rows (int8 codes c) is multiplied by a tile of queries quantised to 6 bits
 * (p in [-31, 31], stored as u = p + 31 in [0, 62]) with AVX2 vpmaddubsw (u8 x s8, adjacent
 * products added in int16: |c0 u0 + c1 u1| <= 2 * 128 * 62 = 15872, so it never saturates,
 * and two such results still fit an int16), two of them added with vpaddw, then vpmaddwd
 * by ones (to int32) and vpaddd: 64 multiply-adds per vpmaddwd, about 3.5 times the rate of
 * float32 FMA in a register-only loop on the AVX2 CPU measured (about 2x in the tile). Every int32 partial sum is at most 128 * 62 * d <
 * 2**31 (d <= 270600, checked by the caller), so D = sum c u - 31 sum c = c.p is exact.
 *
 * Where the CPU has AVX-512 VNNI (and the caller asks for it: dq8_args.isa), the tile runs
 * vpdpbusd instead (u8 x s8, four adjacent products added straight into the int32 lane, no
 * int16 step): the same integers c.u added in another order. Integer addition is exact while
 * no partial sum overflows, and the bound above (every partial sum at most 128 * 62 * d <
 * 2**31) holds for any order and grouping, so both tiles give the same D bit for bit, and the
 * epilogue (unchanged) keeps the same rows.
 *
 * Registers hold a 16-row x 4-query tile of sums (rows in lanes, 4 codes a lane a step; the
 * rows are packed once per panel of 16 and reused by every query). The epilogue keeps a row
 * (emits (query, position)) unless the float32 y = fl(fl(D) * a) (a the row's scale) is
 * below the query's threshold tau for the panel; the caller proves that a skipped row
 * scores below the query's k-th selected score. The arithmetic of the epilogue and of tau
 * runs with MXCSR set to round-to-nearest without flush-to-zero (restored on return) and is
 * compiled without FMA contraction, so it is the arithmetic that proof assumes.
 */
#ifndef DOCQA_COMPACT_GEMM_H
#define DOCQA_COMPACT_GEMM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DQ8_X86 1
#else
#define DQ8_X86 0
#endif

#define DQ8_MR 16 /* rows per panel (two vectors of 8 lanes) */
#define DQ8_NR 4  /* queries per register tile */
#define DQ8_P 31  /* queries are integers in [-DQ8_P, DQ8_P], stored as p + DQ8_P */

/* Everything one call needs; arrays are C-contiguous, lengths as named. */
typedef struct {
    const int8_t *codes;      /* (N, d) */
    int64_t d;
    const int64_t *ids;       /* positions -> row ids, or NULL for the identity */
    const float *scale;       /* (N,) a */
    const float *radius;      /* (N,) w */
    const float *code_norm;   /* (N,) v */
    const uint8_t *qpack;     /* (nq_pad, dpad) u = p + DQ8_P, zero padded */
    int64_t nq;               /* real queries (nq_pad = nq rounded up to DQ8_NR) */
    int64_t dpad;             /* d rounded up to 8 */
    const double *terms;      /* (nq, 5): h, ||q||, ||r||, t, floor (-inf: none yet) */
    int8_t *panel;            /* scratch: DQ8_MR * dpad */
    float *tau;               /* scratch: nq */
    int isa;                  /* the tile: DQ8_AVX2 or DQ8_VNNI (at most dq8_supported()) */
} dq8_args;

#define DQ8_AVX2 1
#define DQ8_VNNI 2

/* The best tile this CPU runs: DQ8_VNNI (AVX-512 VL + VNNI), DQ8_AVX2, or 0 (none). */
static int dq8_supported(void) {
#if DQ8_X86 && defined(__GNUC__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return 0;
    if (__builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni"))
        return DQ8_VNNI;
    return DQ8_AVX2;
#else
    return 0;
#endif
}

#if DQ8_X86 && defined(__GNUC__)

/* The largest float32 not above x. */
static float dq8_down32(double x) {
    float f = (float)x;
    if ((double)f > x) f = nextafterf(f, -INFINITY);
    return f;
}

/* Pack positions pos..pos+count-1 (count <= 16) into the panel layout: for every step of 4
 * codes, 8 rows x 4 codes for lanes 0-7, then 8 rows x 4 for lanes 8-15; zero padded.
 * sums / scales get the rows' code sums and scales (0 for padding); *maxw / *maxv the
 * largest radius and code_norm of the panel. */
static void dq8_pack(const dq8_args *g, int64_t pos, int64_t count, int32_t *sums,
                     float *scales, double *maxw, double *maxv) {
    int64_t d = g->d, dpad = g->dpad;
    memset(g->panel, 0, (size_t)(DQ8_MR * dpad));
    *maxw = 0.0;
    *maxv = 0.0;
    for (int64_t i = 0; i < DQ8_MR; i++) {
        sums[i] = 0;
        scales[i] = 0.0f;
        if (i >= count) continue;
        int64_t r = g->ids ? g->ids[pos + i] : pos + i;
        const int8_t *row = g->codes + r * d;
        int8_t *lane = g->panel + (i / 8) * 32 + (i % 8) * 4;
        int32_t s = 0;
        for (int64_t t = 0; t < d; t++) {
            lane[(t / 4) * 64 + (t % 4)] = row[t];
            s += row[t];
        }
        sums[i] = s;
        scales[i] = g->scale[r];
        if ((double)g->radius[r] > *maxw) *maxw = (double)g->radius[r];
        if ((double)g->code_norm[r] > *maxv) *maxv = (double)g->code_norm[r];
    }
}

/* The 16 x 4 sums c.u of one panel and queries qpack[j0 .. j0 + 3] into out[query][row].
 * Two steps of 4 codes at a time: their vpmaddubsw results are added in int16 (each is at
 * most 2 * 128 * 62 in magnitude, so the sum fits) before one vpmaddwd by ones. */
__attribute__((target("avx2"))) static void dq8_tile(const int8_t *panel, const uint8_t *q,
                                                    int64_t dpad, int32_t out[DQ8_NR][DQ8_MR]) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00;
    __m256i c21 = c00, c30 = c00, c31 = c00;
    for (int64_t t = 0; t < dpad / 4; t += 2) {
        const int8_t *a = panel + t * 64;
        __m256i a0 = _mm256_loadu_si256((const __m256i *)a);
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(a + 32));
        __m256i a2 = _mm256_loadu_si256((const __m256i *)(a + 64));
        __m256i a3 = _mm256_loadu_si256((const __m256i *)(a + 96));
        int32_t w0, w1;
#define DQ8_PAIR(b0, b1, x, y) \
    _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(b0, x), _mm256_maddubs_epi16(b1, y)), ones)
#define DQ8_STEP(j)                                                  \
    memcpy(&w0, q + (j) * dpad + t * 4, 4);                          \
    memcpy(&w1, q + (j) * dpad + t * 4 + 4, 4);                      \
    {                                                                \
        __m256i b0 = _mm256_set1_epi32(w0), b1 = _mm256_set1_epi32(w1); \
        c##j##0 = _mm256_add_epi32(c##j##0, DQ8_PAIR(b0, b1, a0, a2)); \
        c##j##1 = _mm256_add_epi32(c##j##1, DQ8_PAIR(b0, b1, a1, a3)); \
    }
        DQ8_STEP(0) DQ8_STEP(1) DQ8_STEP(2) DQ8_STEP(3)
#undef DQ8_STEP
#undef DQ8_PAIR
    }
#define DQ8_OUT(j)                                                    \
    _mm256_storeu_si256((__m256i *)(out[j]), c##j##0);                \
    _mm256_storeu_si256((__m256i *)(out[j] + 8), c##j##1);
    DQ8_OUT(0) DQ8_OUT(1) DQ8_OUT(2) DQ8_OUT(3)
#undef DQ8_OUT
}

/* dq8_tile with vpdpbusd on 256-bit registers (AVX-512 VL + VNNI): the same layout and the
 * same int32 sums, each step of 4 codes added into the lane directly. */
__attribute__((target("avx2,avx512f,avx512vl,avx512vnni"))) static void dq8_tile_vnni(
    const int8_t *panel, const uint8_t *q, int64_t dpad, int32_t out[DQ8_NR][DQ8_MR]) {
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00;
    __m256i c21 = c00, c30 = c00, c31 = c00;
    for (int64_t t = 0; t < dpad / 4; t += 2) {
        const int8_t *a = panel + t * 64;
        __m256i a0 = _mm256_loadu_si256((const __m256i *)a);
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(a + 32));
        __m256i a2 = _mm256_loadu_si256((const __m256i *)(a + 64));
        __m256i a3 = _mm256_loadu_si256((const __m256i *)(a + 96));
        int32_t w0, w1;
#define DQ8_STEP(j)                                                                   \
    memcpy(&w0, q + (j) * dpad + t * 4, 4);                                           \
    memcpy(&w1, q + (j) * dpad + t * 4 + 4, 4);                                       \
    {                                                                                 \
        __m256i b0 = _mm256_set1_epi32(w0), b1 = _mm256_set1_epi32(w1);               \
        c##j##0 = _mm256_dpbusd_epi32(_mm256_dpbusd_epi32(c##j##0, b0, a0), b1, a2); \
        c##j##1 = _mm256_dpbusd_epi32(_mm256_dpbusd_epi32(c##j##1, b0, a1), b1, a3); \
    }
        DQ8_STEP(0) DQ8_STEP(1) DQ8_STEP(2) DQ8_STEP(3)
#undef DQ8_STEP
    }
#define DQ8_OUT(j)                                                    \
    _mm256_storeu_si256((__m256i *)(out[j]), c##j##0);                \
    _mm256_storeu_si256((__m256i *)(out[j] + 8), c##j##1);
    DQ8_OUT(0) DQ8_OUT(1) DQ8_OUT(2) DQ8_OUT(3)
#undef DQ8_OUT
}

/* The tile of g->isa. */
static void dq8_run_tile(const dq8_args *g, int64_t j0, int32_t out[DQ8_NR][DQ8_MR]) {
    if (g->isa == DQ8_VNNI)
        dq8_tile_vnni(g->panel, g->qpack + j0 * g->dpad, g->dpad, out);
    else
        dq8_tile(g->panel, g->qpack + j0 * g->dpad, g->dpad, out);
}

/* A lower bound, in the units of fl(fl(D) * a), below which a row cannot reach the floor
 * (see "Batches" in docqa.search.compact); -inf when the query has no floor yet. */
static float dq8_threshold(const double *term, double maxw, double maxv) {
    double h = term[0], floor = term[4];
    if (!(floor > -INFINITY)) return -INFINITY;
    double hm = (maxw * term[1] + maxv * term[2] + term[3]) * (1.0 + 0x1p-50);
    double t = (floor - hm) / h;
    t -= (fabs(floor) + hm) / h * 0x1p-48 + fabs(t) * 0x1p-20 + 0x1p-140;
    return dq8_down32(t);
}

/* Positions of the rows in lanes `mask` of half `half` of the panel at `pos` kept for query
 * qi, appended to out_q / out_pos. */
static int64_t dq8_emit(int mask, int64_t pos, int half, int64_t stop, int32_t qi,
                        int32_t *out_q, int32_t *out_pos, int64_t n) {
    while (mask) {
        int lane = __builtin_ctz((unsigned)mask);
        mask &= mask - 1;
        int64_t p = pos + half * 8 + lane;
        if (p < stop) {
            out_q[n] = qi;
            out_pos[n] = (int32_t)p;
            n++;
        }
    }
    return n;
}

/* The epilogue of one tile: keep the rows whose y is not below the query's tau. */
__attribute__((target("avx2"))) static int64_t dq8_keep(
    const dq8_args *g, int32_t tile[DQ8_NR][DQ8_MR], int64_t j0, const int32_t *sums,
    const float *scales, int64_t pos, int64_t stop, int32_t *out_q, int32_t *out_pos,
    int64_t n) {
    __m256i bias[2];
    __m256 scale[2];
    for (int h = 0; h < 2; h++) {
        bias[h] = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(sums + 8 * h)),
                                     _mm256_set1_epi32(DQ8_P));
        scale[h] = _mm256_loadu_ps(scales + 8 * h);
    }
    for (int64_t j = 0; j < DQ8_NR && j0 + j < g->nq; j++) {
        __m256 tau = _mm256_set1_ps(g->tau[j0 + j]);
        for (int h = 0; h < 2; h++) {
            __m256i dots = _mm256_sub_epi32(
                _mm256_loadu_si256((const __m256i *)(tile[j] + 8 * h)), bias[h]);
            __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(dots), scale[h]);
            int mask = _mm256_movemask_ps(_mm256_cmp_ps(y, tau, _CMP_NLT_UQ));
            n = dq8_emit(mask, pos, h, stop, (int32_t)(j0 + j), out_q, out_pos, n);
        }
    }
    return n;
}

/* Candidates of positions lo..hi-1 for every query: appends (query, position) pairs to
 * out_q / out_pos (capacity cap) and returns the position reached: hi, or the first panel
 * it had no room for (room for a panel is 16 * nq pairs). *count gets the pairs written. */
static int64_t dq8_candidates(const dq8_args *g, int64_t lo, int64_t hi, int32_t *out_q,
                              int32_t *out_pos, int64_t cap, int64_t *count) {
    unsigned int csr = _mm_getcsr();
    _mm_setcsr(0x1F80); /* round to nearest, no flush-to-zero or denormals-are-zero */
    int32_t tile[DQ8_NR][DQ8_MR] __attribute__((aligned(32)));
    int32_t sums[DQ8_MR] __attribute__((aligned(32)));
    float scales[DQ8_MR] __attribute__((aligned(32)));
    int64_t n = 0, pos = lo;
    for (; pos < hi; pos += DQ8_MR) {
        if (n + DQ8_MR * g->nq > cap) break;
        int64_t rows = hi - pos < DQ8_MR ? hi - pos : DQ8_MR;
        double maxw, maxv;
        dq8_pack(g, pos, rows, sums, scales, &maxw, &maxv);
        for (int64_t j = 0; j < g->nq; j++) g->tau[j] = dq8_threshold(g->terms + 5 * j, maxw, maxv);
        for (int64_t j0 = 0; j0 < g->nq; j0 += DQ8_NR) {
            dq8_run_tile(g, j0, tile);
            n = dq8_keep(g, tile, j0, sums, scales, pos, pos + rows, out_q, out_pos, n);
        }
    }
    _mm_setcsr(csr);
    *count = n;
    return pos < hi ? pos : hi;
}

/* The twin-test entry: every exact c.p (p = u - DQ8_P) of positions lo..hi-1 into dots
 * (hi - lo, nq) through the same packing and tile. */
static void dq8_dots(const dq8_args *g, int64_t lo, int64_t hi, int32_t *dots) {
    int32_t tile[DQ8_NR][DQ8_MR] __attribute__((aligned(32)));
    int32_t sums[DQ8_MR];
    float scales[DQ8_MR];
    for (int64_t pos = lo; pos < hi; pos += DQ8_MR) {
        int64_t rows = hi - pos < DQ8_MR ? hi - pos : DQ8_MR;
        double maxw, maxv;
        dq8_pack(g, pos, rows, sums, scales, &maxw, &maxv);
        for (int64_t j0 = 0; j0 < g->nq; j0 += DQ8_NR) {
            dq8_run_tile(g, j0, tile);
            for (int64_t j = 0; j < DQ8_NR && j0 + j < g->nq; j++)
                for (int64_t i = 0; i < rows; i++)
                    dots[(pos - lo + i) * g->nq + j0 + j] = tile[j][i] - DQ8_P * sums[i];
        }
    }
}

#else /* no AVX2 kernel on this platform: dq8_supported() is 0 and these are never called */

static int64_t dq8_candidates(const dq8_args *g, int64_t lo, int64_t hi, int32_t *out_q,
                              int32_t *out_pos, int64_t cap, int64_t *count) {
    (void)g; (void)hi; (void)out_q; (void)out_pos; (void)cap;
    *count = 0;
    return lo;
}

static void dq8_dots(const dq8_args *g, int64_t lo, int64_t hi, int32_t *dots) {
    (void)g; (void)lo; (void)hi; (void)dots;
}

#endif
#endif
