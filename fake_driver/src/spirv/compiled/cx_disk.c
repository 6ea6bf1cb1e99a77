/* The compiled tier's on-disk cache (cx_disk.h). An entry is `<dir>/<32 hex digits of the key>.zfcx`: a header
 * (magic with the format's version, key, block count, record size, region count, image read count, object size, FNV-1a
 * of what follows), the block table and the object file, in host byte order (the key names the host). A reader trusts
 * nothing it has not checked: a short, damaged or foreign file is reported and ignored, and the next compile replaces
 * it. Writers never lock: each writes a file of its own and renames it over the entry, which POSIX makes atomic, so
 * readers see an old entry, a new one or none. The directory is kept under a size limit by removing the entries used
 * least recently; a process reading an entry another removes has its open file, one opening it after finds none. */
#include "cx_disk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ZF_CX_DISK_MAX_BYTES (256u << 20) /* an entry larger than this is not one of ours */

/* Makes each directory of path that does not exist (mode 0700: the code of the user's kernels). */
static bool zf_cx_mkdirs(const char *path) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return false;
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return mkdir(buf, 0700) == 0 || errno == EEXIST;
}

bool zf_cx_disk_dir(char *out, size_t out_size) {
    const char *off = getenv("ZEFAKE_CACHE");
    if (off != NULL && strcmp(off, "0") == 0)
        return false;
    const char *dir = getenv("ZEFAKE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (dir != NULL && dir[0] != '\0')
        n = snprintf(out, out_size, "%s", dir);
    else if (xdg != NULL && xdg[0] == '/') /* the XDG base directory specification ignores relative paths */
        n = snprintf(out, out_size, "%s/zefake", xdg);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(out, out_size, "%s/.cache/zefake", home);
    else
        return false;
    return n > 0 && (size_t)n < out_size;
}

void zf_cx_disk_path(const char *dir, zf_cx_key key, char *out, size_t out_size) {
    snprintf(out, out_size, "%s/%016llx%016llx.zfcx", dir, (unsigned long long)key.a, (unsigned long long)key.b);
}

void zf_cx_disk_symbol(zf_cx_key key, char *out, size_t out_size) {
    snprintf(out, out_size, "zf_cx_wave_%016llx%016llx", (unsigned long long)key.a, (unsigned long long)key.b);
}

static uint64_t zf_cx_disk_checksum(const zf_cx_object *object) {
    uint64_t h = zf_fnv1a(object->blocks, (size_t)object->num_blocks * sizeof *object->blocks, ZF_FNV1A_BASIS);
    return zf_fnv1a(object->bytes, object->size, h);
}

/* The whole file, or NULL (size 0 with errno ENOENT when there is none). */
static uint8_t *zf_cx_slurp(const char *path, size_t *size, char *why, size_t why_size) {
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    uint8_t *data = NULL;
    if (fstat(fd, &st) != 0)
        snprintf(why, why_size, "fstat: %s", strerror(errno));
    else if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        snprintf(why, why_size, "not this user's alone (its code would run in this process)");
    else if (st.st_size < (off_t)sizeof(zf_cx_disk_header) || st.st_size > ZF_CX_DISK_MAX_BYTES)
        snprintf(why, why_size, "%lld bytes, not an entry", (long long)st.st_size);
    else if ((data = malloc((size_t)st.st_size)) == NULL)
        snprintf(why, why_size, "out of host memory");
    size_t done = 0;
    while (data != NULL && done < (size_t)st.st_size) {
        ssize_t got = read(fd, data + done, (size_t)st.st_size - done);
        if (got <= 0) {
            snprintf(why, why_size, "read: %s", got < 0 ? strerror(errno) : "file shrank");
            free(data);
            data = NULL;
            break;
        }
        done += (size_t)got;
    }
    close(fd);
    *size = done;
    return data;
}

/* Checks the entry's header and checksum and copies it into out. */
static bool zf_cx_disk_parse(const uint8_t *data, size_t size, zf_cx_key key, zf_cx_object *out, char *why,
                             size_t why_size) {
    zf_cx_disk_header h;
    memcpy(&h, data, sizeof h);
    size_t body = size - sizeof h;
    if (memcmp(h.magic, ZF_CX_DISK_MAGIC, sizeof h.magic - 1) == 0 && h.magic[7] != ZF_CX_DISK_MAGIC[7]) {
        snprintf(why, why_size, "an entry of format version %c, not %c", h.magic[7], ZF_CX_DISK_MAGIC[7]);
        return false;
    }
    if (memcmp(h.magic, ZF_CX_DISK_MAGIC, sizeof h.magic) != 0 || h.key_a != key.a || h.key_b != key.b) {
        snprintf(why, why_size, "not an entry of this key");
        return false;
    }
    uint64_t blocks_size = (uint64_t)h.num_blocks * sizeof(zf_cx_block);
    if (blocks_size > body || h.object_size != body - blocks_size) {
        snprintf(why, why_size, "%zu bytes where the header announces %llu (truncated?)", size,
                 (unsigned long long)(sizeof h + blocks_size + h.object_size));
        return false;
    }
    if (h.step_lanes > ZF_CX_STEP_MAX) {
        snprintf(why, why_size, "an entry announcing %u work-items in step (at most %u)", h.step_lanes, ZF_CX_STEP_MAX);
        return false;
    }
    if (h.num_texsites > ZF_CX_MAX_TEXSITES) {
        snprintf(why, why_size, "an entry announcing %u image reads (at most %u)", h.num_texsites, ZF_CX_MAX_TEXSITES);
        return false;
    }
    out->num_blocks = h.num_blocks;
    out->spill_bytes = h.spill_bytes;
    out->num_regions = h.num_regions;
    out->num_texsites = h.num_texsites;
    out->num_proven = h.num_proven;
    out->num_derived = h.num_derived;
    out->num_affine = h.num_affine;
    out->wave_rows = h.wave_rows != 0;
    out->step_lanes = h.step_lanes;
    out->size = (size_t)h.object_size;
    out->blocks = malloc(blocks_size ? (size_t)blocks_size : 1);
    out->bytes = malloc(out->size ? out->size : 1);
    if (out->blocks == NULL || out->bytes == NULL) {
        snprintf(why, why_size, "out of host memory");
        return false;
    }
    memcpy(out->blocks, data + sizeof h, (size_t)blocks_size);
    memcpy(out->bytes, data + sizeof h + blocks_size, out->size);
    if (zf_cx_disk_checksum(out) != h.checksum) {
        snprintf(why, why_size, "checksum mismatch (damaged)");
        return false;
    }
    return true;
}

bool zf_cx_disk_read(const char *dir, zf_cx_key key, zf_cx_object *out, char *why, size_t why_size) {
    char path[4200];
    zf_cx_disk_path(dir, key, path, sizeof path);
    *out = (zf_cx_object){0};
    why[0] = '\0';
    size_t size = 0;
    uint8_t *data = zf_cx_slurp(path, &size, why, why_size);
    if (data == NULL)
        return false; /* why is empty when there is no entry at all */
    char reason[200] = "";
    bool ok = zf_cx_disk_parse(data, size, key, out, reason, sizeof reason);
    free(data);
    if (ok) /* used now: the last the size limit removes (an entry of a read-only cache keeps its time) */
        utimensat(AT_FDCWD, path, NULL, 0);
    if (!ok) {
        snprintf(why, why_size, "%s: %s", path, reason);
        free(out->blocks);
        free(out->bytes);
        *out = (zf_cx_object){0};
    }
    return ok;
}

static bool zf_cx_write_all(int fd, const void *data, size_t size) {
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t put = write(fd, p, size);
        if (put <= 0)
            return false;
        p += put;
        size -= (size_t)put;
    }
    return true;
}

