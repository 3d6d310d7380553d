# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
# (Shapes are checked by the Python shell, docqa.search.compact_native.)
"""Private native int8 batch kernel of docqa's exact compact search (``_compact_gemm.h``).

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
    int dq8_supported()
    int64_t dq8_candidates(const dq8_args *g, int64_t lo, int64_t hi, int32_t *out_q,
                           int32_t *out_pos, int64_t cap, int64_t *count)
    void dq8_dots(const dq8_args *g, int64_t lo, int64_t hi, int32_t *dots)


def supported():
    """Whether this CPU runs the AVX2 kernel."""
    return dq8_supported() == 1


cdef dq8_args _args(const int8_t[:, ::1] codes, const int64_t[::1] ids, bint use_ids,
                    const float[::1] scale, const float[::1] radius,
                    const float[::1] code_norm, const uint8_t[:, ::1] qpack, int64_t nq,
                    const double[:, ::1] terms, int8_t[::1] panel, float[::1] tau):
    cdef dq8_args g
    g.codes = &codes[0, 0] if codes.shape[0] > 0 else NULL
    g.d = codes.shape[1]
    g.ids = &ids[0] if use_ids and ids.shape[0] > 0 else NULL
    g.scale = &scale[0] if scale.shape[0] > 0 else NULL
    g.radius = &radius[0] if radius.shape[0] > 0 else NULL
    g.code_norm = &code_norm[0] if code_norm.shape[0] > 0 else NULL
    g.qpack = &qpack[0, 0]
    g.nq = nq
    g.dpad = qpack.shape[1]
    g.terms = &terms[0, 0]
    g.panel = &panel[0]
    g.tau = &tau[0]
    return g


def candidates(const int8_t[:, ::1] codes, const int64_t[::1] ids, bint use_ids,
               const float[::1] scale, const float[::1] radius, const float[::1] code_norm,
               const uint8_t[:, ::1] qpack, const double[:, ::1] terms,
               int64_t lo, int64_t hi, int32_t[::1] out_q, int32_t[::1] out_pos,
               int8_t[::1] panel, float[::1] tau):
    """``(position reached, pairs written)``; see ``dq8_candidates``."""
    cdef dq8_args g = _args(codes, ids, use_ids, scale, radius, code_norm, qpack,
                            terms.shape[0], terms, panel, tau)
    cdef int64_t count = 0, reached
    with nogil:
        reached = dq8_candidates(&g, lo, hi, &out_q[0], &out_pos[0], out_q.shape[0], &count)
    return reached, count


def dots(const int8_t[:, ::1] codes, const int64_t[::1] ids, bint use_ids,
         const float[::1] scale, const float[::1] radius, const float[::1] code_norm,
         const uint8_t[:, ::1] qpack, const double[:, ::1] terms, int64_t lo, int64_t hi,
         int32_t[:, ::1] out, int8_t[::1] panel, float[::1] tau):
    """Every exact ``c.p`` of positions ``lo..hi-1`` into ``out (hi - lo, nq)``."""
    cdef dq8_args g = _args(codes, ids, use_ids, scale, radius, code_norm, qpack,
                            terms.shape[0], terms, panel, tau)
    with nogil:
        dq8_dots(&g, lo, hi, &out[0, 0])
