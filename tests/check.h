/*
 * check.h — the few assertions the unit tests need. A failed CHECK prints file, line and the
 * expression and counts a failure; a test's main returns check_report().
 */
#ifndef MG_TEST_CHECK_H
#define MG_TEST_CHECK_H
#include <stdio.h>

static int check_failures_ = 0;
static int check_passes_ = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passes_++;                                                                       \
        } else {                                                                                   \
            check_failures_++;                                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
        }                                                                                          \
    } while (0)

/* CHECK_OK(ctx, call): the call returns MG_SUCCESS, else print the context's message. */
#define CHECK_OK(ctx, call)                                                                        \
    do {                                                                                           \
        mg_status st_ = (call);                                                                    \
        if (st_ == MG_SUCCESS) {                                                                   \
            check_passes_++;                                                                       \
        } else {                                                                                   \
            check_failures_++;                                                                     \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call,              \
                    mg_status_string(st_), mg_context_error(ctx));                                 \
        }                                                                                          \
    } while (0)

static inline int check_report(void) {
    printf("%d passed, %d failed\n", check_passes_, check_failures_);
    return check_failures_ ? 1 : 0;
}
#endif
