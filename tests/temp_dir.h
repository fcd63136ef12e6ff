/*
 * temp_dir.h — a unit test's scratch folder: temp_dir_make("stem") makes /tmp/mg_test_stem_XXXXXX,
 * tmp("name") gives a path in it (four rotating buffers, so a call may take several),
 * write_file(path, bytes, len) puts a file there, and temp_dir_remove() removes it with everything
 * in it. Include after check.h, with
 * _POSIX_C_SOURCE 200809L defined (mkdtemp).
 */
#ifndef MG_TEST_TEMP_DIR_H
#define MG_TEST_TEMP_DIR_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

/* 0 on success; otherwise prints why and returns 2 (the tests' exit code for a broken setup). */
static inline int temp_dir_make(const char *stem) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mg_test_%s_XXXXXX", stem);
    if (mkdtemp(tmpdir) != NULL) return 0;
    perror("mkdtemp");
    return 2;
}

static inline const char *tmp(const char *name) {
    static char buf[4][1024];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

/* Writes len bytes of content to path (exits 2 when it cannot: a broken setup); returns path. */
static inline const char *write_file(const char *path, const char *content, size_t len) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    if (fwrite(content, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
    return path;
}

static inline void temp_dir_remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[4096];
        const int len = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (len < 0 || (size_t)len >= sizeof path) continue; /* not made by a test */
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            chmod(path, 0755); /* a test may have made it unreadable */
            temp_dir_remove_tree(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}

static inline void temp_dir_remove(void) { temp_dir_remove_tree(tmpdir); }
#endif