bool zf_cx_disk_write(const char *dir, zf_cx_key key, const zf_cx_object *object, char *why, size_t why_size) {
    static _Atomic uint32_t serial;
    char path[4200], temp[4300];
    if (!zf_cx_mkdirs(dir)) {
        snprintf(why, why_size, "cannot make %s: %s", dir, strerror(errno));
        return false;
    }
    zf_cx_disk_path(dir, key, path, sizeof path);
    snprintf(temp, sizeof temp, "%s.%ld.%u.tmp", path, (long)getpid(), atomic_fetch_add(&serial, 1));
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, why_size, "cannot write %s: %s", temp, strerror(errno));
        return false;
    }
    zf_cx_disk_header h = {.key_a = key.a,
                           .key_b = key.b,
                           .num_blocks = object->num_blocks,
                           .spill_bytes = object->spill_bytes,
                           .num_regions = object->num_regions,
                           .num_texsites = object->num_texsites,
                           .num_proven = object->num_proven,
                           .num_derived = object->num_derived,
                           .num_affine = object->num_affine,
                           .wave_rows = object->wave_rows,
                           .step_lanes = object->step_lanes,
                           .object_size = object->size,
                           .checksum = zf_cx_disk_checksum(object)};
    memcpy(h.magic, ZF_CX_DISK_MAGIC, sizeof h.magic);
    bool ok = zf_cx_write_all(fd, &h, sizeof h) &&
              zf_cx_write_all(fd, object->blocks, (size_t)object->num_blocks * sizeof *object->blocks) &&
              zf_cx_write_all(fd, object->bytes, object->size);
    ok = close(fd) == 0 && ok;
    if (ok && rename(temp, path) == 0)
        return true;
    snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
    unlink(temp);
    return false;
}

