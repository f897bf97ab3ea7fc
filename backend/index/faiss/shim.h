//go:build cgo && !windows && !nofaiss

// C interface over the parts of FAISS's C++ API that Carrel uses.
//
// Every function that can fail returns NULL on success or a malloc'd,
// NUL-terminated error message that the caller must free(). No C++ exception
// ever leaves these functions.
#ifndef CARREL_FAISS_SHIM_H
#define CARREL_FAISS_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// cf_index is an IndexIDMap2 over a flat or HNSW inner-product index.
typedef struct cf_index cf_index;

enum { CF_KIND_FLAT = 1, CF_KIND_HNSW = 2, CF_KIND_IVF = 3 };

// cf_init tunes process-wide FAISS settings; call once before anything else.
void cf_init(void);

char* cf_new_flat_ip(int dim, cf_index** out);
char* cf_new_hnsw_ip(int dim, int m, cf_index** out);
// cf_new_ivf_ip trains an IVF-flat inner-product index with nlist lists on
// ntrain vectors (row after row); the index stores the caller's ids itself.
char* cf_new_ivf_ip(int dim, int64_t nlist, int64_t ntrain, const float* train,
                    cf_index** out);
void cf_free(cf_index* ix);

char* cf_set_nprobe(cf_index* ix, int64_t nprobe);
int64_t cf_nprobe(const cf_index* ix); // 0 unless IVF
int64_t cf_nlist(const cf_index* ix);  // 0 unless IVF
// cf_export copies every id (cf_len items) and its vector (cf_len * dim
// floats), in storage order.
char* cf_export(const cf_index* ix, int64_t* ids, float* vecs);

int cf_kind(const cf_index* ix);
int cf_dim(const cf_index* ix);
int64_t cf_len(const cf_index* ix);
int cf_contains(const cf_index* ix, int64_t id);
// cf_ids copies the external ids, in storage order, into out (cf_len items).
void cf_ids(const cf_index* ix, int64_t* out);

char* cf_set_ef_search(cf_index* ix, int ef);
int cf_ef_search(const cf_index* ix);

char* cf_add(cf_index* ix, int64_t n, const float* x, const int64_t* ids);
char* cf_remove(cf_index* ix, int64_t n, const int64_t* ids, int64_t* removed);

// Searches write k results; missing results have id -1.
char* cf_search(const cf_index* ix, const float* q, int64_t k, float* scores, int64_t* ids);
// cf_sq4_use picks the 4-bit scan's kernels (0 auto, 1 scalar, 2 AVX2, 3
// AVX-512 VNNI) for tests; it returns 0 if the CPU lacks it. Not for use
// while searches run.
int cf_sq4_use(int kernel);
// cf_sq4_parallel_rows sets the size from which the 4-bit scan is shared
// with helper threads (tests and benchmarks).
void cf_sq4_parallel_rows(int64_t rows);
// cf_search_exact is cf_search without the 4-bit scan of large flat indexes.
char* cf_search_exact(const cf_index* ix, const float* q, int64_t k, float* scores, int64_t* ids);
char* cf_search_filtered(const cf_index* ix, const float* q, int64_t k,
                         const int64_t* allow, int64_t nallow,
                         float* scores, int64_t* ids);

char* cf_reconstruct(const cf_index* ix, int64_t id, float* out, int* found);

// cf_write writes the index to path and fsyncs it before returning.
char* cf_write(const cf_index* ix, const char* path);
char* cf_read(const char* path, cf_index** out);

#ifdef __cplusplus
}
#endif

#endif
