/* The compiled tier's choice, compilation and caches (docs/spirv-execution.md, "Compiled tier").
 *
 * ZEFAKE_EXEC picks the tier per launch: `interp` never compiles, `compiled` compiles every kernel the tier handles
 * at its first launch, `auto` (the default) compiles a kernel at its first launch of at least ZF_CX_AUTO_ITEMS
 * work-items and then runs every later launch compiled. The first compile of a kernel is specialized to that launch's
 * group size (the sizes are constants in its code, as a GPU compiler or PoCL makes them, so that LLVM unrolls and
 * vectorises the loops over a group's work-items); a launch with another group size gets a second variant that reads
 * the size at run time, compiled once too. The outcome of each variant (code, or the reason it runs in the
 * interpreter) is kept with the form (zf_dprog.compiled), which belongs to one module and device, and logged at debug
 * level with the compile time.
 *
 * LLVM lives in a part of its own (cx_part.h), loaded at the first compile from the driver's directory: a process
 * that never compiles a kernel does not pay for loading LLVM. Without the part, kernels run in the interpreter. The
 * code of a kernel is looked up in the on-disk cache (cx_disk.h) before it is compiled, and written there after.
 * Each kernel has a lock of its own, so compiles of different kernels run at once; the generated code runs on any
 * thread without locks. */
#include "cx_disk.h"
#include "cx_elf.h"

#include <cpuid.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Launches smaller than this run in the interpreter under `auto`, until the kernel was compiled. */
#define ZF_CX_AUTO_ITEMS (1u << 16)

enum { ZF_CX_UNTRIED = 0, ZF_CX_COMPILED, ZF_CX_INTERPRETED };

/* A kernel's code for one group size (or any). */
typedef struct zf_cx_variant {
    _Atomic uint8_t state; /* set under the entry's lock, read by launches without it */
    zf_cx_kernel kernel;
    zf_xarg_kind *kinds; /* the argument kinds it was compiled for */
    zf_cx_image *image;  /* the linked code */
    bool looked;         /* the on-disk cache was looked in ahead of a launch (zf_cx_prefetch), under the lock */
} zf_cx_variant;

enum { ZF_CX_SPECIALIZED = 0, ZF_CX_GENERIC, ZF_CX_VARIANTS };

typedef struct zf_cx_entry {
    pthread_mutex_t lock; /* held while a variant is tried */
    zf_cx_variant variants[ZF_CX_VARIANTS];
    uint32_t group_size[3]; /* the specialized variant's, set before its state */
} zf_cx_entry;

struct zf_cx_cache {
    uint32_t num_kernels;
    zf_cx_entry *entries;
    zf_cx_key form; /* the hash of the decoded form (serialized), the first part of each kernel's key */
};

/* The part, loaded once. */
static struct {
    pthread_once_t once;
    const zf_cx_part *part;
    char why[4400]; /* why there is none */
} zf_cx_lib = {PTHREAD_ONCE_INIT, NULL, ""};

/* Forms get their cache under this lock (held briefly, never while compiling). */
static pthread_mutex_t zf_cx_caches_lock = PTHREAD_MUTEX_INITIALIZER;

#define ZF_CX_HELPER_ENTRY(fn) {#fn, (uint64_t)(uintptr_t)fn},
static const zf_cx_symbol zf_cx_helper_table[] = {ZF_CX_HELPERS(ZF_CX_HELPER_ENTRY)};

/* A part's file: next to the object holding this code (the driver, or a program linking the engine). */
static bool zf_cx_part_path_of(const char *file, char *out, size_t out_size) {
    Dl_info self;
    if (dladdr((void *)zf_cx_part_path_of, &self) == 0 || self.dli_fname == NULL)
        return false;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", self.dli_fname);
    return snprintf(out, out_size, "%s/%s", dirname(dir), file) < (int)out_size;
}

static bool zf_cx_part_path(char *out, size_t out_size) {
    return zf_cx_part_path_of(ZF_CX_PART_FILE, out, out_size);
}

