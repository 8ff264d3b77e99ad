// The public headers must compile as C++ (C++11, -Wall -Wextra
// -Werror) and declare the functions with C linkage: this program includes
// the umbrella header, uses its types and macros, and links and calls the
// library through those declarations.  It needs no MPI job.
//
// Open MPI 4.1's <mpi.h> also pulls in its deprecated C++ bindings, whose
// own casts fail -Wextra -Werror (-Wcast-function-type, g++ 12) before a
// line of ours is read; they are not part of what this test checks, so they
// are left out the way Open MPI documents.  MPICH needs nothing.
#define OMPI_SKIP_MPICXX 1
#include <safecoll.h>

// The umbrella header is the runtime: the testing toolkit is not in it
// (tests/check-headers.sh checks every name), but its headers compile as
// C++ too.
#if defined(SAFECOLL_PROBE_H) || defined(SAFECOLL_GUIDELINE_H) || defined(SAFECOLL_SCALE_H) || \
    defined(SAFECOLL_TRACE_H)
#error "<safecoll.h> includes a testing toolkit header"
#endif
#include <safecoll/guideline.h>
#include <safecoll/probe.h>
#include <safecoll/scale.h>
#include <safecoll/trace.h>

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(SAFECOLL_VERSION_NUMBER == SAFECOLL_VERSION_MAJOR * 10000 +
                                             SAFECOLL_VERSION_MINOR * 100 +
                                             SAFECOLL_VERSION_PATCH,
              "SAFECOLL_VERSION_NUMBER is made of the three parts");
static_assert(std::is_same<decltype(&safecoll_version), int (*)()>::value,
              "safecoll_version() takes nothing and returns int");

int main()
{
    int failures = 0;

    if (safecoll_version() != SAFECOLL_VERSION_NUMBER) {
        std::fprintf(stderr, "safecoll_version() = %d, header says %d\n", safecoll_version(),
                     SAFECOLL_VERSION_NUMBER);
        failures++;
    }

    char expect[32];
    std::snprintf(expect, sizeof expect, "%d.%d.%d", SAFECOLL_VERSION_MAJOR,
                  SAFECOLL_VERSION_MINOR, SAFECOLL_VERSION_PATCH);
    const char *got = safecoll_version_string();
    if (got == nullptr || std::strcmp(got, expect) != 0) {
        std::fprintf(stderr, "safecoll_version_string() = \"%s\", expected \"%s\"\n",
                     got ? got : "(null)", expect);
        failures++;
    }

    if (safecoll_last_error() == nullptr) {
        std::fprintf(stderr, "safecoll_last_error() returned NULL\n");
        failures++;
    }

    // The enums are usable from C++ without casts from int.
    safecoll_coll coll = SAFECOLL_COLL_GATHERV;
    safecoll_strategy strategy = SAFECOLL_STRATEGY_AUTO;
    (void)coll;
    (void)strategy;

    // The toolkit headers declare their functions with C linkage as well.
    if (safecoll_probe_supported(SAFECOLL_COLL_GATHER) != 1 ||
        safecoll_guideline_supported(SAFECOLL_COLL_GATHER) != 1) {
        std::fprintf(stderr, "safecoll_probe_supported/safecoll_guideline_supported(gather) != 1\n");
        failures++;
    }
    safecoll_scale_term term;
    if (safecoll_scale_term_parse("p log p", &term) != MPI_SUCCESS || term.p_exp != 1 ||
        term.log_exp != 1) {
        std::fprintf(stderr, "safecoll_scale_term_parse(\"p log p\") is not p^1 log^1 p\n");
        failures++;
    }

    safecoll_trace_options topt;
    if (safecoll_trace_options_init(&topt) != MPI_SUCCESS || topt.min_ranks != 3 ||
        std::strcmp(safecoll_trace_kind_name(SAFECOLL_TRACE_BCAST), "bcast") != 0) {
        std::fprintf(stderr, "safecoll_trace_options_init/safecoll_trace_kind_name\n");
        failures++;
    }

    if (failures == 0)
        std::printf("C++ header test: %s, version %s\n", "ok", got);
    return failures == 0 ? 0 : 1;
}
