//go:build cgo && !windows && !nofaiss

// C shim over FAISS 1.7.3's C++ API. See shim.h for the error convention.

#include "shim.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/IndexIVFFlat.h>
#include <faiss/invlists/InvertedLists.h>
#include <faiss/impl/HNSW.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/index_io.h>
#include <faiss/utils/distances.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cmath>
#if defined(__x86_64__)
#include <immintrin.h>
#define CF_X86 1
#endif
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <omp.h>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <queue>
#include <unordered_set>
#include <vector>

// A flat or HNSW index sits under an IndexIDMap2 (map set, ivf null). An
// IVF index stores the caller's ids itself (add_with_ids, remove_ids and
// reconstruct through a hashtable DirectMap) and has no id map (map null):
// IndexIDMap2's remove assumes the sub-index renumbers rows compactly, which
// IVF's remove_ids does not.
struct cf_index {
    faiss::IndexIDMap2* map; // owns the sub-index (own_fields = true)
    faiss::IndexIVFFlat* ivf; // owns its quantizer (own_fields = true)
    int kind;
    // A flat index of kSQ4MinRows rows or more also keeps a 4-bit copy of
    // its rows (see sq4 below), derived from the float rows and never
    // written to disk: codes holds coded_rows rows of sq4_stride bytes, lo,
    // step and inv_step each dimension's quantiser, trained on trained_rows
    // rows. Mutations keep it in step under the caller's write lock.
    std::vector<uint8_t> codes;
    std::vector<float> lo, step, inv_step;
    int64_t coded_rows = 0;
    int64_t trained_rows = 0;
    faiss::Index* top() const {
        return map != nullptr ? static_cast<faiss::Index*>(map)
                              : static_cast<faiss::Index*>(ivf);
    }
};

