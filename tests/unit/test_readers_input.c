/*
 * test_readers_input.c — the text readers (Matrix Market, SNAP, DIMACS) on input that is valid
 * but unusual, or hostile: CR-only line ends and a UTF-8 byte-order mark load like LF files; a NUL
 * byte or UTF-16 text fails saying so; a pipe and a /proc file (size 0, content all the same) are
 * read; a header count that a short body contradicts names the truncated line; a tiny file
 * whose header or ids claim millions of vertices fails at once, naming the file
 * and how to raise the limit (mg_read_options.max_vertices), and the option is honoured.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "temp_dir.h"
#include "mg_internal.h" /* mg__inject_alloc_failure */

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static mg_context ctx;


static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Reads path (format by extension unless opts says) and checks n, m, or prints why not. */
static void expect_graph(const char *path, const mg_read_options *opts, uint32_t n, uint64_t m) {
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_read(ctx, &g, path, opts));
    if (g == NULL) return;
    if (mg_graph_num_vertices(g) != n || mg_graph_num_edges(g) != m)
        fprintf(stderr, "%s: got %u vertices, %llu edges; want %u, %llu\n", path,
                mg_graph_num_vertices(g), (unsigned long long)mg_graph_num_edges(g), n,
                (unsigned long long)m);
    CHECK(mg_graph_num_vertices(g) == n && mg_graph_num_edges(g) == m);
    mg_graph_free(&g);
}

/* Reading path fails with status, and the message holds each of the phrases given. */
static void expect_failure(const char *path, const mg_read_options *opts, mg_status status,
                           const char *phrase1, const char *phrase2) {
    mg_graph g = NULL;
    mg_status st = mg_graph_read(ctx, &g, path, opts);
    const char *msg = mg_context_error(ctx);
    int ok = st == status && g == NULL && strstr(msg, path) != NULL &&
             (phrase1 == NULL || strstr(msg, phrase1) != NULL) &&
             (phrase2 == NULL || strstr(msg, phrase2) != NULL);
    if (!ok)
        fprintf(stderr, "%s: got %s, message \"%s\"; want %s with '%s' and '%s'\n", path,
                mg_status_string(st), msg, mg_status_string(status), phrase1 ? phrase1 : "",
                phrase2 ? phrase2 : "");
    CHECK(ok);
    mg_graph_free(&g);
}

#define LIT(s) s, sizeof s - 1

/* Old-Mac '\r' line ends: the same graphs as with '\n' (a lone '\r' used to be a space, so the
 * whole file was one line: "unexpected '3' after the banner's symmetry keyword"). */
static void test_cr_line_ends(void) {
    expect_graph(write_file(tmp("cr.mtx"), LIT("%%MatrixMarket matrix coordinate integer general\r"
                                          "% comment\r3 3 2\r1 2 5\r2 3 7\r")),
                 NULL, 3, 2);
    expect_graph(write_file(tmp("cr.txt"), LIT("# comment\r0 1\r1 2\r2 0")), NULL, 3, 3);
    expect_graph(write_file(tmp("cr.gr"), LIT("c comment\rp sp 3 2\ra 1 2 4\ra 2 3 1\r")), NULL, 3,
                 2);
    /* errors still name the right line */
    expect_failure(write_file(tmp("cr_bad.mtx"),
                              LIT("%%MatrixMarket matrix coordinate pattern general\r3 3 2\r"
                                  "1 2\r2 4\r")),
                   NULL, MG_PARSE_ERROR, ":4:", "out of range");
    /* CRLF keeps working */
    expect_graph(write_file(tmp("crlf.gr"), LIT("p sp 3 2\r\na 1 2 4\r\na 2 3 1\r\n")), NULL, 3, 2);
}

/* A UTF-8 byte-order mark (Windows editors write one) is skipped, as other readers do (it used to
 * make "missing banner"). UTF-16 text says what it is. */
static void test_byte_order_marks(void) {
    expect_graph(write_file(tmp("bom.mtx"), LIT("\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern "
                                           "symmetric\n3 3 2\n2 1\n3 2\n")),
                 NULL, 3, 4);
    expect_graph(write_file(tmp("bom.txt"), LIT("\xEF\xBB\xBF" "0 1\n1 2\n")), NULL, 3, 2);
    expect_graph(write_file(tmp("bom.gr"), LIT("\xEF\xBB\xBFp sp 2 1\na 1 2 1\n")), NULL, 2, 1);
    expect_failure(write_file(tmp("bom_only.txt"), LIT("\xEF\xBB\xBF")), NULL, MG_PARSE_ERROR, ":1:",
                   "empty");
    expect_failure(write_file(tmp("utf16.txt"), LIT("\xFF\xFE" "0\0 \0" "1\0\n\0")), NULL,
                   MG_PARSE_ERROR, ":1:", "UTF-16");
}

