/* Scenario loading: YAML text → validated zf_scenario, from a string, a file, or a ZEFAKE_SCENARIO selector.
 *
 * Parsing runs in two passes over the text. The first streams libyaml events only to bound nesting depth and to
 * catch syntax errors and extra documents early, before any tree is built; the second loads the document and walks
 * it with the schema (scenario_schema.c). Nothing here is global, so loads may run concurrently. */
#include "scenario/scenario_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool zf_report_parser_error(const yaml_parser_t *parser, const char *source, char *error) {
    const char *problem = parser->problem ? parser->problem : "out of memory";
    const char *what = parser->error == YAML_MEMORY_ERROR ? "cannot parse" : "YAML syntax error";
    unsigned long line = (unsigned long)parser->problem_mark.line + 1;
    if (parser->context)
        zf_scenario_errorf(error, source, line, "%s: %s (%s at line %lu)", what, problem, parser->context,
                           (unsigned long)parser->context_mark.line + 1);
    else
        zf_scenario_errorf(error, source, line, "%s: %s", what, problem);
    return false;
}

typedef struct zf_scan_state {
    int depth;
    int documents;
    bool done;
} zf_scan_state;

static bool zf_scan_event(const yaml_event_t *event, zf_scan_state *state, const char *source, char *error) {
    unsigned long line = (unsigned long)event->start_mark.line + 1;
    switch (event->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++state->documents > 1) {
            zf_scenario_errorf(error, source, line, "a scenario file holds one YAML document, found a second one here");
            return false;
        }
        return true;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        if (++state->depth > ZF_SCENARIO_MAX_DEPTH) {
            zf_scenario_errorf(error, source, line, "nested deeper than %d levels", ZF_SCENARIO_MAX_DEPTH);
            return false;
        }
        return true;
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        state->depth--;
        return true;
    case YAML_STREAM_END_EVENT:
        state->done = true;
        return true;
    default:
        return true;
    }
}

static bool zf_prescan(const char *text, size_t length, const char *source, char *error) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        zf_scenario_errorf(error, source, 0, "cannot parse: out of memory");
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, length);
    zf_scan_state state = {0};
    bool ok = true;
    while (ok && !state.done) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event)) {
            ok = zf_report_parser_error(&parser, source, error);
            break;
        }
        ok = zf_scan_event(&event, &state, source, error);
        yaml_event_delete(&event);
    }
    yaml_parser_delete(&parser);
    return ok;
}

static bool zf_walk_document(yaml_document_t *doc, const char *source, zf_scenario *out, char *error) {
    yaml_node_t *root = yaml_document_get_root_node(doc);
    if (!root) {
        zf_scenario_errorf(error, source, 1, "the scenario is empty");
        return false;
    }
    zf_walk walk = {.doc = doc, .source = source, .error = error};
    return zf_scenario_walk_root(&walk, root, out);
}

static bool zf_load_document(const char *text, size_t length, const char *source, zf_scenario *out, char *error) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        zf_scenario_errorf(error, source, 0, "cannot parse: out of memory");
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, length);
    yaml_document_t doc;
    bool ok = yaml_parser_load(&parser, &doc) ? true : zf_report_parser_error(&parser, source, error);
    if (ok) {
        ok = zf_walk_document(&doc, source, out, error);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    return ok;
}

/* out->source is a label for messages; a path too long for it keeps its informative tail. */
static void zf_set_source(zf_scenario *out, const char *source) {
    size_t length = strlen(source);
    if (length < sizeof(out->source)) {
        memcpy(out->source, source, length + 1);
        return;
    }
    size_t keep = sizeof(out->source) - 4;
    memcpy(out->source, "...", 3);
    memcpy(out->source + 3, source + length - keep, keep + 1);
}

bool zf_scenario_parse(const char *yaml_text, size_t length, const char *source, zf_scenario *out,
                       char error[ZF_SCENARIO_ERROR_MAX]) {
    if (!error)
        return false;
    error[0] = '\0';
    source = source ? source : "<input>";
    if (!out || (!yaml_text && length > 0)) {
        zf_scenario_errorf(error, source, 0, "no scenario text or no result to fill");
        return false;
    }
    if (length > ZF_SCENARIO_MAX_BYTES) {
        zf_scenario_errorf(error, source, 0, "the scenario is %zu bytes, more than the limit of 1 MiB", length);
        return false;
    }
    memset(out, 0, sizeof(*out));
    zf_set_source(out, source);
    if (!yaml_text)
        yaml_text = "";
    return zf_prescan(yaml_text, length, source, error) && zf_load_document(yaml_text, length, source, out, error);
}