namespace {

// FAISS 1.7.3 spells it faiss::Index::idx_t, 1.7.4+ faiss::idx_t; both are int64_t.
using idx_t = int64_t;

// OpenMP team size for bulk work (adds), read from OMP_NUM_THREADS or the
// core count at init.
int bulk_threads = 1;

// one_query_threads pins the calling OS thread's OpenMP team to one thread.
// FAISS opens parallel regions even for a single query (about a hundred per
// flat search, one per block of 1024 vectors); when another process keeps the
// cores busy, each region's barrier waits for a descheduled worker: measured
// 0.7-1.7 s per 100k x 384 query with the default team of 2, 11-25 ms with 1.
// omp_set_num_threads is per thread, and a cgo call stays on one OS thread,
// so this must be set on every call.
void one_query_threads() {
    omp_set_num_threads(1);
}

char* dup_err(const char* msg) {
    if (msg == nullptr || *msg == '\0') {
        msg = "unknown error";
    }
    size_t n = std::strlen(msg);
    char* out = static_cast<char*>(std::malloc(n + 1));
    if (out != nullptr) {
        std::memcpy(out, msg, n + 1);
    }
    return out;
}

// guard runs fn and turns any C++ exception into an error string, so that no
// exception ever unwinds into Go frames (which would abort the process).
template <typename Fn>
char* guard(Fn&& fn) {
    try {
        fn();
        return nullptr;
    } catch (const std::bad_alloc&) {
        return dup_err("out of memory");
    } catch (const std::exception& e) {
        return dup_err(e.what());
    } catch (...) {
        return dup_err("unknown C++ exception");
    }
}

std::string errno_msg(const char* what, const char* path) {
    return std::string(what) + " " + path + ": " + std::strerror(errno);
}

faiss::IndexHNSW* hnsw_of(const cf_index* ix) {
    if (ix->map == nullptr) {
        return nullptr;
    }
    return dynamic_cast<faiss::IndexHNSW*>(ix->map->index);
}

// flat_storage returns the contiguous float vectors behind the index, in
// internal order.
const float* flat_storage(const cf_index* ix) {
    faiss::Index* base = ix->map->index;
    if (auto* h = dynamic_cast<faiss::IndexHNSW*>(base)) {
        base = h->storage;
    }
    auto* flat = dynamic_cast<faiss::IndexFlat*>(base);
    if (flat == nullptr) {
        throw std::runtime_error("index storage is not flat");
    }
    return flat->get_xb();
}

void fill_missing(int64_t k, float* scores, int64_t* ids) {
    for (int64_t i = 0; i < k; i++) {
        scores[i] = 0;
        ids[i] = -1;
    }
}

// to_external rewrites internal row numbers into the caller's ids.
void to_external(const cf_index* ix, int64_t k, int64_t* ids) {
    const auto& id_map = ix->map->id_map;
    for (int64_t i = 0; i < k; i++) {
        if (ids[i] >= 0 && static_cast<size_t>(ids[i]) < id_map.size()) {
            ids[i] = id_map[ids[i]];
        } else {
            ids[i] = -1;
        }
    }
}

cf_index* wrap(faiss::Index* sub, int kind) {
    std::unique_ptr<faiss::Index> owned(sub);
    auto map = std::make_unique<faiss::IndexIDMap2>(sub);
    owned.release();
    map->own_fields = true;
    return new cf_index{map.release(), nullptr, kind};
}

faiss::ArrayInvertedLists* ivf_lists(const cf_index* ix) {
    auto* a = dynamic_cast<faiss::ArrayInvertedLists*>(ix->ivf->invlists);
    if (a == nullptr) {
        throw std::runtime_error("IVF inverted lists are not in memory");
    }
    return a;
}

// ivf_vector returns the stored vector of an IVF row (hashtable value).
const float* ivf_vector(const faiss::ArrayInvertedLists* lists, idx_t lo) {
    size_t list = faiss::lo_listno(lo), off = faiss::lo_offset(lo);
    return reinterpret_cast<const float*>(lists->codes[list].data()) +
            off * (lists->code_size / sizeof(float));
}

// ivf_exact scans the allowed ids of an IVF index exactly: the answer to a
// narrow filter, where probing a few lists would find few allowed vectors.
void ivf_exact(const cf_index* ix, const float* q, int64_t k,
               const int64_t* allow, int64_t nallow, float* scores,
               int64_t* ids) {
    const auto* lists = ivf_lists(ix);
    const auto& ht = ix->ivf->direct_map.hashtable;
    const size_t d = static_cast<size_t>(ix->ivf->d);
    using P = std::pair<float, idx_t>; // min-heap of the best k
    std::priority_queue<P, std::vector<P>, std::greater<P>> heap;
    std::unordered_set<idx_t> seen;
    for (int64_t i = 0; i < nallow; i++) {
        auto it = ht.find(allow[i]);
        if (it == ht.end() || !seen.insert(allow[i]).second) {
            continue;
        }
        float s = faiss::fvec_inner_product(q, ivf_vector(lists, it->second), d);
        if (static_cast<int64_t>(heap.size()) < k) {
            heap.emplace(s, allow[i]);
        } else if (s > heap.top().first) {
            heap.pop();
            heap.emplace(s, allow[i]);
        }
    }
    for (int64_t i = static_cast<int64_t>(heap.size()) - 1; i >= 0; i--) {
        scores[i] = heap.top().first;
        ids[i] = heap.top().second;
        heap.pop();
    }
}


// ---------------------------------------------------------------- sq4 scan
//
// An exact flat search reads every float (153 MB per query at 100k x 384)
// and is bound by memory bandwidth. The 4-bit scan reads an eighth of that:
// each dimension j has its own quantiser, 16 levels of width step[j] centred
// on the dimension's mean over the index (lo[j] = mean - 8 * step[j], step[j]
// = kSQ4Clip * stddev / 8), and a row is stored as one nibble per
// dimension. Then q.x ~ const + sum_j (q[j] * step[j]) * code[j], and the
// constant is the same for every row, so the query folded with the steps is
// quantised to int8 and an integer dot product with the nibbles (AVX-512
// VNNI or AVX2 when the CPU has them) ranks every row approximately. The
// best sq4_depth(k) rows are then re-scored exactly from the float rows, so
// the scores returned are exact and only the candidate set is approximate.
//
// Per-dimension quantisers are what make 4 bits enough: an embedding
// model's few outsized or offset dimensions get their own range instead of
// stretching one range per row (which left the other dimensions one or two
// levels, why an earlier per-row 4-bit scan was dropped for 8 bits). The
// quantisation error of a dot product (estimated ~0.005 for random unit
// vectors at d=384, against ~3e-4 with 8 bits) stays well below the score
// gap between a query's 60th and 250th best rows, at 10k rows as at 1M
// (see sq4_depth).
//
// The levels are trained on the rows present when the index first reaches
// kSQ4MinRows, and again (with every row re-encoded) whenever it has
// doubled since, or after a load or a compacting remove; rows added in
// between are encoded with the current levels (clamped to the range).

// Below this many rows the exact BLAS scan is as fast and the re-rank list
// would cover most of the index.
constexpr int64_t kSQ4MinRows = 4096;

// The quantiser spans mean +- kSQ4Clip standard deviations: 16 levels over
// about +-2.5 sd minimise the squared error for a normal distribution; a
// little wider loses less on heavier tails.
constexpr float kSQ4Clip = 3.0f;

// Bytes per row: two dimensions per byte, in whole 64-byte (128-dimension)
// blocks so that the AVX-512 kernel needs no tail.
size_t sq4_stride(int d) {
    return (static_cast<size_t>(d) + 127) / 128 * 64;
}

// The candidates re-scored exactly. The rows that the scan's error can lift
// past the k-th best grow far slower than the index (random 384-d vectors,
// the hardest case, recall of the top 10 / top 60 against an exact scan:
// k + 64 kept 1.000 / 0.998 at 10k and 1.000 / 0.990 at 100k; 2k + 128 keeps
// 1.000 / 1.000 at 10k, 1.000 / 0.9999 at 100k, 1.000 / 0.9997 at 1M).
int64_t sq4_depth(int64_t k) {
    return 2 * k + 128;
}

// Nibble layout, shared by every kernel: byte b of a row holds, for its
// 32-byte group g = b / 32 and t = b % 32, dimension 64g + t in its low
// nibble and dimension 64g + 32 + t in its high one. An AVX2 register then
// holds 32 low and 32 high nibbles of consecutive dimensions.

// sq4_train sets the per-dimension levels from n float rows.
void sq4_train(cf_index* ix, const float* x, int64_t n) {
    const int d = ix->map->d;
    std::vector<double> sum(d), sq(d);
    for (int64_t i = 0; i < n; i++) {
        const float* r = x + i * d;
        for (int j = 0; j < d; j++) {
            sum[j] += r[j];
            sq[j] += static_cast<double>(r[j]) * r[j];
        }
    }
    // Padded with zeros to whole 64-dimension groups for sq4_encode.
    const size_t padded = 2 * sq4_stride(d);
    ix->lo.assign(padded, 0);
    ix->inv_step.assign(padded, 0);
    ix->step.assign(padded, 0);
    for (int j = 0; j < d; j++) {
        const double mean = sum[j] / n;
        const double var = std::max(0.0, sq[j] / n - mean * mean);
        const float step = static_cast<float>(kSQ4Clip * std::sqrt(var) / 8);
        ix->lo[j] = static_cast<float>(mean) - 8 * step;
        if (step > 0 && std::isfinite(step)) {
            ix->step[j] = step;
            ix->inv_step[j] = 1 / step;
        } else {
            ix->lo[j] = static_cast<float>(mean); // a constant dimension ranks nothing
        }
    }
    ix->trained_rows = n;
}

// sq4_encode writes the codes of n rows into dst (n * stride bytes). The
// loops over a whole 64-dimension group have a constant trip count and
// branch-free clamps (maxps/minps semantics: a NaN lands on level 0), so
// the compiler vectorises them: a load or a retraining re-encodes every
// row.
void sq4_encode(const cf_index* ix, const float* x, int64_t n, uint8_t* dst) {
    const size_t d = static_cast<size_t>(ix->map->d);
    const size_t stride = sq4_stride(ix->map->d);
    const float* lo = ix->lo.data();
    const float* inv = ix->inv_step.data();
    float pad[64];
    for (int64_t i = 0; i < n; i++) {
        const float* r = x + i * d;
        uint8_t* o = dst + i * stride;
        for (size_t g = 0; g < stride / 32; g++) {
            const size_t j0 = g * 64;
            const float* src = r + j0;
            if (j0 + 64 > d) { // the last, partial group (lo and inv are 0 past d)
                std::memset(pad, 0, sizeof pad);
                if (j0 < d) {
                    std::memcpy(pad, src, (d - j0) * sizeof(float));
                }
                src = pad;
            }
            const float* l = lo + j0;
            const float* iv = inv + j0;
            uint8_t c[64];
            for (size_t t = 0; t < 64; t++) {
                float v = (src[t] - l[t]) * iv[t];
                v = v > 0 ? v : 0;
                v = v < 15 ? v : 15;
                c[t] = static_cast<uint8_t>(static_cast<int>(v));
            }
            for (size_t t = 0; t < 32; t++) {
                o[g * 32 + t] = static_cast<uint8_t>(c[t] | c[t + 32] << 4);
            }
        }
    }
}

// sq4_rebuild retrains the levels on every float row of a flat index and
// re-encodes them all (after a load, a compacting remove, or growth); below
// kSQ4MinRows it drops the codes.
void sq4_rebuild(cf_index* ix) {
    ix->codes.clear();
    ix->coded_rows = 0;
    if (ix->kind != CF_KIND_FLAT) {
        return;
    }
    auto* flat = dynamic_cast<faiss::IndexFlat*>(ix->map->index);
    if (flat == nullptr) {
        throw std::runtime_error("flat index storage is not flat");
    }
    const int64_t n = flat->ntotal;
    if (n < kSQ4MinRows) {
        ix->codes.shrink_to_fit();
        return;
    }
    sq4_train(ix, flat->get_xb(), n);
    ix->codes.resize(static_cast<size_t>(n) * sq4_stride(ix->map->d));
    sq4_encode(ix, flat->get_xb(), n, ix->codes.data());
    ix->coded_rows = n;
}

// sq4_append encodes the last n rows of a flat index, just appended, or
// retrains on all of them when the index has doubled since the last
// training (or just reached kSQ4MinRows).
void sq4_append(cf_index* ix, int64_t n) {
    const auto* flat = static_cast<const faiss::IndexFlat*>(ix->map->index);
    const int64_t total = flat->ntotal;
    if (ix->coded_rows != total - n || total >= 2 * ix->trained_rows) {
        sq4_rebuild(ix);
        return;
    }
    const size_t stride = sq4_stride(ix->map->d);
    ix->codes.resize(static_cast<size_t>(total) * stride);
    sq4_encode(ix, flat->get_xb() + (total - n) * ix->map->d, n,
               ix->codes.data() + (total - n) * stride);
    ix->coded_rows = total;
}

// Block kernels: the dot products of the int8 query q (2 * stride bytes,
// one per dimension, zero-padded) with nrows consecutive rows of 4-bit
// codes, stride bytes each, into out. The target attributes let one binary
// carry all three; pick_dots chooses one at start.
using dots_fn = void (*)(const int8_t* q, const uint8_t* rows, size_t nrows,
                         size_t stride, int32_t* out);

void dots_scalar(const int8_t* q, const uint8_t* rows, size_t nrows,
                 size_t stride, int32_t* out) {
    for (size_t i = 0; i < nrows; i++) {
        const uint8_t* r = rows + i * stride;
        int32_t s = 0;
        for (size_t b = 0; b < stride; b++) {
            const size_t j = b / 32 * 64 + b % 32; // the low nibble's dimension
            s += static_cast<int32_t>(q[j]) * (r[b] & 15) +
                 static_cast<int32_t>(q[j + 32]) * (r[b] >> 4);
        }
        out[i] = s;
    }
}

#ifdef CF_X86
// AVX2: maddubs multiplies the unsigned nibbles by the signed query bytes;
// a pair sums to at most 2*15*128 and the two halves' pairs to twice that,
// far from int16 saturation.
__attribute__((target("avx2"))) void dots_avx2(const int8_t* q,
                                               const uint8_t* rows,
                                               size_t nrows, size_t stride,
                                               int32_t* out) {
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i nib = _mm256_set1_epi8(15);
    for (size_t i = 0; i < nrows; i++) {
        const uint8_t* r = rows + i * stride;
        __m256i acc = _mm256_setzero_si256();
        for (size_t b = 0; b < stride; b += 32) {
            __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + b));
            __m256i lo = _mm256_and_si256(v, nib);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
            __m256i ql = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 2 * b));
            __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 2 * b + 32));
            __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(lo, ql), _mm256_maddubs_epi16(hi, qh));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
        }
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
        out[i] = _mm_cvtsi128_si32(s);
    }
}

