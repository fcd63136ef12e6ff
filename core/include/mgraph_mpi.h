/*
 * mgraph_mpi.h — a context over the ranks of an MPI communicator (include <mpi.h> first).
 *
 * The library itself does not link MPI (mgraph.h, mg_ranks): this header fills mg_ranks's
 * collectives with MPI calls on the caller's communicator, so a program that already uses MPI
 * writes
 *
 *     MPI_Init(&argc, &argv);
 *     mg_context_create(&ctx);
 *     mg_context_set_mpi(ctx, MPI_COMM_WORLD);       (first: it picks this rank's GPU)
 *     mg_context_set_backend(ctx, MG_BACKEND_GPU);   (optional)
 *     ... the same calls on every rank ...
 *     mg_context_free(&ctx);
 *     MPI_Finalize();
 *
 * The communicator must outlive the context. Counts past INT_MAX go in pieces (MPI counts are int).
 */
#ifndef MGRAPH_MPI_H
#define MGRAPH_MPI_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>

#include "mgraph.h"

/* One piece at most this many bytes: MPI's counts and displacements are int. */
#define MG__MPI_PIECE ((uint64_t)1 << 30)

static inline int mg__mpi_broadcast(void *user, void *buffer, uint64_t bytes, int root) {
    MPI_Comm comm = *(MPI_Comm *)user;
    for (uint64_t at = 0; at < bytes; at += MG__MPI_PIECE) {
        const uint64_t n = bytes - at < MG__MPI_PIECE ? bytes - at : MG__MPI_PIECE;
        const int rc = MPI_Bcast((char *)buffer + at, (int)n, MPI_BYTE, root, comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    return 0;
}

/* Each rank's block in turn from its owner: P broadcasts, which is what MPI_Allgatherv does for
 * blocks this large, with no int limits on the counts or the offsets. */
static inline int mg__mpi_allgatherv(void *user, void *buffer, const uint64_t *offset,
                                     const uint64_t *count) {
    MPI_Comm comm = *(MPI_Comm *)user;
    int size = 1;
    MPI_Comm_size(comm, &size);
    for (int r = 0; r < size; r++) {
        const int rc = mg__mpi_broadcast(user, (char *)buffer + offset[r], count[r], r);
        if (rc != 0) return rc;
    }
    return 0;
}

static inline int mg__mpi_allreduce_sum_u64(void *user, uint64_t *values, uint64_t count) {
    MPI_Comm comm = *(MPI_Comm *)user;
    const uint64_t piece = MG__MPI_PIECE / sizeof(uint64_t);
    for (uint64_t at = 0; at < count; at += piece) {
        const uint64_t n = count - at < piece ? count - at : piece;
        const int rc = MPI_Allreduce(MPI_IN_PLACE, values + at, (int)n, MPI_UINT64_T, MPI_SUM, comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    return 0;
}

/* ctx becomes one rank of comm (see mg_context_set_ranks). *comm is kept by address: a static
 * copy made here lives as long as the program, one per process (one communicator at a time). */
static inline mg_status mg_context_set_mpi(mg_context ctx, MPI_Comm comm) {
    static MPI_Comm kept;
    MPI_Comm local;
    int rank = 0, size = 1, local_rank = 0;
    kept = comm;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_rank(local, &local_rank);
        MPI_Comm_free(&local);
    }
    mg_ranks r;
    r.rank = rank;
    r.size = size;
    r.local_rank = local_rank;
    r.allgatherv = mg__mpi_allgatherv;
    r.broadcast = mg__mpi_broadcast;
    r.allreduce_sum_u64 = mg__mpi_allreduce_sum_u64;
    r.user = &kept;
    return mg_context_set_ranks(ctx, &r);
}

#endif /* MGRAPH_MPI_H */