#define ZF_CX_DISK_STALE_S 3600 /* a writer's temporary file this old belongs to a process that died writing */

typedef struct zf_cx_disk_file {
    struct timespec used;
    uint64_t bytes;
    char name[38]; /* 32 hex digits, .zfcx and the terminating zero */
} zf_cx_disk_file;

/* Whether name is an entry's (32 hex digits and .zfcx) or, with temp, a writer's temporary file of one. */
static bool zf_cx_disk_named(const char *name, bool temp) {
    for (int i = 0; i < 32; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    if (!temp)
        return strcmp(name + 32, ".zfcx") == 0;
    size_t n = strlen(name);
    return strncmp(name + 32, ".zfcx.", 6) == 0 && n > 42 && strcmp(name + n - 4, ".tmp") == 0;
}

static int zf_cx_disk_older(const void *x, const void *y) {
    const zf_cx_disk_file *a = x, *b = y;
    if (a->used.tv_sec != b->used.tv_sec)
        return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec)
        return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* dir's entries (this user's regular files) into *files, their bytes in *total; stale temporary files removed. */
static bool zf_cx_disk_list(int dfd, DIR *d, zf_cx_disk_file **files, size_t *count, uint64_t *total) {
    size_t cap = 0;
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        bool entry = zf_cx_disk_named(e->d_name, false), temp = !entry && zf_cx_disk_named(e->d_name, true);
        struct stat st;
        if ((!entry && !temp) || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        if (temp) {
            if (now - st.st_mtime > ZF_CX_DISK_STALE_S)
                unlinkat(dfd, e->d_name, 0);
            continue;
        }
        if (*count == cap) {
            size_t grown = cap ? 2 * cap : 256;
            zf_cx_disk_file *more = realloc(*files, grown * sizeof *more);
            if (more == NULL)
                return false;
            *files = more;
            cap = grown;
        }
        zf_cx_disk_file *f = &(*files)[(*count)++];
        f->used = st.st_mtim;
        f->bytes = (uint64_t)st.st_size;
        memcpy(f->name, e->d_name, sizeof f->name); /* zf_cx_disk_named checked its length */
        *total += f->bytes;
    }
    return true;
}

uint32_t zf_cx_disk_trim(const char *dir, uint64_t limit, zf_cx_key keep, uint64_t *freed) {
    *freed = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    zf_cx_disk_file *files = NULL;
    size_t count = 0;
    uint64_t total = 0;
    uint32_t removed = 0;
    char kept[4200];
    zf_cx_disk_path("", keep, kept, sizeof kept); /* "/<name>" */
    if (zf_cx_disk_list(dirfd(d), d, &files, &count, &total) && total > limit) {
        qsort(files, count, sizeof *files, zf_cx_disk_older);
        uint64_t target = limit - limit / 4;
        for (size_t i = 0; i < count && total > target; i++) {
            if (strcmp(files[i].name, kept + 1) == 0 || unlinkat(dirfd(d), files[i].name, 0) != 0)
                continue; /* another process may have removed it first */
            total -= files[i].bytes;
            *freed += files[i].bytes;
            removed++;
        }
    }
    free(files);
    closedir(d);
    return removed;
}