// sum4 adds up the lanes of four accumulators into out[0..3].
__attribute__((target("avx512f"))) inline void sum4(__m512i a0, __m512i a1, __m512i a2,
                                                    __m512i a3, int32_t* out) {
    __m512i s01 = _mm512_add_epi32(_mm512_unpacklo_epi32(a0, a1), _mm512_unpackhi_epi32(a0, a1));
    __m512i s23 = _mm512_add_epi32(_mm512_unpacklo_epi32(a2, a3), _mm512_unpackhi_epi32(a2, a3));
    // The 128-bit lanes of s01 hold partial sums of a0 a1 a0 a1, of s23 a2 a3 a2 a3.
    __m512i s = _mm512_add_epi32(_mm512_unpacklo_epi64(s01, s23), _mm512_unpackhi_epi64(s01, s23));
    __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
    __m128i r = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), r);
}

// AVX-512 VNNI: one 64-byte load covers 128 dimensions, whose low nibbles
// (masked) and high nibbles (masked in place, so worth 16x: shifted out of
// the sum at the end, exactly, as every lane is a multiple of 16) each meet
// the query bytes of their dimensions in a dpbusd. The query is first
// rearranged to match: for each 64-byte block, the low nibbles' 64 query
// bytes, then the high nibbles'. Four rows at a time hide dpbusd's latency.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void dots_vnni(
        const int8_t* q, const uint8_t* rows, size_t nrows, size_t stride,
        int32_t* out) {
    const size_t nb = stride / 64;
    int8_t stack[1024];
    std::vector<int8_t> heap;
    int8_t* qp = stack;
    if (2 * stride > sizeof stack) { // d past 1024
        heap.resize(2 * stride);
        qp = heap.data();
    }
    for (size_t h = 0; h < nb; h++) {
        const int8_t* s = q + 128 * h;
        int8_t* o = qp + 128 * h;
        std::memcpy(o, s, 32);           // low nibbles, first group
        std::memcpy(o + 32, s + 64, 32); // low nibbles, second group
        std::memcpy(o + 64, s + 32, 32); // high nibbles, first group
        std::memcpy(o + 96, s + 96, 32); // high nibbles, second group
    }
    const __m512i nib = _mm512_set1_epi8(15);
    const __m512i zero = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 4 <= nrows; i += 4) {
        const uint8_t* r = rows + i * stride;
        __m512i l0 = zero, l1 = zero, l2 = zero, l3 = zero;
        __m512i h0 = zero, h1 = zero, h2 = zero, h3 = zero;
        for (size_t b = 0; b < nb; b++) {
            const __m512i ql = _mm512_loadu_si512(qp + 128 * b);
            const __m512i qh = _mm512_loadu_si512(qp + 128 * b + 64);
            const size_t o = b * 64;
            __m512i v0 = _mm512_loadu_si512(r + o);
            __m512i v1 = _mm512_loadu_si512(r + stride + o);
            __m512i v2 = _mm512_loadu_si512(r + 2 * stride + o);
            __m512i v3 = _mm512_loadu_si512(r + 3 * stride + o);
            l0 = _mm512_dpbusd_epi32(l0, _mm512_and_si512(v0, nib), ql);
            h0 = _mm512_dpbusd_epi32(h0, _mm512_andnot_si512(nib, v0), qh);
            l1 = _mm512_dpbusd_epi32(l1, _mm512_and_si512(v1, nib), ql);
            h1 = _mm512_dpbusd_epi32(h1, _mm512_andnot_si512(nib, v1), qh);
            l2 = _mm512_dpbusd_epi32(l2, _mm512_and_si512(v2, nib), ql);
            h2 = _mm512_dpbusd_epi32(h2, _mm512_andnot_si512(nib, v2), qh);
            l3 = _mm512_dpbusd_epi32(l3, _mm512_and_si512(v3, nib), ql);
            h3 = _mm512_dpbusd_epi32(h3, _mm512_andnot_si512(nib, v3), qh);
        }
        sum4(_mm512_add_epi32(l0, _mm512_srai_epi32(h0, 4)),
             _mm512_add_epi32(l1, _mm512_srai_epi32(h1, 4)),
             _mm512_add_epi32(l2, _mm512_srai_epi32(h2, 4)),
             _mm512_add_epi32(l3, _mm512_srai_epi32(h3, 4)), out + i);
    }
    for (; i < nrows; i++) {
        const uint8_t* r = rows + i * stride;
        __m512i l = zero, h = zero;
        for (size_t b = 0; b < nb; b++) {
            __m512i v = _mm512_loadu_si512(r + b * 64);
            l = _mm512_dpbusd_epi32(l, _mm512_and_si512(v, nib), _mm512_loadu_si512(qp + 128 * b));
            h = _mm512_dpbusd_epi32(h, _mm512_andnot_si512(nib, v), _mm512_loadu_si512(qp + 128 * b + 64));
        }
        out[i] = _mm512_reduce_add_epi32(_mm512_add_epi32(l, _mm512_srai_epi32(h, 4)));
    }
}

