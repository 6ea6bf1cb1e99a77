/* The string table and the object table (metadata values).
 *
 * Strings get ids from 1 in registration order; the same text always gets the same id and the same copy, which
 * stays valid while the library is loaded. xptiLookupString reads without a lock: ids index pages of atomic
 * pointers that are never moved. Objects are stored once per distinct (type, bytes), so repeated metadata values
 * (kernel names, sizes) do not make the table grow. */
#include "zx_fw.h"
#include "zx_util.h"

#include <stdlib.h>
#include <string.h>

#define ZX_STRINGS_PER_PAGE 1024
#define ZX_STRING_PAGES     4096 /* 4 Mi strings */

typedef struct zx_string {
    struct zx_string *chain; /* next string with the same hash */
    zx_xpti_string_id id;
    char text[];
} zx_string;

typedef struct zx_object {
    struct zx_object *chain;
    zx_xpti_object_id id;
    size_t size;
    uint8_t type;
    char data[]; /* size bytes and a NUL, so that string values can be read as C strings */
} zx_object;

static pthread_mutex_t zx_strings_lock = PTHREAD_MUTEX_INITIALIZER;
static zx_map zx_strings_by_hash;
static _Atomic(_Atomic(zx_string *) *) zx_string_pages[ZX_STRING_PAGES];
static int32_t zx_string_count;

static zx_vec zx_strings_forgotten; /* strings of before xptiReset: their copies stay valid */

static zx_map zx_objects_by_hash;
static zx_vec zx_objects; /* index = id */

/* ------------------------------------------------------------------------------------------------------------------
 * Strings */

static zx_string *zx_string_find(const char *text, uint64_t hash) {
    for (zx_string *s = zx_map_get(&zx_strings_by_hash, hash); s != NULL; s = s->chain) {
        if (strcmp(s->text, text) == 0)
            return s;
    }
    return NULL;
}

/* Under zx_strings_lock: the slot of an id, allocating its page; NULL when the table is full or out of memory. */
static _Atomic(zx_string *) *zx_string_slot(zx_xpti_string_id id) {
    size_t page_index = (size_t)id / ZX_STRINGS_PER_PAGE;
    if (page_index >= ZX_STRING_PAGES)
        return NULL;
    _Atomic(zx_string *) *page = atomic_load_explicit(&zx_string_pages[page_index], memory_order_relaxed);
    if (page == NULL) {
        page = calloc(ZX_STRINGS_PER_PAGE, sizeof *page);
        if (page == NULL)
            return NULL;
        atomic_store_explicit(&zx_string_pages[page_index], page, memory_order_release);
    }
    return &page[(size_t)id % ZX_STRINGS_PER_PAGE];
}

/* Under zx_strings_lock. The string is published for xptiLookupString last, once it is complete. */
static zx_string *zx_string_add(const char *text, uint64_t hash) {
    zx_xpti_string_id id = zx_string_count + 1;
    _Atomic(zx_string *) *slot = zx_string_slot(id);
    size_t length = strlen(text);
    zx_string *s = slot != NULL ? malloc(sizeof *s + length + 1) : NULL;
    if (s == NULL)
        return NULL;
    memcpy(s->text, text, length + 1);
    s->id = id;
    s->chain = zx_map_get(&zx_strings_by_hash, hash);
    if (!zx_map_put(&zx_strings_by_hash, hash, s)) {
        free(s);
        return NULL;
    }
    atomic_store_explicit(slot, s, memory_order_release);
    zx_string_count = id;
    return s;
}

const char *zx_fw_intern(const char *text, zx_xpti_string_id *id) {
    if (id != NULL)
        *id = ZX_XPTI_INVALID_ID;
    if (text == NULL)
        return NULL;
    uint64_t hash = zx_hash_string(text);
    pthread_mutex_lock(&zx_strings_lock);
    zx_string *s = zx_string_find(text, hash);
    if (s == NULL)
        s = zx_string_add(text, hash);
    pthread_mutex_unlock(&zx_strings_lock);
    if (s == NULL)
        return NULL;
    if (id != NULL)
        *id = s->id;
    return s->text;
}