/* Reads at most ZF_SCENARIO_MAX_BYTES + 1 bytes, so an oversized (or endless) file is detected without reading it
 * all. */
static bool zf_read_all(int fd, const char *path, char *buffer, size_t *length, char *error) {
    size_t used = 0;
    while (used <= ZF_SCENARIO_MAX_BYTES) {
        ssize_t n = read(fd, buffer + used, ZF_SCENARIO_MAX_BYTES + 1 - used);
        if (n == 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            zf_scenario_errorf(error, path, 0, "cannot read: %m");
            return false;
        }
        used += (size_t)n;
    }
    if (used > ZF_SCENARIO_MAX_BYTES) {
        zf_scenario_errorf(error, path, 0, "the file is larger than the limit of 1 MiB");
        return false;
    }
    *length = used;
    return true;
}

static char *zf_read_file(const char *path, size_t *length, char *error) {
    /* O_NONBLOCK: opening a FIFO must not hang zeInit; non-regular files are refused below anyway. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        zf_scenario_errorf(error, path, 0, "cannot open: %m");
        return NULL;
    }
    struct stat st;
    char *buffer = NULL;
    if (fstat(fd, &st) != 0)
        zf_scenario_errorf(error, path, 0, "cannot stat: %m");
    else if (!S_ISREG(st.st_mode))
        zf_scenario_errorf(error, path, 0, "is not a regular file");
    else if (!(buffer = malloc(ZF_SCENARIO_MAX_BYTES + 1)))
        zf_scenario_errorf(error, path, 0, "cannot read: out of memory");
    if (buffer && !zf_read_all(fd, path, buffer, length, error)) {
        free(buffer);
        buffer = NULL;
    }
    close(fd);
    return buffer;
}

bool zf_scenario_load_file(const char *path, zf_scenario *out, char error[ZF_SCENARIO_ERROR_MAX]) {
    if (!error)
        return false;
    if (!path || !path[0]) {
        zf_scenario_errorf(error, "<no path>", 0, "no scenario file given");
        return false;
    }
    size_t length = 0;
    char *text = zf_read_file(path, &length, error);
    if (!text)
        return false;
    bool ok = zf_scenario_parse(text, length, path, out, error);
    free(text);
    return ok;
}

static bool zf_selector_is_path(const char *selector) {
    size_t length = strlen(selector);
    return strchr(selector, '/') || (length >= 5 && strcmp(selector + length - 5, ".yaml") == 0);
}

static void zf_unknown_name(const char *selector, char *error) {
    char known[256] = "";
    size_t used = 0;
    for (const zf_scenario_embedded *e = zf_scenario_embedded_table; e->name && used < sizeof(known); e++) {
        int n = snprintf(known + used, sizeof(known) - used, "%s%s", used ? ", " : "", e->name);
        used += n > 0 ? (size_t)n : 0;
    }
    zf_scenario_errorf(error, selector, 0,
                       "no shipped scenario has this name (known: %s); a file path must contain '/' or end in .yaml",
                       known);
}

bool zf_scenario_load(const char *selector, zf_scenario *out, char error[ZF_SCENARIO_ERROR_MAX]) {
    if (!error)
        return false;
    if (!selector || !selector[0])
        selector = "default";
    if (zf_selector_is_path(selector))
        return zf_scenario_load_file(selector, out, error);
    for (const zf_scenario_embedded *e = zf_scenario_embedded_table; e->name; e++) {
        if (strcmp(e->name, selector) != 0)
            continue;
        char source[ZF_SCENARIO_NAME_MAX + 16];
        snprintf(source, sizeof(source), "<embedded %s>", e->name);
        return zf_scenario_parse(e->yaml, e->length, source, out, error);
    }
    zf_unknown_name(selector, error);
    return false;
}