#endif // CF_X86

#ifdef CF_X86
// Float dot products for the exact re-score: Debian's FAISS is built for
// baseline x86-64 and its fvec_inner_product is the scalar reference loop,
// which took a third of a 10k-row query.
__attribute__((target("avx512f"))) float fdot_avx512(const float* a, const float* b, size_t d) {
    __m512 acc = _mm512_setzero_ps();
    size_t j = 0;
    for (; j + 16 <= d; j += 16) {
        acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + j), _mm512_loadu_ps(b + j), acc);
    }
    float s = _mm512_reduce_add_ps(acc);
    for (; j < d; j++) {
        s += a[j] * b[j];
    }
    return s;
}

__attribute__((target("avx2,fma"))) float fdot_avx2(const float* a, const float* b, size_t d) {
    __m256 acc = _mm256_setzero_ps();
    size_t j = 0;
    for (; j + 8 <= d; j += 8) {
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j), acc);
    }
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    float s = _mm_cvtss_f32(h);
    for (; j < d; j++) {
        s += a[j] * b[j];
    }
    return s;
}
#endif // CF_X86

float fdot_ref(const float* a, const float* b, size_t d) {
    return faiss::fvec_inner_product(a, b, d);
}

using fdot_fn = float (*)(const float*, const float*, size_t);

fdot_fn pick_fdot() {
#ifdef CF_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        return fdot_avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        return fdot_avx2;
    }
#endif
    return fdot_ref;
}

// Set once at start; cf_sq4_use replaces it only in tests.
fdot_fn sq4_fdot = pick_fdot();

// pick_dots returns the fastest kernel, or nullptr when there is only the
// scalar one: it is slower than FAISS's BLAS scan of the floats, so
// searches stay exact there.
dots_fn pick_dots() {
#ifdef CF_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni")) {
        return dots_vnni;
    }
    if (__builtin_cpu_supports("avx2")) {
        return dots_avx2;
    }
#endif
    return nullptr;
}

// Set once at start; cf_sq4_use replaces it only in tests.
dots_fn sq4_dots = pick_dots();

// sq4_query folds the steps into the query and quantises it to int8 (2 *
// stride bytes, zero-padded).
void sq4_query(const cf_index* ix, const float* q, int8_t* out) {
    const int d = ix->map->d;
    const float* step = ix->step.data();
    float m = 0;
    for (int j = 0; j < d; j++) {
        m = std::max(m, std::fabs(q[j] * step[j]));
    }
    std::memset(out, 0, 2 * sq4_stride(d));
    if (!(m > 0) || !std::isfinite(m)) {
        return; // every row ties; the re-rank sorts out what it gets
    }
    const float inv = 127 / m;
    for (int j = 0; j < d; j++) {
        out[j] = static_cast<int8_t>(std::lrintf(q[j] * step[j] * inv));
    }
}

// sq4_top keeps the best depth rows of a scan by approximate score:
// candidates above the current threshold are appended, and whenever the
// buffer holds 2*depth of them it is cut to the best depth and the threshold
// raised to the worst kept. Most rows fail the threshold test; a heap update
// per row cost more than the dot products themselves at 10k rows. A
// candidate is its score (biased to sort unsigned) above its row number.
struct sq4_top {
    int64_t depth;
    std::vector<uint64_t> cand;
    int64_t thr = std::numeric_limits<int64_t>::min();

    sq4_top(int64_t depth_, int64_t thr_) : depth(depth_), thr(thr_) {
        cand.reserve(static_cast<size_t>(2 * depth));
    }
    void cut() {
        if (static_cast<int64_t>(cand.size()) <= depth) {
            return;
        }
        std::nth_element(cand.begin(), cand.begin() + (depth - 1), cand.end(),
                         std::greater<uint64_t>());
        cand.resize(static_cast<size_t>(depth));
        thr = static_cast<int64_t>(cand.back() >> 32) - 0x80000000LL;
    }
    void scan(const int8_t* qc, const uint8_t* codes, size_t stride, int64_t lo,
              int64_t hi) {
        constexpr int64_t kBlock = 1024;
        int32_t dots[kBlock];
        for (; lo < hi; lo += kBlock) {
            const int64_t m = std::min(kBlock, hi - lo);
            sq4_dots(qc, codes + static_cast<size_t>(lo) * stride,
                     static_cast<size_t>(m), stride, dots);
            int64_t j = 0;
#ifdef CF_X86
            // A few percent of the rows pass: SSE2 compares 16 at a time
            // and only the passing ones are visited, instead of a
            // mispredicted branch per row.
            for (; j + 16 <= m; j += 16) {
                const __m128i t = _mm_set1_epi32(static_cast<int32_t>(
                        std::max<int64_t>(thr, std::numeric_limits<int32_t>::min())));
                const __m128i* p = reinterpret_cast<const __m128i*>(dots + j);
                unsigned mask = 0;
                for (int v = 0; v < 4; v++) {
                    __m128 gt = _mm_castsi128_ps(_mm_cmpgt_epi32(_mm_loadu_si128(p + v), t));
                    mask |= static_cast<unsigned>(_mm_movemask_ps(gt)) << (4 * v);
                }
                for (; mask != 0; mask &= mask - 1) {
                    const int64_t r = j + __builtin_ctz(mask);
                    keep(dots, lo, r, r + 1); // rechecks: a cut may raise thr
                }
            }
#endif
            keep(dots, lo, j, m);
        }
    }