void *zf_spirv_part_open(const char *file, const char *entry, void **symbol, char *why, size_t why_size) {
    char path[4200];
    *symbol = NULL;
    if (!zf_cx_part_path_of(file, path, sizeof path)) {
        snprintf(why, why_size, "the driver's own path is unknown");
        return NULL;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(why, why_size, "no %s: %s", file, dlerror());
        return NULL;
    }
    *symbol = dlsym(handle, entry);
    if (*symbol == NULL) {
        snprintf(why, why_size, "%s has no %s", path, entry);
        dlclose(handle);
        return NULL;
    }
    return handle;
}

static void zf_cx_lib_load(void) {
    char why[4300];
    void *symbol = NULL;
    void *handle = zf_spirv_part_open(ZF_CX_PART_FILE, ZF_CX_PART_ENTRY, &symbol, why, sizeof why);
    if (handle == NULL) {
        snprintf(zf_cx_lib.why, sizeof zf_cx_lib.why, "no compiled tier: %s", why);
        return;
    }
    const zf_cx_part *part = ((zf_cx_part_entry_fn)symbol)();
    if (part == NULL || part->abi != ZF_CX_PART_ABI || strcmp(part->version, ZEFAKE_VERSION) != 0) {
        snprintf(zf_cx_lib.why, sizeof zf_cx_lib.why, "%s is not the compiled tier of zefake %s", ZF_CX_PART_FILE,
                 ZEFAKE_VERSION);
        dlclose(handle);
        return;
    }
    zf_cx_host host = {.operand_sizes = zf_form_operand_sizes, .op_name = zf_xop_name};
    if (!part->start(&host, zf_cx_lib.why, sizeof zf_cx_lib.why))
        return; /* the part stays loaded: LLVM keeps state that unloading would not undo */
    zf_cx_lib.part = part;
}

/* What compiled code depends on besides its form, known without loading the part: the part's build (its GNU build
 * id, read from the file) and the host CPU (the CPUID leaves that name it and its features, which LLVM compiles
 * for). */
static struct {
    pthread_once_t once;
    char text[160];
    char why[4400]; /* why there is none */
} zf_cx_self = {PTHREAD_ONCE_INIT, "", ""};

static uint64_t zf_cx_cpu_hash(void) {
    static const unsigned leaves[][2] = {{0, 0}, {1, 0}, {7, 0}, {7, 1}, {0xd, 1}, {0x80000001u, 0}};
    uint64_t h = ZF_FNV1A_BASIS;
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        unsigned r[4] = {0, 0, 0, 0};
        __cpuid_count(leaves[i][0], leaves[i][1], r[0], r[1], r[2], r[3]);
        if (leaves[i][0] == 1)
            r[1] &= 0x00ffffffu; /* the initial APIC id differs from core to core */
        h = zf_fnv1a(r, sizeof r, h);
    }
    return h;
}

static void zf_cx_self_make(void) {
    char path[4200], build[96] = "";
    if (!zf_cx_part_path(path, sizeof path)) {
        snprintf(zf_cx_self.why, sizeof zf_cx_self.why, "the driver's own path is unknown");
        return;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *map = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0)
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0)
        close(fd);
    if (map == MAP_FAILED) {
        snprintf(zf_cx_self.why, sizeof zf_cx_self.why, "no compiled tier: %s: %s", path, strerror(errno));
        return;
    }
    bool found = zf_cx_elf_build_id(map, (size_t)st.st_size, build, sizeof build);
    munmap(map, (size_t)st.st_size);
    if (!found) {
        snprintf(zf_cx_self.why, sizeof zf_cx_self.why, "no compiled tier: %s has no build id", path);
        return;
    }
    snprintf(zf_cx_self.text, sizeof zf_cx_self.text, "%s/%s/%016llx", ZEFAKE_VERSION, build,
             (unsigned long long)zf_cx_cpu_hash());
}

/* The identity, or NULL with why. */
static const char *zf_cx_identity(char *why, size_t why_size) {
    pthread_once(&zf_cx_self.once, zf_cx_self_make);
    if (zf_cx_self.text[0] == '\0')
        snprintf(why, why_size, "%s", zf_cx_self.why);
    return zf_cx_self.text[0] != '\0' ? zf_cx_self.text : NULL;
}