/* As the framework: the invalid id for a NULL string or table_string, and for "" (then *table_string is NULL). */
ZX_FW_EXPORT zx_xpti_string_id xptiRegisterString(const char *string, char **table_string) {
    if (string == NULL || table_string == NULL)
        return ZX_XPTI_INVALID_ID;
    *table_string = NULL;
    if (string[0] == '\0')
        return ZX_XPTI_INVALID_ID;
    zx_xpti_string_id id;
    const char *copy = zx_fw_intern(string, &id);
    *table_string = (char *)copy;
    return id;
}

ZX_FW_EXPORT const char *xptiLookupString(zx_xpti_string_id id) {
    if (id <= 0 || (size_t)id / ZX_STRINGS_PER_PAGE >= ZX_STRING_PAGES)
        return NULL;
    _Atomic(zx_string *) *page =
        atomic_load_explicit(&zx_string_pages[(size_t)id / ZX_STRINGS_PER_PAGE], memory_order_acquire);
    if (page == NULL)
        return NULL;
    zx_string *s = atomic_load_explicit(&page[(size_t)id % ZX_STRINGS_PER_PAGE], memory_order_acquire);
    return s != NULL ? s->text : NULL;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Objects */

static uint64_t zx_object_hash(const char *data, size_t size, uint8_t type) {
    uint64_t h = 0xcbf29ce484222325ull ^ type;
    for (size_t i = 0; i < size; i++) {
        h ^= (unsigned char)data[i];
        h *= 0x100000001b3ull;
    }
    return zx_mix64(h ^ size);
}

/* Under zx_strings_lock. */
static zx_object *zx_object_add(const char *data, size_t size, uint8_t type, uint64_t hash) {
    zx_object *o = malloc(sizeof *o + size + 1);
    if (o == NULL)
        return NULL;
    memcpy(o->data, data, size);
    o->data[size] = '\0';
    o->size = size;
    o->type = type;
    o->chain = zx_map_get(&zx_objects_by_hash, hash);
    if (zx_objects.count >= INT32_MAX || !zx_vec_push(&zx_objects, o)) {
        free(o);
        return NULL;
    }
    o->id = (zx_xpti_object_id)(zx_objects.count - 1); /* from 0, as the framework */
    if (!zx_map_put(&zx_objects_by_hash, hash, o)) {
        zx_objects.count--;
        free(o);
        return NULL;
    }
    return o;
}

/* The id of a copy of the bytes (0, 1, ... as the framework); INVALID_ID for NULL data (as the framework), or out of
 * memory. */
ZX_FW_EXPORT zx_xpti_object_id xptiRegisterObject(const char *data, size_t size, uint8_t type) {
    if (data == NULL)
        return ZX_XPTI_INVALID_ID;
    uint64_t hash = zx_object_hash(data, size, type);
    pthread_mutex_lock(&zx_strings_lock);
    zx_object *o = zx_map_get(&zx_objects_by_hash, hash);
    while (o != NULL && (o->size != size || o->type != type || memcmp(o->data, data, size) != 0))
        o = o->chain;
    if (o == NULL)
        o = zx_object_add(data, size, type, hash);
    pthread_mutex_unlock(&zx_strings_lock);
    return o != NULL ? o->id : ZX_XPTI_INVALID_ID;
}

/* {0, NULL, 0} for an unknown id. */
ZX_FW_EXPORT zx_xpti_object_data xptiLookupObject(zx_xpti_object_id id) {
    zx_xpti_object_data result = {0, NULL, 0};
    pthread_mutex_lock(&zx_strings_lock);
    if (id >= 0 && (size_t)id < zx_objects.count) {
        const zx_object *o = zx_objects.items[id];
        result = (zx_xpti_object_data){o->size, o->data, o->type};
    }
    pthread_mutex_unlock(&zx_strings_lock);
    return result;
}

/* As the framework's reset: ids start again at 1. The strings themselves stay allocated (a stream name or a string a
 * subscriber holds stays readable) but are no longer found: the same text gets a new id and copy. */
void zx_fw_strings_reset(void) {
    pthread_mutex_lock(&zx_strings_lock);
    for (zx_xpti_string_id id = 1; id <= zx_string_count; id++) {
        _Atomic(zx_string *) *slot = zx_string_slot(id);
        zx_string *s = atomic_exchange_explicit(slot, NULL, memory_order_acq_rel);
        if (s != NULL)
            (void)zx_vec_push(&zx_strings_forgotten, s); /* kept reachable; were memory short, simply never freed */
    }
    zx_map_clear(&zx_strings_by_hash);
    zx_string_count = 0;
    pthread_mutex_unlock(&zx_strings_lock);
}
