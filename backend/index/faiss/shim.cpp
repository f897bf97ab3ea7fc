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
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    });
}

char* cf_search(const cf_index* ix, const float* q, int64_t k, float* scores, int64_t* ids) {
    return guard([&] {
        fill_missing(k, scores, ids);
        if (k <= 0 || ix->top()->ntotal == 0) {
            return; // HNSW has no entry point when empty
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
        auto* w = new cf_index{map, nullptr, kind};
        idx.release();
        *out = w;
    });
}

} // extern "C"