    void keep(const int32_t* dots, int64_t lo, int64_t from, int64_t to) {
        for (int64_t j = from; j < to; j++) {
            if (dots[j] > thr) {
                cand.push_back((static_cast<uint64_t>(static_cast<uint32_t>(dots[j]) ^ 0x80000000u) << 32) |
                               static_cast<uint64_t>(lo + j));
                if (static_cast<int64_t>(cand.size()) >= 2 * depth) {
                    cut();
                }
            }
        }
    }
};

// sq4_seed guesses a starting threshold from a sample of the index, 8 runs
// of 32 rows spread over it: a score that about 2*depth rows should beat.
// Starting from nothing, the threshold rises slowly and a 10k-row scan kept
// some 1400 candidates and cut its buffer five times (a fifth of its time);
// seeded, it keeps a few hundred. A seed too high for depth rows to beat is
// caught after the scan, which is then redone unseeded.
int64_t sq4_seed(const int8_t* qc, const uint8_t* codes, size_t stride,
                 int64_t n, int64_t depth) {
    constexpr int64_t kRuns = 8, kRun = 32, kSample = kRuns * kRun;
    const int64_t rank = 2 * depth * kSample / n + 8;
    if (rank > kSample / 2) {
        return std::numeric_limits<int64_t>::min(); // too few rows to tell
    }
    int32_t dots[kSample];
    for (int64_t r = 0; r < kRuns; r++) {
        const int64_t lo = r * (n - kRun) / (kRuns - 1);
        sq4_dots(qc, codes + static_cast<size_t>(lo) * stride, kRun, stride, dots + r * kRun);
    }
    std::nth_element(dots, dots + (rank - 1), dots + kSample, std::greater<int32_t>());
    return static_cast<int64_t>(dots[rank - 1]) - 1;
}

// One scan job shared with the helper threads: its rows are handed out in
// chunks from an atomic counter, so a helper that is slow to wake (its core
// busy with the lexical search, say) only leaves more chunks to the caller,
// which waits for no chunk that was not yet started.
struct sq4_job {
    const int8_t* qc;
    const uint8_t* codes;
    size_t stride;
    int64_t n, chunk;
    std::atomic<int64_t> next{0};
    std::vector<sq4_top> tops; // one per participant; tops[0] is the caller's

    void run(sq4_top& top) {
        const int64_t nchunks = (n + chunk - 1) / chunk;
        for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < nchunks;) {
            top.scan(qc, codes, stride, c * chunk, std::min(n, (c + 1) * chunk));
        }
    }
};

// The helper threads: started on the first large search and never stopped.
// Nothing they run can throw (each candidate buffer is reserved at its
// largest), so no exception can end the process from a thread of ours.
// They sleep on a condition variable between jobs (no spinning: the other
// core is usually running the lexical half of a hybrid search). One job at a
// time; a search that finds them busy scans alone.
class sq4_pool {
public:
    // Try to run job on the caller and the helpers; false if they are busy.
    bool run(sq4_job& job) {
        std::unique_lock<std::mutex> lk(mu_);
        // busy_ and not job_: the pool is taken until its caller has seen
        // the helpers leave, else a second caller's job could keep active_
        // above zero while the first one waits for it to fall.
        if (busy_ || helpers_ == 0) {
            return false;
        }
        busy_ = true;
        job_ = &job;
        gen_++;
        lk.unlock();
        cv_.notify_all();
        job.run(job.tops[0]);
        lk.lock();
        job_ = nullptr; // helpers that wake now find nothing to join
        done_.wait(lk, [&] { return active_ == 0; });
        busy_ = false;
        return true;
    }

    static sq4_pool& get() {
        // Leaked on purpose: threads still running at exit must not meet a
        // destroyed pool.
        static sq4_pool* pool = new sq4_pool();
        return *pool;
    }

    int helpers() const { return helpers_; }

private:
    sq4_pool() {
        const int hw = static_cast<int>(std::thread::hardware_concurrency());
        const int want = std::min(std::max(hw - 1, 0), 3);
        try {
            for (int i = 0; i < want; i++) {
                std::thread(&sq4_pool::loop, this, i + 1).detach();
                helpers_++;
            }
        } catch (const std::exception&) {
            // No threads: every search scans on its caller alone.
        }
    }

    void loop(int slot) {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            cv_.wait(lk, [&] { return job_ != nullptr && gen_ != seen; });
            seen = gen_;
            sq4_job* job = job_;
            active_++;
            lk.unlock();
            job->run(job->tops[static_cast<size_t>(slot)]);
            lk.lock();
            if (--active_ == 0) {
                done_.notify_one();
            }
        }
    }

    std::mutex mu_;
    std::condition_variable cv_, done_;
    sq4_job* job_ = nullptr;
    bool busy_ = false;
    uint64_t gen_ = 0;
    int active_ = 0;
    int helpers_ = 0;
};

// Rows from which a search is shared with the helper threads. Measured on 2
// cores (bench retrieve, p50 of the app's search path): at 10k sharing saved
// nothing (vector 0.175 -> 0.18 ms); at 100k the vector search went 1.07-1.19
// -> 0.70-0.79 ms and the hybrid one 1.34 -> 1.15-1.23 ms, at the same CPU
// time, its p99 2.5 -> 2.9-3.1 ms (the caller waits for a helper's last
// chunk when the lexical search or another process holds its core).
int64_t sq4_parallel_rows = 32768;

