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
    // A flat index also keeps an 8-bit copy of its rows (see sq8 below),
    // derived from the float rows and never written to disk: codes holds
    // ntotal rows of stride padded bytes, scale the per-row dequantisation
    // factor. Mutations keep it in step under the caller's write lock.
    std::vector<int8_t> codes;
    std::vector<float> scale;
    faiss::Index* top() const {
        return map != nullptr ? static_cast<faiss::Index*>(map)
                              : static_cast<faiss::Index*>(ivf);
    }
};

namespace {

using idx_t = faiss::Index::idx_t;

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


// ---------------------------------------------------------------- sq8 scan
//
// An exact flat search reads every float (153 MB per query at 100k x 384)
// and is bound by memory bandwidth. The 8-bit scan reads a quarter of that:
// each row is stored as int8 codes with its own scale (x ~ code * scale,
// scale = max|x| / 127), the query likewise, and an integer dot product
// (AVX-512 VNNI or AVX2 when the CPU has them) ranks every row approximately. The best
// sq8_depth(k) rows are then re-scored exactly from the float rows, so the
// scores returned are exact and only the candidate set is approximate: the
// quantisation error of a dot product (~3e-4 for unit vectors at d=384) is
// far below the gaps between a query's top scores, and the candidate list is
// 256 deep for a top 10 (recall@10 measured 1.000 on random vectors, the
// worst case, by TestSQ8Recall and the retrieval benchmark). 4-bit codes
// were tried too: 1.6x faster per row and recall 1.000 on random vectors,
// but with one scale per row, an embedding model's few outsized dimensions
// would leave the others one or two levels; 8 bits keep 127.

// Below this many rows the exact BLAS scan is as fast and the re-rank list
// would cover most of the index.
constexpr int64_t kSQ8MinRows = 4096;

size_t sq8_stride(int d) {
    return (static_cast<size_t>(d) + 63) / 64 * 64; // whole AVX-512 registers
}

int64_t sq8_depth(int64_t k) {
    return std::max<int64_t>(k * 8, 256);
}

// sq8_encode quantises one row into dst (stride bytes, zero-padded) and
// returns its scale.
float sq8_encode(const float* x, int d, int8_t* dst, size_t stride) {
    float m = 0;
    for (int j = 0; j < d; j++) {
        m = std::max(m, std::fabs(x[j]));
    }
    std::memset(dst, 0, stride);
    if (m == 0) {
        return 0;
    }
    const float inv = 127.0f / m;
    for (int j = 0; j < d; j++) {
        dst[j] = static_cast<int8_t>(std::lrintf(x[j] * inv));
    }
    return m / 127.0f;
}

// sq8_append encodes n rows appended to a flat index.
void sq8_append(cf_index* ix, const float* x, int64_t n) {
    const int d = ix->map->d;
    const size_t stride = sq8_stride(d);
    const size_t old = ix->scale.size();
    ix->codes.resize((old + n) * stride);
    ix->scale.resize(old + n);
    for (int64_t i = 0; i < n; i++) {
        ix->scale[old + i] = sq8_encode(x + i * d, d,
                ix->codes.data() + (old + i) * stride, stride);
    }
}

// sq8_rebuild re-derives the codes of a flat index from its float rows
// (after a load or a compacting remove).
void sq8_rebuild(cf_index* ix) {
    ix->codes.clear();
    ix->scale.clear();
    if (ix->kind != CF_KIND_FLAT) {
        return;
    }
    auto* flat = dynamic_cast<faiss::IndexFlat*>(ix->map->index);
    if (flat == nullptr) {
        throw std::runtime_error("flat index storage is not flat");
    }
    sq8_append(ix, flat->get_xb(), flat->ntotal);
}

// Block kernels: the int8 dot products of q with rows consecutive rows of
// stride bytes (a multiple of 64, zero-padded), into out. The target
// attributes let one binary carry all three; sq8_kernel picks one at start.
using dots_fn = void (*)(const int8_t* q, const int8_t* rows, size_t nrows,
                         size_t stride, int32_t* out);

void dots_scalar(const int8_t* q, const int8_t* rows, size_t nrows,
                 size_t stride, int32_t* out) {
    for (size_t i = 0; i < nrows; i++) {
        const int8_t* r = rows + i * stride;
        int32_t s = 0;
        for (size_t j = 0; j < stride; j++) {
            s += static_cast<int32_t>(q[j]) * static_cast<int32_t>(r[j]);
        }
        out[i] = s;
    }
}

#ifdef CF_X86
// AVX2: |q| (unsigned) times the row with q's sign moved onto it, so
// maddubs's unsigned x signed product is q*row; pairs sum to at most
// 2*127*127 < 32767, so the 16-bit step never saturates (codes are in
// [-127, 127]).
__attribute__((target("avx2"))) void dots_avx2(const int8_t* q,
                                               const int8_t* rows,
                                               size_t nrows, size_t stride,
                                               int32_t* out) {
    const __m256i ones = _mm256_set1_epi16(1);
    for (size_t i = 0; i < nrows; i++) {
        const int8_t* r = rows + i * stride;
        __m256i acc = _mm256_setzero_si256();
        for (size_t j = 0; j < stride; j += 32) {
            __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + j));
            __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + j));
            __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
        }
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
        out[i] = _mm_cvtsi128_si32(s);
    }
}

