/* Fuzz target: the compiled tier's on-disk cache entries (docs/spirv-execution.md, "Compiled tier"; docs/fuzzing.md).
 * An input is either an entry file (it starts with the entry magic, cx_disk.h) or a 16-byte key followed by an x86-64
 * ELF relocatable object, given to the object loader directly.
 *
 * An entry is written to a file of a private directory under the name of its own key and read back by the tier's
 * reader (zf_cx_disk_read): the header, the sizes and the checksum as the input has them. Then the same entry with
 * its object size and checksum made right is read again, so that mutations of the block table and of the object go
 * past the checksum and reach the loader. Whatever the reader accepts, and every direct object, is linked by the
 * loader (zf_cx_elf_load) with the helpers the generated code calls, and its build id read (zf_cx_elf_build_id).
 * The linked code is never run: the target only checks that the wave function's address lies in the image's
 * executable part, and unloads it. */
#include "compiled/cx_disk.h"
#include "compiled/cx_elf.h"
#include "zz_common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZZ_INPUT_LIMIT (1u << 20)
#define ZZ_KEY_BYTES   16u

#define ZZ_HELPER_ENTRY(fn) {#fn, (uint64_t)(uintptr_t)fn},
static const zf_cx_symbol zz_helpers[] = {ZF_CX_HELPERS(ZZ_HELPER_ENTRY)};

static char zz_dir[4096];

static void zz_remove_dir(void) {
    rmdir(zz_dir);
}

/* The private directory the entries are written to, made once. */
static const char *zz_entry_dir(void) {
    if (zz_dir[0] != '\0')
        return zz_dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(zz_dir, sizeof zz_dir, "%s/zefake-zz_cx_entry.XXXXXX", tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(zz_dir) == NULL) {
        perror("zz_cx_entry: mkdtemp");
        abort();
    }
    atexit(zz_remove_dir);
    return zz_dir;
}

static zf_cx_key zz_key_at(const uint8_t *p) {
    zf_cx_key key;
    memcpy(&key.a, p, 8);
    memcpy(&key.b, p + 8, 8);
    return key;
}

/* Links the object as the tier does, checks where the wave function landed and unloads it. */
static void zz_link(const uint8_t *object, size_t size, zf_cx_key key) {
    char hex[96], symbol[64], why[640];
    zf_cx_elf_build_id(object, size, hex, sizeof hex);
    zf_cx_disk_symbol(key, symbol, sizeof symbol);
    uint64_t address = 0;
    zf_cx_image *image = zf_cx_elf_load(object, size, symbol, zz_helpers, sizeof zz_helpers / sizeof zz_helpers[0],
                                        &address, why, sizeof why);
    if (image == NULL) {
        if (why[0] == '\0') {
            fprintf(stderr, "zz_cx_entry: an object was refused without a reason\n");
            abort();
        }
        return;
    }
    size_t code_size = 0;
    uintptr_t code = (uintptr_t)zf_cx_elf_code(image, &code_size);
    if (address < code || address - code >= code_size) {
        fprintf(stderr, "zz_cx_entry: the wave function (0x%llx) is not in the code [0x%llx, +%zu)\n",
                (unsigned long long)address, (unsigned long long)code, code_size);
        abort();
    }
    zf_cx_elf_unload(image);
}

/* Writes the entry as the file of key and reads it with the tier's reader; links what it accepts. */
static void zz_read_entry(const uint8_t *entry, size_t size, zf_cx_key key) {
    const char *dir = zz_entry_dir();
    char path[4200], why[640];
    zf_cx_disk_path(dir, key, path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, entry, size) != (ssize_t)size || close(fd) != 0) {
        perror("zz_cx_entry: writing the entry");
        abort();
    }
    zf_cx_object object = {0};
    bool ok = zf_cx_disk_read(dir, key, &object, why, sizeof why);
    unlink(path);
    if (ok)
        zz_link(object.bytes, object.size, key);
    else if (why[0] == '\0') {
        fprintf(stderr, "zz_cx_entry: an entry was refused without a reason\n");
        abort();
    }
    free(object.bytes);
    free(object.blocks);
}

/* The entry with the object size that its length and block count give, and the checksum of what follows the header:
 * the fields a mutation almost never gets right. False when it was right already. */
static bool zz_seal(uint8_t *entry, size_t size) {
    zf_cx_disk_header h;
    memcpy(&h, entry, sizeof h);
    uint64_t blocks = (uint64_t)h.num_blocks * sizeof(zf_cx_block), body = size - sizeof h;
    zf_cx_disk_header sealed = h;
    if (blocks <= body)
        sealed.object_size = body - blocks;
    sealed.checksum = zf_fnv1a(entry + sizeof h, (size_t)body, ZF_FNV1A_BASIS);
    memcpy(entry, &sealed, sizeof sealed);
    return memcmp(&h, &sealed, sizeof h) != 0;
}

static void zz_entry(const uint8_t *data, size_t size) {
    zf_cx_key key = zz_key_at(data + offsetof(zf_cx_disk_header, key_a));
    zz_read_entry(data, size, key);
    if (size < sizeof(zf_cx_disk_header))
        return;
    uint8_t *copy = malloc(size);
    if (copy == NULL)
        return;
    memcpy(copy, data, size);
    if (zz_seal(copy, size))
        zz_read_entry(copy, size, key);
    free(copy);
}

/* A key and an object: the object copied to memory of its own (aligned as the reader's copy is). */
static void zz_object(const uint8_t *data, size_t size) {
    if (size < ZZ_KEY_BYTES)
        return;
    size_t object_size = size - ZZ_KEY_BYTES;
    uint8_t *object = malloc(object_size ? object_size : 1);
    if (object == NULL)
        return;
    memcpy(object, data + ZZ_KEY_BYTES, object_size);
    zz_link(object, object_size, zz_key_at(data));
    free(object);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > ZZ_INPUT_LIMIT)
        return 0;
    size_t magic = strlen(ZF_CX_DISK_MAGIC);
    if (size >= offsetof(zf_cx_disk_header, key_b) + 8 && memcmp(data, ZF_CX_DISK_MAGIC, magic) == 0)
        zz_entry(data, size);
    else
        zz_object(data, size);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