/* A NUL byte (binary data) is named as such, with its line and column (it used to make
 * "column index ''", the token cut at the NUL). */
static void test_nul_bytes(void) {
    expect_failure(write_file(tmp("nul_body.mtx"), LIT("%%MatrixMarket matrix coordinate pattern "
                                                  "general\n3 3 2\n1 2\n2 \0003\n")),
                   NULL, MG_PARSE_ERROR, ":4:", "NUL byte at column 3");
    expect_failure(write_file(tmp("nul_banner.mtx"), LIT("%%MatrixMarket\0 matrix coordinate")), NULL,
                   MG_PARSE_ERROR, ":1:", "NUL byte at column 15");
    expect_failure(write_file(tmp("nul_size.mtx"), LIT("%%MatrixMarket matrix coordinate pattern "
                                                  "general\n3 3\0 1\n1 2\n")),
                   NULL, MG_PARSE_ERROR, ":2:", "NUL byte");
    expect_failure(write_file(tmp("nul.txt"), LIT("0 1\n\0\0\0\0\n")), NULL, MG_PARSE_ERROR, ":2:",
                   "NUL byte at column 1");
    expect_failure(write_file(tmp("nul_first.txt"), LIT("0\0 1\n")), NULL, MG_PARSE_ERROR, ":1:",
                   "NUL byte");
    expect_failure(write_file(tmp("nul_problem.gr"), LIT("p sp 2\0 1\na 1 2 1\n")), NULL,
                   MG_PARSE_ERROR, ":1:", "NUL byte");
    expect_failure(write_file(tmp("nul_arc.gr"), LIT("p sp 2 1\n\0 1 2 1\n")), NULL, MG_PARSE_ERROR,
                   ":2:", "NUL byte");
    /* in a comment it harms nothing */
    expect_graph(write_file(tmp("nul_comment.txt"), LIT("# \0\n0 1\n")), NULL, 2, 1);
}

/* Files that are not regular files with a size: a pipe (`<(zcat g.txt.gz)`) and a /proc file
 * that reports size 0 are read to their end (they used to fail as "not a regular file" and
 * "the file is empty"); a device is refused. */
static void test_streams(void) {
    const char *fifo = tmp("pipe.txt");
    CHECK(mkfifo(fifo, 0600) == 0);
    static const char edges[] = "# from a pipe\n0 1\n1 2\n2 3\n";
    pid_t child = fork();
    if (child == 0) {
        FILE *f = fopen(fifo, "wb");
        /* more than one pipe buffer, so the reader must loop */
        for (int i = 0; i < 20000 && f != NULL; i++) fputs("# padding padding padding\n", f);
        if (f != NULL) fputs(edges, f);
        _exit(f != NULL && fclose(f) == 0 ? 0 : 1);
    }
    expect_graph(fifo, NULL, 4, 3);
    int wstatus = 0;
    CHECK(child > 0 && waitpid(child, &wstatus, 0) == child && WIFEXITED(wstatus) &&
          WEXITSTATUS(wstatus) == 0);

    /* a failed allocation while the pipe is read (the first buffer, then each growth) is
     * MG_OUT_OF_MEMORY naming the file, with nothing leaked (the sanitizer build checks) */
    signal(SIGPIPE, SIG_IGN);
    for (uint64_t k = 1; k <= 3; k++) {
        pid_t writer = fork();
        if (writer == 0) {
            FILE *f = fopen(fifo, "wb");
            for (int i = 0; i < 20000 && f != NULL; i++) fputs("# padding padding padding\n", f);
            _exit(0);
        }
        mg_graph g = NULL;
        mg__inject_alloc_failure(k);
        mg_status st = mg_graph_read(ctx, &g, fifo, NULL);
        mg__inject_alloc_failure(0);
        CHECK(st == MG_OUT_OF_MEMORY && g == NULL);
        CHECK(strstr(mg_context_error(ctx), "reading") != NULL &&
              strstr(mg_context_error(ctx), "pipe.txt") != NULL);
        waitpid(writer, NULL, 0);
    }

    /* /proc/self/stat is one line of ~50 words: read, and refused for its columns, not its size */
    mg_read_options opts;
    mg_read_options_init(&opts);
    opts.format = MG_FORMAT_SNAP;
    struct stat st;
    if (stat("/proc/self/stat", &st) == 0 && st.st_size == 0)
        expect_failure("/proc/self/stat", &opts, MG_PARSE_ERROR, ":1:", "2 or 3 columns");
    if (stat("/dev/zero", &st) == 0) {
        mg_graph g = NULL;
        CHECK(mg_graph_read(ctx, &g, "/dev/zero", &opts) == MG_IO_ERROR);
        CHECK(strstr(mg_context_error(ctx), "not a regular file or a pipe") != NULL);
    }
}

