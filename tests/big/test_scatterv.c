/*
 * safecoll_scatterv and safecoll_scatterv_c at real sizes, 4 ranks.
 *
 *   test_scatterv dense  (default) the int API: root 1 scatters 4 x
 *                        800,000,000 MPI_CHAR, displs[i] = i * n computed in
 *                        int, so displs[3] wraps to -1,894,967,296; gcd =
 *                        800,000,000 (bigtype applies). Allocates 3.2 GB at
 *                        the root to send and 0.8 GB per rank to receive:
 *                        6.4 GB in all.
 *   test_scatterv c      the _c API with a count and displacements past
 *                        INT_MAX: root 0 sends counts {100M, 2.2G, 100M,
 *                        100M} from displs {0, 100M, 2.3G, 2.4G}; rank 1
 *                        receives 2.2 G elements. Allocates 2.5 GB at the
 *                        root and 2.5 GB across the receivers: 5.0 GB.
 *
 * The strategy comes from SAFECOLL_STRATEGY; every rank checks every byte it
 * received.
 */
#include "big.h"

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "dense";
    int dense = strcmp(mode, "dense") == 0, rc, bad = 0, root;
    MPI_Count counts[4];
    MPI_Aint displs[4];
    int icounts[4], idispls[4];
    unsigned char *sendbuf = NULL, *recvbuf;
    size_t span;
    double t;

    if (!big_need_ranks(4))
        return 1;
    if (dense) {
        const long long n = 800000000;
        root = 1;
        for (int i = 0; i < 4; i++) {
            counts[i] = n;
            displs[i] = i * n;
            icounts[i] = (int)n;
            idispls[i] = big_wrap(i * n); /* the application's int product */
        }
    } else if (strcmp(mode, "c") == 0) {
        const MPI_Count c[4] = {100000000, 2200000000LL, 100000000, 100000000};
        root = 0;
        for (int i = 0; i < 4; i++) {
            counts[i] = c[i];
            displs[i] = i == 0 ? 0 : displs[i - 1] + (MPI_Aint)c[i - 1];
        }
    } else {
        if (big_rank == 0)
            printf("test_scatterv: unknown mode '%s' (dense or c)\n", mode);
        MPI_Finalize();
        return 2;
    }
    span = (size_t)(displs[3] + (MPI_Aint)counts[3]);

    /* The root fills every block; every rank zeroes its receive buffer. */
    recvbuf = big_map((size_t)counts[big_rank]);
    big_zero(recvbuf, (size_t)counts[big_rank], 0, (MPI_Aint)counts[big_rank], 0);
    if (big_rank == root) {
        sendbuf = big_map(span);
        for (int i = 0; i < 4; i++)
            big_fill(sendbuf + displs[i], 0, (MPI_Aint)counts[i], i);
    }
    big_phase("prepared");

    if (dense)
        BIG_TIMED(t, rc,
                  safecoll_scatterv(sendbuf, icounts, idispls, MPI_CHAR, recvbuf,
                                    icounts[big_rank], MPI_CHAR, root, MPI_COMM_WORLD));
    else
        BIG_TIMED(t, rc,
                  safecoll_scatterv_c(sendbuf, counts, displs, MPI_CHAR, recvbuf,
                                      counts[big_rank], MPI_CHAR, root, MPI_COMM_WORLD));
    big_phase("called");

    if (rc == MPI_SUCCESS)
        bad = big_check_block(recvbuf, (MPI_Aint)counts[big_rank], big_rank, 0, 0,
                              "received block of rank", big_rank);
    big_phase("checked");
    return big_finish(dense ? "scatterv-dense" : "scatterv_c-bigcount", SAFECOLL_COLL_SCATTERV,
                      forced, rc, bad, dense, t);
}