// sq4_search answers a whole-index query on a flat index: the 4-bit scan
// keeps the best depth rows, which are re-scored exactly and cut to k.
void sq4_search(const cf_index* ix, const float* q, int64_t k, float* scores,
                int64_t* ids) {
    const auto* flat = static_cast<const faiss::IndexFlat*>(ix->map->index);
    const int d = flat->d;
    const int64_t n = flat->ntotal;
    const size_t stride = sq4_stride(d);
    std::vector<int8_t> qc(2 * sq4_stride(d));
    sq4_query(ix, q, qc.data());
    const int64_t depth = std::min(n, sq4_depth(k));

    sq4_job job;
    job.qc = qc.data();
    job.codes = ix->codes.data();
    job.stride = stride;
    job.n = n;
    int64_t seed = sq4_seed(job.qc, job.codes, stride, n, depth);
    for (;;) {
        bool shared = false;
        if (n >= sq4_parallel_rows) {
            auto& pool = sq4_pool::get();
            // Chunks small enough that the caller rarely waits long for a
            // helper's last one, large enough to amortise the handing out.
            job.chunk = std::max<int64_t>(8192, (n / 32 + 1023) / 1024 * 1024);
            job.tops.assign(static_cast<size_t>(pool.helpers() + 1), sq4_top(depth, seed));
            job.next = 0;
            shared = pool.run(job);
        }
        if (!shared) {
            job.chunk = n;
            job.tops.assign(1, sq4_top(depth, seed));
            job.next = 0;
            job.run(job.tops[0]);
        }
        size_t found = 0;
        for (const auto& t : job.tops) {
            found += t.cand.size();
        }
        if (found >= static_cast<size_t>(depth) || seed == std::numeric_limits<int64_t>::min()) {
            break;
        }
        seed = std::numeric_limits<int64_t>::min(); // the sample misled
    }
    std::vector<uint64_t>& cand = job.tops[0].cand;
    for (size_t t = 1; t < job.tops.size(); t++) {
        job.tops[t].cut();
        cand.insert(cand.end(), job.tops[t].cand.begin(), job.tops[t].cand.end());
    }
    job.tops[0].cut();

    // Exact re-score of the candidates from the float rows.
    using P = std::pair<float, idx_t>;
    std::vector<P> best(cand.size());
    const float* xb = flat->get_xb();
    for (size_t i = 0; i < cand.size(); i++) {
        const idx_t row = static_cast<idx_t>(cand[i] & 0xffffffffu);
        best[i] = {sq4_fdot(q, xb + row * d, static_cast<size_t>(d)), row};
    }
    const int64_t m = std::min<int64_t>(k, static_cast<int64_t>(best.size()));
    std::partial_sort(best.begin(), best.begin() + m, best.end(),
                      [](const P& a, const P& b) {
                          return a.first > b.first ||
                                  (a.first == b.first && a.second < b.second);
                      });
    const auto& id_map = ix->map->id_map;
    for (int64_t i = 0; i < m; i++) {
        scores[i] = best[i].first;
        ids[i] = id_map[best[i].second];
    }
}

} // namespace

// OpenBLAS's thread-count setter, weak so that other BLAS builds still link.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