// AVX-512 VNNI: the same product in one dpbusd per 64 bytes, the row negated
// where q is negative (a masked subtract; AVX-512 has no sign instruction).
// Four rows at a time, so four independent dpbusd chains hide its latency.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void dots_vnni(
        const int8_t* q, const int8_t* rows, size_t nrows, size_t stride,
        int32_t* out) {
    const __m512i zero = _mm512_setzero_si512();
    const size_t nb = stride / 64;
    __m512i qa[16];
    __mmask64 qn[16];
    if (nb > 16) { // a dimension past 1024: no precomputed registers
        for (size_t i = 0; i < nrows; i++) {
            const int8_t* r = rows + i * stride;
            __m512i acc = zero;
            for (size_t j = 0; j < stride; j += 64) {
                __m512i a = _mm512_loadu_si512(q + j);
                __m512i b = _mm512_loadu_si512(r + j);
                b = _mm512_mask_sub_epi8(b, _mm512_movepi8_mask(a), zero, b);
                acc = _mm512_dpbusd_epi32(acc, _mm512_abs_epi8(a), b);
            }
            out[i] = _mm512_reduce_add_epi32(acc);
        }
        return;
    }
    for (size_t j = 0; j < nb; j++) {
        __m512i a = _mm512_loadu_si512(q + j * 64);
        qa[j] = _mm512_abs_epi8(a);
        qn[j] = _mm512_movepi8_mask(a);
    }
    size_t i = 0;
    for (; i + 4 <= nrows; i += 4) {
        const int8_t* r = rows + i * stride;
        __m512i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        for (size_t j = 0; j < nb; j++) {
            const size_t o = j * 64;
            __m512i b0 = _mm512_loadu_si512(r + o);
            __m512i b1 = _mm512_loadu_si512(r + stride + o);
            __m512i b2 = _mm512_loadu_si512(r + 2 * stride + o);
            __m512i b3 = _mm512_loadu_si512(r + 3 * stride + o);
            a0 = _mm512_dpbusd_epi32(a0, qa[j], _mm512_mask_sub_epi8(b0, qn[j], zero, b0));
            a1 = _mm512_dpbusd_epi32(a1, qa[j], _mm512_mask_sub_epi8(b1, qn[j], zero, b1));
            a2 = _mm512_dpbusd_epi32(a2, qa[j], _mm512_mask_sub_epi8(b2, qn[j], zero, b2));
            a3 = _mm512_dpbusd_epi32(a3, qa[j], _mm512_mask_sub_epi8(b3, qn[j], zero, b3));
        }
        out[i] = _mm512_reduce_add_epi32(a0);
        out[i + 1] = _mm512_reduce_add_epi32(a1);
        out[i + 2] = _mm512_reduce_add_epi32(a2);
        out[i + 3] = _mm512_reduce_add_epi32(a3);
    }
    for (; i < nrows; i++) {
        const int8_t* r = rows + i * stride;
        __m512i acc = zero;
        for (size_t j = 0; j < nb; j++) {
            __m512i b = _mm512_loadu_si512(r + j * 64);
            acc = _mm512_dpbusd_epi32(acc, qa[j], _mm512_mask_sub_epi8(b, qn[j], zero, b));
        }
        out[i] = _mm512_reduce_add_epi32(acc);
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

// Set once at start; cf_sq8_use replaces it only in tests.
fdot_fn sq8_fdot = pick_fdot();

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

// Set once at start; cf_sq8_use replaces it only in tests.
dots_fn sq8_dots = pick_dots();

// sq8_search answers a whole-index query on a flat index: the 8-bit scan
// keeps the best depth rows, which are re-scored exactly and cut to k.
void sq8_search(const cf_index* ix, const float* q, int64_t k, float* scores,
                int64_t* ids) {
    const auto* flat = static_cast<const faiss::IndexFlat*>(ix->map->index);
    const int d = flat->d;
    const int64_t n = flat->ntotal;
    const size_t stride = sq8_stride(d);
    std::vector<int8_t> qc(stride);
    sq8_encode(q, d, qc.data(), stride);
    const int64_t depth = std::min(n, sq8_depth(k));

    // The best depth rows by approximate score: candidates above the current
    // threshold are appended, and whenever the buffer holds 2*depth of them it
    // is cut to the best depth and the threshold raised to the worst kept.
    // Most rows fail the threshold test; a heap update per row cost more than
    // the dot products themselves at 10k rows.
    using P = std::pair<float, idx_t>;
    auto better = [](const P& a, const P& b) { return a.first > b.first; };
    std::vector<P> heap; // the candidates (named for what it replaced)
    heap.reserve(static_cast<size_t>(2 * depth));
    float thr = -std::numeric_limits<float>::infinity();
    auto cut = [&] {
        std::nth_element(heap.begin(), heap.begin() + (depth - 1), heap.end(), better);
        heap.resize(static_cast<size_t>(depth));
        thr = heap[static_cast<size_t>(depth - 1)].first;
        for (const P& p : heap) {
            thr = std::min(thr, p.first);
        }
    };
    const int8_t* codes = ix->codes.data();
    const float* scale = ix->scale.data();
    constexpr int64_t kBlock = 1024;
    int32_t dots[kBlock];
    for (int64_t lo = 0; lo < n; lo += kBlock) {
        const int64_t m = std::min(kBlock, n - lo);
        sq8_dots(qc.data(), codes + static_cast<size_t>(lo) * stride,
                 static_cast<size_t>(m), stride, dots);
        for (int64_t j = 0; j < m; j++) {
            float s = static_cast<float>(dots[j]) * scale[lo + j];
            if (s > thr) {
                heap.emplace_back(s, lo + j);
                if (static_cast<int64_t>(heap.size()) >= 2 * depth) {
                    cut();
                }
            }
        }
    }
    if (static_cast<int64_t>(heap.size()) > depth) {
        cut();
    }
    // Exact re-score of the candidates from the float rows.
    const float* xb = flat->get_xb();
    for (auto& p : heap) {
        p.first = sq8_fdot(q, xb + p.second * d, static_cast<size_t>(d));
    }
    const int64_t m = std::min<int64_t>(k, static_cast<int64_t>(heap.size()));
    std::partial_sort(heap.begin(), heap.begin() + m, heap.end(),
                      [](const P& a, const P& b) {
                          return a.first > b.first ||
                                  (a.first == b.first && a.second < b.second);
                      });
    const auto& id_map = ix->map->id_map;
    for (int64_t i = 0; i < m; i++) {
        scores[i] = heap[i].first;
        ids[i] = id_map[heap[i].second];
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
            sq8_append(ix, x, n); // IndexFlat appends rows in order
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
            sq8_rebuild(ix); // the flat rows were compacted
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
        if (sq8_dots != nullptr && ix->kind == CF_KIND_FLAT && ix->map->ntotal >= kSQ8MinRows &&
            static_cast<int64_t>(ix->scale.size()) == ix->map->ntotal) {
            sq8_search(ix, q, k, scores, ids);
            return;
        }
        one_query_threads();
        ix->top()->search(1, q, k, scores, ids);
    });
}

int cf_sq8_use(int kernel) {
    switch (kernel) {
    case 0:
        sq8_dots = pick_dots();
        sq8_fdot = pick_fdot();
        return 1;
    case 1:
        sq8_dots = dots_scalar;
        sq8_fdot = fdot_ref;
        return 1;
#ifdef CF_X86
    case 2:
        if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
            return 0;
        }
        sq8_dots = dots_avx2;
        sq8_fdot = fdot_avx2;
        return 1;
    case 3:
        if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vnni")) {
            return 0;
        }
        sq8_dots = dots_vnni;
        sq8_fdot = fdot_avx512;
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
        sq8_rebuild(w.get());
        idx.release();
        *out = w.release();
    });
}

} // extern "C"