/* The part, or NULL with why. */
static const zf_cx_part *zf_cx_part_get(char *why, size_t why_size) {
    pthread_once(&zf_cx_lib.once, zf_cx_lib_load);
    if (zf_cx_lib.part == NULL)
        snprintf(why, why_size, "%s", zf_cx_lib.why);
    return zf_cx_lib.part;
}

typedef enum zf_cx_mode { ZF_CX_AUTO, ZF_CX_INTERP, ZF_CX_ALWAYS } zf_cx_mode;

static zf_cx_mode zf_cx_mode_of_env(void) {
    const char *v = getenv("ZEFAKE_EXEC");
    if (v != NULL && strcasecmp(v, "interp") == 0)
        return ZF_CX_INTERP;
    if (v != NULL && strcasecmp(v, "compiled") == 0)
        return ZF_CX_ALWAYS;
    return ZF_CX_AUTO;
}

static void zf_cx_debug(const zf_xlaunch *launch, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void zf_cx_debug(const zf_xlaunch *launch, const char *format, ...) {
    if (launch->env == NULL || launch->env->debug == NULL)
        return;
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    launch->env->debug(launch->env->user, text);
}

static void zf_cx_warn(const zf_xlaunch *launch, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void zf_cx_warn(const zf_xlaunch *launch, const char *format, ...) {
    char text[768];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (launch->env != NULL && launch->env->warn != NULL)
        launch->env->warn(launch->env->user, text);
    else if (launch->env != NULL && launch->env->debug != NULL)
        launch->env->debug(launch->env->user, text);
}

static uint64_t zf_cx_now_us(void) {
    return zf_spirv_now_ns() / 1000u;
}

/* The form's hash: its serialization (which the SPIR-V, its specialization constants and the build options make). */
static zf_cx_key zf_cx_form_key(const zf_dprog *code) {
    size_t size = zf_form_size(code);
    uint8_t *bytes = malloc(size ? size : 1);
    zf_cx_key key = {0, 0};
    if (bytes == NULL)
        return key; /* no key: the disk cache is not used (zf_cx_disk_ok) */
    zf_form_write(code, bytes);
    key.a = zf_fnv1a(bytes, size, ZF_FNV1A_BASIS);
    key.b = zf_fnv1a(bytes, size, key.a ^ 0x9e3779b97f4a7c15ull);
    free(bytes);
    return key;
}

/* A kernel's key: the form's, the kernel, the group size it is specialized to (0s for any), its argument kinds and
 * the identity (zefake's version, the part's build, the host CPU). */
static zf_cx_key zf_cx_kernel_key(const struct zf_cx_cache *cache, const char *identity, const zf_xlaunch *launch,
                                  const uint32_t *group_size) {
    static const uint32_t any[3] = {0, 0, 0};
    zf_cx_key key = cache->form;
    for (int half = 0; half < 2; half++) {
        uint64_t *h = half == 0 ? &key.a : &key.b;
        *h = zf_fnv1a(&launch->kernel, sizeof launch->kernel, *h);
        *h = zf_fnv1a(group_size != NULL ? group_size : any, sizeof any, *h);
        for (uint32_t k = 0; k < launch->num_args; k++)
            *h = zf_fnv1a(&launch->args[k].kind, sizeof launch->args[k].kind, *h);
        *h = zf_fnv1a(identity, strlen(identity), *h);
    }
    return key;
}

static void zf_cx_object_free(zf_cx_object *object) {
    free(object->bytes);
    free(object->blocks);
    *object = (zf_cx_object){0};
}

/* The entry of the disk cache, when there is one that fits the form; a damaged one is a warning. */
static bool zf_cx_from_disk(const zf_xlaunch *launch, const char *dir, zf_cx_key key, zf_cx_object *object) {
    char why[640];
    if (!zf_cx_disk_read(dir, key, object, why, sizeof why)) {
        if (why[0] != '\0')
            zf_cx_warn(launch, "kernel '%s': ignoring a damaged entry of the compiled-code cache: %s", launch->name,
                       why);
        return false;
    }
    const zf_dprog *code = launch->program.code;
    for (uint32_t j = 0; j < object->num_blocks; j++)
        if (object->blocks[j].form_block >= code->num_blocks) {
            zf_cx_warn(launch, "kernel '%s': ignoring a damaged entry of the compiled-code cache: block %u",
                       launch->name, j);
            zf_cx_object_free(object);
            return false;
        }
    return true;
}

/* Links the object and makes it the variant's code. */
static bool zf_cx_install(const char *symbol, zf_cx_object *object, zf_cx_variant *entry, char *why, size_t why_size) {
    uint64_t address = 0;
    entry->image = zf_cx_elf_load(object->bytes, object->size, symbol, zf_cx_helper_table,
                                  sizeof zf_cx_helper_table / sizeof zf_cx_helper_table[0], &address, why, why_size);
    if (entry->image == NULL)
        return false;
    entry->kernel.wave = (void (*)(zf_cx_rt *))(uintptr_t)address;
    entry->kernel.blocks = object->blocks;
    entry->kernel.num_blocks = object->num_blocks;
    entry->kernel.spill_bytes = object->spill_bytes;
    entry->kernel.num_regions = object->num_regions;
    entry->kernel.num_texsites = object->num_texsites;
    entry->kernel.num_proven = object->num_proven;
    entry->kernel.num_derived = object->num_derived;
    entry->kernel.num_affine = object->num_affine;
    entry->kernel.wave_rows = object->wave_rows;
    entry->kernel.step_lanes = object->step_lanes;
    object->blocks = NULL;
    return true;
}

static bool zf_cx_keep_kinds(zf_cx_variant *entry, const zf_xlaunch *launch) {
    free(entry->kinds); /* a look ahead of the launch kept them already */
    entry->kinds = calloc(launch->num_args ? launch->num_args : 1, sizeof *entry->kinds);
    if (entry->kinds == NULL)
        return false;
    for (uint32_t k = 0; k < launch->num_args; k++)
        entry->kinds[k] = launch->args[k].kind;
    entry->kernel.num_params = launch->num_args;
    return true;
}

/* The kernel's code from the disk cache (the part is not loaded), ZF_CX_UNTRIED when it holds none. */
static uint8_t zf_cx_try_disk(const zf_xlaunch *launch, zf_cx_key key, const char *dir, const char *symbol,
                              zf_cx_variant *entry, char *why, size_t why_size) {
    zf_cx_object object = {0};
    uint8_t state = ZF_CX_UNTRIED;
    if (!zf_cx_from_disk(launch, dir, key, &object))
        return state;
    if (zf_cx_install(symbol, &object, entry, why, why_size)) {
        state = ZF_CX_COMPILED;
    } else {
        zf_cx_warn(launch, "kernel '%s': ignoring an entry of the compiled-code cache: %s", launch->name, why);
    }
    zf_cx_object_free(&object);
    return state;
}

static _Atomic uint64_t zf_cx_cache_limit = ZF_SPIRV_CACHE_DEFAULT_LIMIT;

void zf_spirv_set_cache_limit(uint64_t bytes) {
    atomic_store_explicit(&zf_cx_cache_limit, bytes ? bytes : ZF_SPIRV_CACHE_DEFAULT_LIMIT, memory_order_relaxed);
}

/* After a write: the cache directory kept under its size limit. */
static void zf_cx_keep_limit(const zf_xlaunch *launch, const char *dir, zf_cx_key key) {
    uint64_t bytes = atomic_load_explicit(&zf_cx_cache_limit, memory_order_relaxed);
    uint64_t freed = 0;
    uint32_t removed = zf_cx_disk_trim(dir, bytes, key, &freed);
    if (removed > 0)
        zf_cx_debug(launch,
                    "compiled-code cache: removed the %u entr%s used least recently (%llu KiB) to keep %s under %llu "
                    "KiB",
                    removed, removed == 1 ? "y" : "ies", (unsigned long long)(freed >> 10), dir,
                    (unsigned long long)(bytes >> 10));
}

/* The kernel compiled by the part, and written to the disk cache when there is one. */
static uint8_t zf_cx_try_part(const zf_xlaunch *launch, const uint32_t *group_size, zf_cx_key key, const char *dir,
                              const char *symbol, zf_cx_variant *entry, char *why, size_t why_size) {
    const zf_cx_part *part = zf_cx_part_get(why, why_size);
    if (part == NULL)
        return ZF_CX_INTERPRETED;
    zf_cx_object object = {0};
    if (!part->compile(launch->program.code, launch->kernel, entry->kinds, launch->num_args, group_size, symbol,
                       &object, why, why_size))
        return ZF_CX_INTERPRETED;
    char failed[4400];
    if (dir != NULL && !zf_cx_disk_write(dir, key, &object, failed, sizeof failed))
        zf_cx_debug(launch, "kernel '%s': not cached: %s", launch->name, failed);
    else if (dir != NULL)
        zf_cx_keep_limit(launch, dir, key);
    bool ok = zf_cx_install(symbol, &object, entry, why, why_size);
    zf_cx_object_free(&object);
    return ok ? ZF_CX_COMPILED : ZF_CX_INTERPRETED;
}

/* A variant's code from the disk cache, else compiled (unless disk_only); where it came from in *source. */
static uint8_t zf_cx_decide(struct zf_cx_cache *cache, const zf_xlaunch *launch, const uint32_t *group_size,
                            bool disk_only, zf_cx_variant *entry, const char **source, char *why, size_t why_size) {
    const char *identity = zf_cx_identity(why, why_size);
    if (identity == NULL)
        return ZF_CX_INTERPRETED;
    if (!zf_cx_keep_kinds(entry, launch)) {
        snprintf(why, why_size, "out of host memory");
        return ZF_CX_INTERPRETED;
    }
    zf_cx_key key = zf_cx_kernel_key(cache, identity, launch, group_size);
    char symbol[64], dir[4096];
    zf_cx_disk_symbol(key, symbol, sizeof symbol);
    bool disk = (cache->form.a | cache->form.b) != 0 && zf_cx_disk_dir(dir, sizeof dir);
    uint8_t state = disk ? zf_cx_try_disk(launch, key, dir, symbol, entry, why, why_size) : ZF_CX_UNTRIED;
    *source = state == ZF_CX_COMPILED ? "from the cache" : "";
    if (state == ZF_CX_UNTRIED && !disk_only)
        state = zf_cx_try_part(launch, group_size, key, disk ? dir : NULL, symbol, entry, why, why_size);
    return state;
}

/* The form's cache, made on first use. */
static struct zf_cx_cache *zf_cx_cache_of(zf_dprog *code) {
    pthread_mutex_lock(&zf_cx_caches_lock);
    struct zf_cx_cache *cache = code->compiled;
    if (cache == NULL && (cache = calloc(1, sizeof *cache)) != NULL) {
        cache->entries = calloc(code->num_kernels ? code->num_kernels : 1, sizeof *cache->entries);
        if (cache->entries == NULL) {
            free(cache);
            cache = NULL;
        }
    }
    if (cache != NULL && code->compiled == NULL) {
        cache->num_kernels = code->num_kernels;
        for (uint32_t k = 0; k < code->num_kernels; k++)
            pthread_mutex_init(&cache->entries[k].lock, NULL);
        cache->form = zf_cx_form_key(code);
        __atomic_store_n(&code->compiled, cache, __ATOMIC_RELEASE); /* launches look it up without the lock */
    }
    pthread_mutex_unlock(&zf_cx_caches_lock);
    return cache;
}

void zf_cx_prepare(const zf_dprog *code) {
    if (zf_cx_mode_of_env() == ZF_CX_INTERP)
        return;
    pthread_once(&zf_cx_self.once, zf_cx_self_make);
    zf_cx_cache_of((zf_dprog *)code); /* compiled code is derived data, as in zf_cx_for_launch */
}

static bool zf_cx_kinds_match(const zf_cx_variant *entry, const zf_xlaunch *launch) {
    if (entry->kernel.num_params != launch->num_args)
        return false;
    for (uint32_t k = 0; k < launch->num_args; k++)
        if (entry->kinds[k] != launch->args[k].kind)
            return false;
    return true;
}

static bool zf_cx_size_matches(const zf_cx_entry *entry, const zf_xlaunch *launch) {
    return memcmp(entry->group_size, launch->group_size, sizeof entry->group_size) == 0;
}

/* The variant a launch runs with: the specialized one while it is undecided, failed or of the launch's group size. */
static uint32_t zf_cx_variant_for(const zf_cx_entry *entry, const zf_xlaunch *launch) {
    /* acquire: a variant seen decided is seen with its code, argument kinds and group size */
    uint8_t first = atomic_load_explicit(&entry->variants[ZF_CX_SPECIALIZED].state, memory_order_acquire);
    return first != ZF_CX_COMPILED || zf_cx_size_matches(entry, launch) ? ZF_CX_SPECIALIZED : ZF_CX_GENERIC;
}

/* A decided variant's code for the launch (NULL: it runs in the interpreter), read without the lock; false while the
 * variant it needs is undecided. */
static bool zf_cx_decided(const zf_dprog *code, const zf_xlaunch *launch, const zf_cx_kernel **out) {
    struct zf_cx_cache *cache = __atomic_load_n(&code->compiled, __ATOMIC_ACQUIRE);
    if (cache == NULL || launch->kernel >= cache->num_kernels)
        return false;
    zf_cx_entry *entry = &cache->entries[launch->kernel];
    zf_cx_variant *variant = &entry->variants[zf_cx_variant_for(entry, launch)];
    uint8_t state = atomic_load_explicit(&variant->state, memory_order_acquire);
    if (state == ZF_CX_UNTRIED)
        return false;
    *out = state == ZF_CX_COMPILED && zf_cx_kinds_match(variant, launch) ? &variant->kernel : NULL;
    return true;
}

/* Decides the launch's variant when it is untried (the entry's lock held); disk_only: from the on-disk cache or not
 * at all (it stays untried). */
static void zf_cx_try(struct zf_cx_cache *cache, const zf_xlaunch *launch, zf_cx_entry *entry, uint32_t which,
                      bool disk_only) {
    char why[4500] = "";
    const char *source = "";
    uint64_t start = zf_cx_now_us();
    zf_cx_variant *variant = &entry->variants[which];
    if (which == ZF_CX_SPECIALIZED)
        memcpy(entry->group_size, launch->group_size, sizeof entry->group_size);
    uint8_t state = zf_cx_decide(cache, launch, which == ZF_CX_SPECIALIZED ? entry->group_size : NULL, disk_only,
                                 variant, &source, why, sizeof why);
    atomic_store_explicit(&variant->state, state, memory_order_release);
    if (state == ZF_CX_UNTRIED)
        return;
    char size[96] = "any group size";
    if (which == ZF_CX_SPECIALIZED)
        snprintf(size, sizeof size, "groups of %ux%ux%u", entry->group_size[0], entry->group_size[1],
                 entry->group_size[2]);
    char regions[160] = "";
    if (state == ZF_CX_COMPILED && variant->kernel.num_regions > 0)
        snprintf(regions, sizeof regions, ", barriers: %u regions, records of %u bytes", variant->kernel.num_regions,
                 variant->kernel.spill_bytes);
    else if (state == ZF_CX_COMPILED && variant->kernel.num_proven > 0)
        snprintf(
            regions, sizeof regions, ", %u access%s checked per group, %u block count%s derived, %u ind%s in 64 bits%s",
            variant->kernel.num_proven, variant->kernel.num_proven == 1 ? "" : "es", variant->kernel.num_derived,
            variant->kernel.num_derived == 1 ? "" : "s", variant->kernel.num_affine,
            variant->kernel.num_affine == 1 ? "ex" : "ices", variant->kernel.wave_rows ? ", rows across the wave" : "");
    else if (state == ZF_CX_COMPILED && variant->kernel.step_lanes > 0)
        snprintf(regions, sizeof regions, ", %u work-items in step", variant->kernel.step_lanes);
    if (state == ZF_CX_COMPILED)
        zf_cx_debug(launch, "kernel '%s': compiled in %.1f ms (%s, %u blocks%s%s%s)", launch->name,
                    (double)(zf_cx_now_us() - start) / 1000.0, size, variant->kernel.num_blocks, source[0] ? ", " : "",
                    source, regions);
    else
        zf_cx_debug(launch, "kernel '%s': runs in the interpreter: %s", launch->name, why);
}

bool zf_cx_rows_across_waves(const zf_cx_kernel *kernel) {
    return kernel->wave_rows != 0;
}

zf_tune *zf_cx_tune(const zf_cx_kernel *kernel) {
    return (zf_tune *)&kernel->tune; /* the kernel is a variant's, in the form's cache, which is not const */
}

const zf_cx_kernel *zf_cx_for_launch(const zf_xlaunch *launch) {
    zf_cx_mode mode = zf_cx_mode_of_env();
    if (mode == ZF_CX_INTERP)
        return NULL;
    /* The cache is the form's, which the driver keeps const for launches: compiled code is derived data. */
    zf_dprog *code = (zf_dprog *)launch->program.code;
    const zf_cx_kernel *result = NULL;
    if (zf_cx_decided(code, launch, &result))
        return result; /* every launch after the first decision: no lock */
    uint64_t items = (uint64_t)launch->group_size[0] * launch->group_size[1] * launch->group_size[2] *
                     launch->groups[0] * launch->groups[1] * launch->groups[2];
    if (mode == ZF_CX_AUTO && items < ZF_CX_AUTO_ITEMS)
        return NULL; /* small launches of an untried variant do not compile it */
    struct zf_cx_cache *cache = zf_cx_cache_of(code);
    if (cache == NULL || launch->kernel >= cache->num_kernels)
        return NULL;
    zf_cx_entry *entry = &cache->entries[launch->kernel];
    pthread_mutex_lock(&entry->lock);
    uint32_t which = zf_cx_variant_for(entry, launch);
    if (atomic_load_explicit(&entry->variants[which].state, memory_order_relaxed) == ZF_CX_UNTRIED)
        zf_cx_try(cache, launch, entry, which, false);
    pthread_mutex_unlock(&entry->lock);
    zf_cx_decided(code, launch, &result);
    return result;
}

void zf_cx_prefetch(const zf_xlaunch *launch) {
    zf_dprog *code = (zf_dprog *)launch->program.code; /* as in zf_cx_for_launch */
    const zf_cx_kernel *result = NULL;
    if (code == NULL || zf_cx_mode_of_env() == ZF_CX_INTERP || zf_cx_decided(code, launch, &result))
        return;
    struct zf_cx_cache *cache = zf_cx_cache_of(code);
    if (cache == NULL || launch->kernel >= cache->num_kernels)
        return;
    zf_cx_entry *entry = &cache->entries[launch->kernel];
    pthread_mutex_lock(&entry->lock);
    uint32_t which = zf_cx_variant_for(entry, launch);
    zf_cx_variant *variant = &entry->variants[which];
    if (atomic_load_explicit(&variant->state, memory_order_relaxed) == ZF_CX_UNTRIED && !variant->looked) {
        variant->looked = true; /* once: a kernel whose code is not there does not look at every group size set */
        zf_cx_try(cache, launch, entry, which, true);
    }
    pthread_mutex_unlock(&entry->lock);
}

void zf_cx_cache_free(struct zf_cx_cache *cache) {
    if (cache == NULL)
        return;
    for (uint32_t k = 0; k < cache->num_kernels; k++) {
        zf_cx_entry *entry = &cache->entries[k];
        for (uint32_t v = 0; v < ZF_CX_VARIANTS; v++) {
            zf_cx_elf_unload(entry->variants[v].image);
            free(entry->variants[v].kernel.blocks);
            free(entry->variants[v].kinds);
        }
        pthread_mutex_destroy(&entry->lock);
    }
    free(cache->entries);
    free(cache);
}