extern "C" {

void cf_init(void) {
    // FAISS scans with its own scalar loop below 20 queries and switches to
    // BLAS sgemm above. Carrel searches one query at a time, and OpenBLAS
    // (runtime-dispatched SIMD) is ~4.5x faster even for one query: measured
    // 44 ms -> 9.5 ms per query over 100k x 384 on one core.
    faiss::distance_compute_blas_threshold = 1;
    // A one-query sgemm gains little from threads, and OpenBLAS's spinning
    // workers collapse when the other cores are busy (embedding, indexing):
    // measured 10 ms -> 150 ms per query with 2 threads on a loaded 2-core
    // machine, against 10-24 ms with one.
    if (openblas_set_num_threads != nullptr) {
        openblas_set_num_threads(1);
    }
    bulk_threads = omp_get_max_threads();
}

char* cf_new_flat_ip(int dim, cf_index** out) {
    return guard([&] {
        if (dim <= 0) {
            throw std::invalid_argument("dimension must be positive");
        }
        *out = wrap(new faiss::IndexFlatIP(dim), CF_KIND_FLAT);
    });
}

char* cf_new_hnsw_ip(int dim, int m, cf_index** out) {
    return guard([&] {
        if (dim <= 0) {
            throw std::invalid_argument("dimension must be positive");
        }
        if (m < 2) {
            throw std::invalid_argument("HNSW M must be at least 2");
        }
        *out = wrap(
                new faiss::IndexHNSWFlat(dim, m, faiss::METRIC_INNER_PRODUCT),
                CF_KIND_HNSW);
    });
}

char* cf_new_ivf_ip(int dim, int64_t nlist, int64_t ntrain, const float* train,
                    cf_index** out) {
    return guard([&] {
        if (dim <= 0) {
            throw std::invalid_argument("dimension must be positive");
        }
        if (nlist < 1) {
            throw std::invalid_argument("IVF nlist must be positive");
        }
        if (ntrain < nlist) {
            throw std::invalid_argument(
                    "IVF training needs at least nlist vectors");
        }
        auto quantizer = std::make_unique<faiss::IndexFlatIP>(dim);
        auto ivf = std::make_unique<faiss::IndexIVFFlat>(
                quantizer.get(), dim, static_cast<size_t>(nlist),
                faiss::METRIC_INNER_PRODUCT);
        quantizer.release();
        ivf->own_fields = true;
        ivf->cp.niter = 10;       // plenty for a coarse partition
        ivf->cp.spherical = true; // unit centroids for inner product
        ivf->cp.max_points_per_centroid = 64;
        ivf->cp.min_points_per_centroid = 1; // the caller sizes the sample
        ivf->cp.verbose = false;
        ivf->set_direct_map_type(faiss::DirectMap::Hashtable);
        omp_set_num_threads(bulk_threads);
        ivf->train(ntrain, train);
        *out = new cf_index{nullptr, ivf.release(), CF_KIND_IVF};
    });
}

char* cf_set_nprobe(cf_index* ix, int64_t nprobe) {
    return guard([&] {
        if (ix->ivf == nullptr) {
            throw std::invalid_argument("nprobe applies only to IVF indexes");
        }
        if (nprobe < 1) {
            throw std::invalid_argument("nprobe must be positive");
        }
        ix->ivf->nprobe = std::min<size_t>(nprobe, ix->ivf->nlist);
    });
}

int64_t cf_nprobe(const cf_index* ix) {
    return ix->ivf == nullptr ? 0 : static_cast<int64_t>(ix->ivf->nprobe);
}

int64_t cf_nlist(const cf_index* ix) {
    return ix->ivf == nullptr ? 0 : static_cast<int64_t>(ix->ivf->nlist);
}

char* cf_export(const cf_index* ix, int64_t* ids, float* vecs) {
    return guard([&] {
        const int64_t d = ix->top()->d;
        if (ix->ivf != nullptr) {
            const auto* lists = ivf_lists(ix);
            int64_t row = 0;
            for (size_t l = 0; l < lists->nlist; l++) {
                size_t n = lists->ids[l].size();
                std::copy(lists->ids[l].begin(), lists->ids[l].end(), ids + row);
                std::memcpy(vecs + row * d, lists->codes[l].data(), n * d * sizeof(float));
                row += static_cast<int64_t>(n);
            }
            return;
        }
        const auto& id_map = ix->map->id_map;
        std::copy(id_map.begin(), id_map.end(), ids);
        if (ix->map->ntotal > 0) {
            ix->map->index->reconstruct_n(0, ix->map->ntotal, vecs);
        }
    });
}

void cf_free(cf_index* ix) {
    if (ix == nullptr) {
        return;
    }
    try {
        delete ix->map;
        delete ix->ivf;
    } catch (...) {
        // Destructors of FAISS indexes do not throw; never let one escape.
    }
    delete ix;
}

int cf_kind(const cf_index* ix) {
    return ix->kind;
}

int cf_dim(const cf_index* ix) {
    return ix->top()->d;
}

int64_t cf_len(const cf_index* ix) {
    return ix->top()->ntotal;
}

int cf_contains(const cf_index* ix, int64_t id) {
    if (ix->ivf != nullptr) {
        return ix->ivf->direct_map.hashtable.count(id) != 0;
    }
    return ix->map->rev_map.count(id) != 0;
}

void cf_ids(const cf_index* ix, int64_t* out) {
    if (ix->ivf != nullptr) {
        const auto* inv = ix->ivf->invlists;
        for (size_t l = 0; l < inv->nlist; l++) {
            size_t n = inv->list_size(l);
            if (n == 0) {
                continue;
            }
            faiss::InvertedLists::ScopedIds lids(inv, l);
            std::copy(lids.get(), lids.get() + n, out);
            out += n;
        }
        return;
    }
    const auto& id_map = ix->map->id_map;
    std::copy(id_map.begin(), id_map.end(), out);
}

char* cf_set_ef_search(cf_index* ix, int ef) {
    return guard([&] {
        auto* h = hnsw_of(ix);
        if (h == nullptr) {
            throw std::invalid_argument("efSearch applies only to HNSW indexes");
        }
        if (ef < 1) {
            throw std::invalid_argument("efSearch must be positive");
        }
        h->hnsw.efSearch = ef;
    });
}

int cf_ef_search(const cf_index* ix) {
    auto* h = hnsw_of(ix);
    return h == nullptr ? 0 : h->hnsw.efSearch;
}

char* cf_add(cf_index* ix, int64_t n, const float* x, const int64_t* ids) {
    return guard([&] {
        if (n <= 0) {
            return;
        }
        // IndexIDMap2 would silently keep both copies of a repeated id (and
        // its rev_map would point at only one): refuse instead.
        std::unordered_set<idx_t> seen;
        seen.reserve(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; i++) {
            if (ids[i] < 0) {
                throw std::invalid_argument(
                        "negative id " + std::to_string(ids[i]));
            }
            if (!seen.insert(ids[i]).second) {
                throw std::invalid_argument(
                        "id " + std::to_string(ids[i]) + " repeated in batch");
            }
            if (cf_contains(ix, ids[i])) {
                throw std::invalid_argument(
                        "id " + std::to_string(ids[i]) + " already present");
            }
        }
        omp_set_num_threads(bulk_threads); // HNSW inserts in parallel
        ix->top()->add_with_ids(n, x, ids);
        if (ix->kind == CF_KIND_FLAT) {
            sq4_append(ix, n); // IndexFlat appends rows in order
        }
    });
}

char* cf_remove(cf_index* ix, int64_t n, const int64_t* ids, int64_t* removed) {
    *removed = 0;
    return guard([&] {
        if (n <= 0) {
            return;
        }
        if (ix->kind == CF_KIND_HNSW) {
            // FAISS 1.7.3's IndexHNSW has no remove_ids.
            throw std::runtime_error(
                    "remove is not supported by HNSW indexes; rebuild instead");
        }
        if (ix->ivf != nullptr) {
            // A hashtable DirectMap removes only through an IDSelectorArray
            // (it looks each id up; absent and repeated ids are skipped).
            faiss::IDSelectorArray sel(static_cast<size_t>(n), ids);
            *removed = static_cast<int64_t>(ix->ivf->remove_ids(sel));
            return;
        }
        faiss::IDSelectorBatch sel(static_cast<size_t>(n), ids);
        *removed = static_cast<int64_t>(ix->map->remove_ids(sel));
        if (*removed > 0) {
            sq4_rebuild(ix); // the flat rows were compacted
        }
    });
}

char* cf_search(const cf_index* ix, const float* q, int64_t k, float* scores, int64_t* ids) {
    return guard([&] {
        fill_missing(k, scores, ids);
        if (k <= 0 || ix->top()->ntotal == 0) {
            return; // HNSW has no entry point when empty
        }
        // A failed encode (out of memory in an add) leaves the codes short;
        // the exact scan still answers.
        if (sq4_dots != nullptr && ix->kind == CF_KIND_FLAT && ix->map->ntotal >= kSQ4MinRows &&
            ix->coded_rows == ix->map->ntotal && ix->map->ntotal <= UINT32_MAX) {
            sq4_search(ix, q, k, scores, ids);
            return;
        }
        one_query_threads();
        ix->top()->search(1, q, k, scores, ids);
    });
}

void cf_sq4_parallel_rows(int64_t rows) {
    sq4_parallel_rows = rows;
}

int cf_sq4_use(int kernel) {
    switch (kernel) {
    case 0:
        sq4_dots = pick_dots();
        sq4_fdot = pick_fdot();
        return 1;
    case 1:
        sq4_dots = dots_scalar;
        sq4_fdot = fdot_ref;
        return 1;
#ifdef CF_X86
    case 2:
        if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
            return 0;
        }
        sq4_dots = dots_avx2;
        sq4_fdot = fdot_avx2;
        return 1;
    case 3:
        if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vnni")) {
            return 0;
        }
        sq4_dots = dots_vnni;
        sq4_fdot = fdot_avx512;
        return 1;
#endif
    }
    return 0;
}

char* cf_search_exact(const cf_index* ix, const float* q, int64_t k, float* scores, int64_t* ids) {
    return guard([&] {
        fill_missing(k, scores, ids);
        if (k <= 0 || ix->top()->ntotal == 0) {
            return;
        }
        one_query_threads();
        ix->top()->search(1, q, k, scores, ids);
    });
}

