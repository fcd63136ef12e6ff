/*
 * test_output.c — mg_output, the file that appears whole or not at all (mg_graph_write and the
 * CLI's result files): nothing at the path before the commit, the umask's mode, nothing left after
 * mg_output_free, a symbolic link's target replaced with the link kept, a device written through
 * (/dev/full's ENOSPC at the commit, naming the path), refusals (a directory, a link to nothing),
 * and handles checked.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "temp_dir.h"
#include "mgraph.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mg_context ctx;

/* Files in tmpdir (not . and ..). */
static int entries(void) {
    DIR *d = opendir(tmpdir);
    int count = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d != NULL) closedir(d);
    return count;
}

static bool holds(const char *path, const char *text) {
    char buf[64] = "";
    FILE *f = fopen(path, "rb");
    if (f == NULL) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

static void test_commit_and_free(void) {
    mg_output out = NULL;
    FILE *f = NULL;
    mode_t old = umask(027);
    CHECK_OK(ctx, mg_output_open(ctx, &out, tmp("a.txt"), &f));
    CHECK(out != NULL && f != NULL);
    if (f != NULL) fputs("hello\n", f);
    struct stat st;
    CHECK(stat(tmp("a.txt"), &st) != 0 && errno == ENOENT); /* not there before the commit */
    CHECK_OK(ctx, mg_output_commit(ctx, &out));
    CHECK(out == NULL);
    CHECK(holds(tmp("a.txt"), "hello\n"));
    CHECK(stat(tmp("a.txt"), &st) == 0 && (st.st_mode & 0777) == 0640);
    umask(old);
    CHECK(entries() == 1);

    /* freed before the commit: the old file stays, the temporary goes */
    CHECK_OK(ctx, mg_output_open(ctx, &out, tmp("a.txt"), &f));
    if (f != NULL) fputs("half", f);
    CHECK(entries() == 2);
    CHECK(mg_output_free(&out) == MG_SUCCESS && out == NULL);
    CHECK(mg_output_free(&out) == MG_SUCCESS); /* NULL is fine */
    CHECK(holds(tmp("a.txt"), "hello\n"));
    CHECK(entries() == 1);
}

static void test_links_and_devices(void) {
    mg_output out = NULL;
    FILE *f = NULL;
    /* a link: its target is replaced, the link stays a link */
    CHECK(symlink("a.txt", tmp("link")) == 0);
    CHECK_OK(ctx, mg_output_open(ctx, &out, tmp("link"), &f));
    if (f != NULL) fputs("through the link\n", f);
    CHECK_OK(ctx, mg_output_commit(ctx, &out));
    struct stat st;
    CHECK(lstat(tmp("link"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(holds(tmp("a.txt"), "through the link\n"));
    /* a link to a device: written through; /dev/full fails at the commit, naming the path */
    CHECK(symlink("/dev/null", tmp("null")) == 0);
    CHECK_OK(ctx, mg_output_open(ctx, &out, tmp("null"), &f));
    if (f != NULL) fputs("gone\n", f);
    CHECK_OK(ctx, mg_output_commit(ctx, &out));
    CHECK(lstat(tmp("null"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(symlink("/dev/full", tmp("full")) == 0);
    CHECK_OK(ctx, mg_output_open(ctx, &out, tmp("full"), &f));
    if (f != NULL) fputs("no room\n", f);
    CHECK(mg_output_commit(ctx, &out) == MG_IO_ERROR && out == NULL);
    CHECK(strstr(mg_context_error(ctx), "full") != NULL);
    CHECK(strstr(mg_context_error(ctx), strerror(ENOSPC)) != NULL);
    CHECK(lstat(tmp("full"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(entries() == 4); /* a.txt and the three links: no temporaries */
    /* refused: a link to nothing, a directory, a missing folder */
    CHECK(symlink("nothing", tmp("dangling")) == 0);
    CHECK(mg_output_open(ctx, &out, tmp("dangling"), &f) == MG_IO_ERROR && out == NULL);
    CHECK(strstr(mg_context_error(ctx), "dangling") != NULL);
    CHECK(mg_output_open(ctx, &out, tmpdir, &f) == MG_IO_ERROR && out == NULL);
    CHECK(strstr(mg_context_error(ctx), "is a directory") != NULL);
    CHECK(mg_output_open(ctx, &out, tmp("no/such/x.txt"), &f) == MG_IO_ERROR);
    CHECK(strstr(mg_context_error(ctx), "no/such/x.txt") != NULL);
    CHECK(lstat(tmp("nothing"), &st) != 0);
    CHECK(entries() == 5);
}

static void test_arguments(void) {
    mg_output out = NULL;
    FILE *f = NULL;
    CHECK(mg_output_open(ctx, NULL, tmp("b.txt"), &f) == MG_INVALID_ARGUMENT);
    CHECK(mg_output_open(ctx, &out, tmp("b.txt"), NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_output_open(ctx, &out, NULL, &f) == MG_INVALID_ARGUMENT);
    CHECK(mg_output_open(NULL, &out, tmp("b.txt"), &f) != MG_SUCCESS);
    CHECK(mg_output_commit(ctx, &out) == MG_INVALID_ARGUMENT);
    /* a garbage handle is caught by its magic */
    uint64_t garbage[8] = {0};
    mg_output bad = (mg_output)(void *)garbage;
    CHECK(mg_output_commit(ctx, &bad) == MG_INVALID_OBJECT);
    CHECK(mg_output_free(&bad) == MG_INVALID_OBJECT);
}

int main(void) {
    if (temp_dir_make("output") != 0 || mg_context_create(&ctx) != MG_SUCCESS) return 2;
    test_commit_and_free();
    test_links_and_devices();
    test_arguments();
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
