# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
# (Shapes are checked by the Python shell, docqa.search.compact_native.)
"""Private native int8 batch kernel of docqa's exact compact search (``_compact_gemm.h``:
AVX2, or AVX-512 VNNI where the CPU has it).

Wrapped by ``docqa.search.compact_native``; both calls run with the GIL released.
"""

from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t

cdef extern from "_compact_gemm.h" nogil:
    ctypedef struct dq8_args:
        const int8_t *codes
        int64_t d
        const int64_t *ids
        const float *scale
        const float *radius
        const float *code_norm
        const uint8_t *qpack
        int64_t nq
        int64_t dpad
        const double *terms
        int8_t *panel
        float *tau
        int isa
    enum: DQ8_MR
    enum: DQ8_NR
    int dq8_supported()
    int64_t dq8_candidates(const dq8_args *g, int64_t lo, int64_t hi, int32_t *out_q,
                           int32_t *out_pos, int64_t cap, int64_t *count)
    void dq8_dots(const dq8_args *g, int64_t lo, int64_t hi, int32_t *dots)


def supported():
    """Whether this CPU runs the kernel (AVX2 at least)."""
    return dq8_supported() > 0


def best_isa():
    """The best tile this CPU runs: 2 (AVX-512 VNNI), 1 (AVX2) or 0 (none)."""
    return dq8_supported()


cdef dq8_args _args(const int8_t[:, ::1] codes, const int64_t[::1] ids, bint use_ids,
                    const float[::1] scale, const float[::1] radius,
                    const float[::1] code_norm, const uint8_t[:, ::1] qpack,
                    const double[:, ::1] terms, int8_t[::1] panel, float[::1] tau,
                    int64_t lo, int64_t hi, int isa):
    if not 1 <= isa <= dq8_supported():
        raise ValueError(f"isa {isa} is not run by this CPU (best: {dq8_supported()})")
    cdef Py_ssize_t n = codes.shape[0], nq = terms.shape[0], dpad = qpack.shape[1]
    if scale.shape[0] != n or radius.shape[0] != n or code_norm.shape[0] != n:
        raise ValueError("scale, radius and code_norm need one value per row of codes")
    if terms.shape[1] != 5 or qpack.shape[0] < nq or qpack.shape[0] % DQ8_NR:
        raise ValueError("qpack needs the queries of terms (n, 5), padded to the tile")
    if dpad % 8 or dpad < codes.shape[1] or panel.shape[0] < DQ8_MR * dpad:
        raise ValueError("qpack columns must pad d to 8; panel needs 16 rows of them")
    if tau.shape[0] < nq:
        raise ValueError("tau needs one value per query")
    cdef Py_ssize_t positions = ids.shape[0] if use_ids else n
    if not 0 <= lo <= hi <= positions:
        raise ValueError(f"positions {lo}..{hi} outside 0..{positions}")
    cdef dq8_args g
    g.codes = &codes[0, 0] if codes.shape[0] > 0 else NULL
    g.d = codes.shape[1]
    g.ids = &ids[0] if use_ids and ids.shape[0] > 0 else NULL
    g.scale = &scale[0] if scale.shape[0] > 0 else NULL
    g.radius = &radius[0] if radius.shape[0] > 0 else NULL
    g.code_norm = &code_norm[0] if code_norm.shape[0] > 0 else NULL
    g.qpack = &qpack[0, 0]
    g.nq = nq
    g.dpad = dpad
    g.terms = &terms[0, 0]
    g.panel = &panel[0]
    g.tau = &tau[0]
    g.isa = isa
    return g


def candidates(const int8_t[:, ::1] codes, const int64_t[::1] ids, bint use_ids,
               const float[::1] scale, const float[::1] radius, const float[::1] code_norm,
               const uint8_t[:, ::1] qpack, const double[:, ::1] terms,
               int64_t lo, int64_t hi, int32_t[::1] out_q, int32_t[::1] out_pos,
               int8_t[::1] panel, float[::1] tau, int isa):
    """``(position reached, pairs written)``; see ``dq8_candidates`` (``isa``: the tile,
    1 AVX2 or 2 AVX-512 VNNI, at most ``best_isa()``)."""
    cdef dq8_args g = _args(codes, ids, use_ids, scale, radius, code_norm, qpack, terms,
                            panel, tau, lo, hi, isa)
    cdef int64_t count = 0, reached
    if out_pos.shape[0] != out_q.shape[0] or out_q.shape[0] < DQ8_MR * qpack.shape[0]:
        raise ValueError("out_q and out_pos need room for a panel's pairs (16 per query)")
    with nogil:
        reached = dq8_candidates(&g, lo, hi, &out_q[0], &out_pos[0], out_q.shape[0], &count)
    return reached, count


def dots(const int8_t[:, ::1] codes, const int64_t[::1] ids, bint use_ids,
         const float[::1] scale, const float[::1] radius, const float[::1] code_norm,
         const uint8_t[:, ::1] qpack, const double[:, ::1] terms, int64_t lo, int64_t hi,
         int32_t[:, ::1] out, int8_t[::1] panel, float[::1] tau, int isa):
    """Every exact ``c.p`` of positions ``lo..hi-1`` into ``out (hi - lo, nq)``."""
    cdef dq8_args g = _args(codes, ids, use_ids, scale, radius, code_norm, qpack, terms,
                            panel, tau, lo, hi, isa)
    if out.shape[0] != hi - lo or out.shape[1] != terms.shape[0]:
        raise ValueError("out needs one row per position and one column per query")
    with nogil:
        dq8_dots(&g, lo, hi, &out[0, 0])