char* cf_search_filtered(const cf_index* ix, const float* q, int64_t k,
                         const int64_t* allow, int64_t nallow,
                         float* scores, int64_t* ids) {
    return guard([&] {
        fill_missing(k, scores, ids);
        if (k <= 0 || nallow <= 0 || ix->top()->ntotal == 0) {
            return;
        }
        one_query_threads();
        if (ix->ivf != nullptr) {
            // The IVF stores caller ids, so a selector sees them directly.
            const int64_t ntotal = ix->ivf->ntotal;
            if (nallow * 4 <= ntotal || nallow <= 4096) {
                // Narrow filter: probing a few lists would find few allowed
                // vectors; an exact scan of the allowed ones is exact and
                // cheap.
                ivf_exact(ix, q, k, allow, nallow, scores, ids);
                return;
            }
            // Wide filter: filter while scanning, probing more lists in
            // proportion to the fraction filtered out (at most 4x).
            faiss::IDSelectorBatch sel(static_cast<size_t>(nallow), allow);
            faiss::SearchParametersIVF params;
            params.sel = &sel;
            size_t np = ix->ivf->nprobe * static_cast<size_t>(ntotal) /
                            static_cast<size_t>(nallow) + 1;
            params.nprobe = std::min(np, ix->ivf->nlist);
            ix->ivf->search(1, q, k, scores, ids, &params);
            return;
        }
        // FAISS 1.7.3's IndexIDMap2::search rejects SearchParameters, and a
        // selector handed to the sub-index sees internal row numbers. So the
        // allow-list is translated to rows here and the sub-index is searched
        // directly; results are translated back.
        const auto& rev = ix->map->rev_map;
        std::vector<idx_t> rows;
        rows.reserve(static_cast<size_t>(nallow));
        for (int64_t i = 0; i < nallow; i++) {
            auto it = rev.find(allow[i]);
            if (it != rev.end()) {
                rows.push_back(it->second);
            }
        }
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        if (rows.empty()) {
            return;
        }
        const int64_t ntotal = ix->map->ntotal;
        faiss::Index* sub = ix->map->index;

        if (ix->kind == CF_KIND_HNSW) {
            auto* h = hnsw_of(ix);
            const int64_t nrows = static_cast<int64_t>(rows.size());
            if (nrows * 4 <= ntotal || nrows <= 4096) {
                // HNSW only applies the selector to the nodes its greedy
                // walk visits, so a narrow filter loses most results. For a
                // narrow filter an exact scan of the allowed rows is both
                // exact and cheap.
                faiss::knn_inner_products_by_idx(
                        q, flat_storage(ix), rows.data(), sub->d, 1,
                        rows.size(), static_cast<size_t>(k), scores, ids, 0);
            } else {
                // A wide filter: let HNSW filter during the walk, with a beam
                // widened by the fraction filtered out (at most 4x).
                faiss::IDSelectorBatch sel(rows.size(), rows.data());
                faiss::SearchParametersHNSW params;
                params.sel = &sel;
                int64_t ef = std::max<int64_t>(h->hnsw.efSearch, k);
                params.efSearch = static_cast<int>(ef * ntotal / nrows + 1);
                sub->search(1, q, k, scores, ids, &params);
            }
        } else {
            faiss::IDSelectorBatch sel(rows.size(), rows.data());
            faiss::SearchParameters params;
            params.sel = &sel;
            sub->search(1, q, k, scores, ids, &params);
        }
        to_external(ix, k, ids);
    });
}

char* cf_reconstruct(const cf_index* ix, int64_t id, float* out, int* found) {
    *found = 0;
    return guard([&] {
        if (ix->ivf != nullptr) {
            const auto& ht = ix->ivf->direct_map.hashtable;
            auto it = ht.find(id);
            if (it == ht.end()) {
                return;
            }
            std::memcpy(out, ivf_vector(ivf_lists(ix), it->second),
                        ix->ivf->d * sizeof(float));
            *found = 1;
            return;
        }
        auto it = ix->map->rev_map.find(id);
        if (it == ix->map->rev_map.end()) {
            return;
        }
        ix->map->index->reconstruct(it->second, out);
        *found = 1;
    });
}

char* cf_write(const cf_index* ix, const char* path) {
    return guard([&] {
        FILE* f = std::fopen(path, "wb");
        if (f == nullptr) {
            throw std::runtime_error(errno_msg("open", path));
        }
        try {
            faiss::write_index(ix->top(), f);
        } catch (...) {
            std::fclose(f);
            throw;
        }
        // FAISS's own file writer ignores close errors and never syncs; the
        // caller renames this file over the live one, so it must be durable.
        if (std::fflush(f) != 0 || fsync(fileno(f)) != 0) {
            std::string msg = errno_msg("sync", path);
            std::fclose(f);
            throw std::runtime_error(msg);
        }
        if (std::fclose(f) != 0) {
            throw std::runtime_error(errno_msg("close", path));
        }
    });
}

char* cf_read(const char* path, cf_index** out) {
    return guard([&] {
        std::unique_ptr<faiss::Index> idx(faiss::read_index(path));
        if (auto* ivf = dynamic_cast<faiss::IndexIVFFlat*>(idx.get())) {
            if (ivf->metric_type != faiss::METRIC_INNER_PRODUCT) {
                throw std::runtime_error("index metric is not inner product");
            }
            if (dynamic_cast<faiss::ArrayInvertedLists*>(ivf->invlists) == nullptr) {
                throw std::runtime_error("IVF inverted lists are not in memory");
            }
            if (ivf->direct_map.type != faiss::DirectMap::Hashtable) {
                ivf->set_direct_map_type(faiss::DirectMap::Hashtable);
            }
            if (static_cast<int64_t>(ivf->direct_map.hashtable.size()) != ivf->ntotal) {
                throw std::runtime_error("inconsistent IVF id map (repeated ids?)");
            }
            idx.release();
            *out = new cf_index{nullptr, ivf, CF_KIND_IVF};
            return;
        }
        auto* map = dynamic_cast<faiss::IndexIDMap2*>(idx.get());
        if (map == nullptr) {
            throw std::runtime_error("not an IndexIDMap2 index");
        }
        if (map->metric_type != faiss::METRIC_INNER_PRODUCT) {
            throw std::runtime_error("index metric is not inner product");
        }
        int kind = 0;
        if (auto* h = dynamic_cast<faiss::IndexHNSWFlat*>(map->index)) {
            if (dynamic_cast<faiss::IndexFlat*>(h->storage) == nullptr) {
                throw std::runtime_error("HNSW storage is not flat");
            }
            kind = CF_KIND_HNSW;
        } else if (dynamic_cast<faiss::IndexFlat*>(map->index) != nullptr) {
            kind = CF_KIND_FLAT;
        } else {
            throw std::runtime_error("unsupported sub-index type");
        }
        if (map->index->ntotal != map->ntotal ||
            static_cast<int64_t>(map->id_map.size()) != map->ntotal ||
            static_cast<int64_t>(map->rev_map.size()) != map->ntotal) {
            throw std::runtime_error("inconsistent id map");
        }
        std::unique_ptr<cf_index> w(new cf_index{map, nullptr, kind});
        sq4_rebuild(w.get());
        idx.release();
        *out = w.release();
    });
}

} // extern "C"