/* A few bytes that claim millions of vertices fail before anything is allocated (a 15-byte SNAP
 * file used to build a 16.7M-vertex graph, 400 MB; a 5 MB .mtx declaring 300M vertices took 7 GB
 * and 17 s), naming the file and the read option that raises the limit. */
static void test_vertex_limit(void) {
    /* 5 MB of entries under a header of 300M rows */
    const size_t lines = 5u << 18;
    char *mtx = malloc(lines * 4 + 100);
    if (mtx == NULL) exit(2);
    size_t len = (size_t)sprintf(mtx, "%%%%MatrixMarket matrix coordinate pattern general\n"
                                      "300000000 300000000 %zu\n", lines);
    for (size_t i = 0; i < lines; i++, len += 4) memcpy(mtx + len, "1 2\n", 4);
    char big[1024]; /* kept: tmp() reuses its buffers */
    snprintf(big, sizeof big, "%s", write_file(tmp("header_huge.mtx"), mtx, len));
    free(mtx);
    double t0 = now();
    expect_failure(write_file(tmp("tiny_huge.txt"), LIT("16777215 9296")), NULL, MG_PARSE_ERROR,
                   ":1:", "max_vertices");
    expect_failure(write_file(tmp("tiny_huge.gr"), LIT("p sp 100000000 1\na 1 2 1\n")), NULL,
                   MG_PARSE_ERROR, ":1:", "declares 100000000 vertices");
    expect_failure(big, NULL, MG_PARSE_ERROR, ":2:", "declares 300000000 vertices");
    const double seconds = now() - t0; /* the three reads, not the writing of the files */
    if (seconds >= 1.0) fprintf(stderr, "the vertex-limit failures took %.2f s\n", seconds);
    CHECK(seconds < 1.0);

    /* the option sets the limit, in both directions */
    mg_read_options opts;
    mg_read_options_init(&opts);
    CHECK(opts.max_vertices == 0);
    const char *ten = write_file(tmp("ten.txt"), LIT("0 1\n9 1\n"));
    opts.max_vertices = 9;
    expect_failure(ten, &opts, MG_PARSE_ERROR, ":2:", "max-vertices) allows 9 vertices");
    opts.max_vertices = 10;
    expect_graph(ten, &opts, 10, 2);
    const char *mm = write_file(tmp("ten.mtx"), LIT("%%MatrixMarket matrix coordinate pattern "
                                               "general\n10 10 1\n1 2\n"));
    opts.max_vertices = 9;
    expect_failure(mm, &opts, MG_PARSE_ERROR, ":2:", "declares 10 vertices");
    opts.max_vertices = 5000000; /* above the default for this file (2^22 + 4 per byte) */
    expect_failure(big, &opts, MG_PARSE_ERROR, ":2:", "max-vertices) allows 5000000");
    const char *gr = write_file(tmp("five_million.gr"), LIT("p sp 5000000 1\na 1 2 1\n"));
    expect_failure(gr, NULL, MG_PARSE_ERROR, ":1:", "may declare at most");
    expect_graph(gr, &opts, 5000000, 1);
}

/* A header count the bytes could hold as lines is left to the parse, which names the real fault:
 * a truncated line, or too few lines (a bound from the shortest complete entry used to report "the
 * rest of the file can hold at most 0" for a file whose only arc lacked its weight). */
static void test_short_bodies(void) {
    expect_failure(write_file(tmp("short_arc.gr"), LIT("p sp 3 1\na 1 2\n")), NULL, MG_PARSE_ERROR,
                   ":2:", "truncated line");
    expect_failure(write_file(tmp("one_short.gr"), LIT("p sp 3 2\na 1 2 1\n")), NULL,
                   MG_PARSE_ERROR, ":2:", "ends after 1 entries");
    expect_failure(write_file(tmp("short_entry.mtx"), LIT("%%MatrixMarket matrix coordinate integer "
                                                     "general\n2 2 1\n1 2\n")),
                   NULL, MG_PARSE_ERROR, ":3:", "truncated line");
    /* more entries than lines: still caught before the parse */
    expect_failure(write_file(tmp("many.mtx"), LIT("%%MatrixMarket matrix coordinate pattern "
                                              "general\n2 2 5\n1 2\n")),
                   NULL, MG_PARSE_ERROR, ":2:", "at most 2 lines");
}

int main(void) {
    if (temp_dir_make("readers") != 0) return 2;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 2;
    test_cr_line_ends();
    test_byte_order_marks();
    test_nul_bytes();
    test_streams();
    test_vertex_limit();
    test_short_bodies();
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
