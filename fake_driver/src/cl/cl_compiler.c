/* OpenCL C to SPIR-V: Debian's clang-14 (-x cl, -target spir64, -emit-llvm, the application's build options passed
 * through, __OPENCL_VERSION__ defined as the devices' OpenCL version, a relative -I resolved against the application's
 * working directory), the bitcode prepared for translation (cl_bitcode.c), then llvm-spirv-14, each compiler a child
 * process (posix_spawn) working in a temporary directory of its own. Their
 * standard error is the build log, as users of other OpenCL drivers expect it; the source is named program.cl in it.
 * ZEFAKE_CLANG and ZEFAKE_LLVM_SPIRV name other compilers (docs/opencl.md). */
#include "cl/zf_cl.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define ZFCL_MAX_ARGS 256

static const char *zfcl_tool(const char *variable, const char *fallback) {
    const char *v = getenv(variable);
    return v != NULL && *v != '\0' ? v : fallback;
}

static bool zfcl_write_file(const char *dir, const char *name, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0'; /* an include name with directories: make them */
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return false;
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static char *zfcl_read_file(const char *dir, const char *name, size_t *size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data != NULL) {
        data[n] = '\0';
        *size = (size_t)n;
    }
    return data;
}

/* Runs argv[0] in `dir` with its standard output and error appended to dir/log.txt; true when it exited with 0. */
static bool zfcl_run(const char *dir, char *const argv[]) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, dir);
    posix_spawn_file_actions_addopen(&actions, 2, "log.txt", O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        char note[256];
        snprintf(note, sizeof note, "zefake: cannot run %s: %s\n", argv[0], strerror(rc));
        FILE *f = NULL;
        char path[4096];
        snprintf(path, sizeof path, "%s/log.txt", dir);
        if ((f = fopen(path, "a")) != NULL) {
            fputs(note, f);
            fclose(f);
        }
        return false;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Splits the build options at blanks (double quotes group) into argv; the copy lives in `buffer`. */
static int zfcl_split(char *buffer, char **argv, int max) {
    int n = 0;
    char *p = buffer;
    while (*p != '\0' && n < max) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (*p == '\0')
            break;
        char *out = p;
        argv[n++] = out;
        bool quoted = false;
        while (*p != '\0' && (quoted || (*p != ' ' && *p != '\t' && *p != '\n'))) {
            if (*p == '"')
                quoted = !quoted;
            else
                *out++ = *p;
            p++;
        }
        if (*p != '\0')
            p++;
        *out = '\0';
    }
    return n;
}

static int zfcl_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* The include directories of -I<dir> and -I <dir> taken against the application's working directory, since clang runs
 * in the temporary directory: each relative one is replaced by an absolute path (malloc'ed into owned[], NULL for the
 * others). False when out of memory. */
static bool zfcl_absolute_includes(char **argv, int n, char **owned) {
    char cwd[4096];
    bool have_cwd = getcwd(cwd, sizeof cwd) != NULL;
    for (int i = 0; i < n; i++) {
        owned[i] = NULL;
        bool separate = strcmp(argv[i], "-I") == 0 && i + 1 < n;
        const char *path = separate ? argv[i + 1] : strncmp(argv[i], "-I", 2) == 0 ? argv[i] + 2 : NULL;
        if (path == NULL || *path == '\0' || *path == '/' || !have_cwd)
            continue;
        size_t size = strlen(cwd) + strlen(path) + 4;
        if ((owned[i] = malloc(size)) == NULL)
            return false;
        snprintf(owned[i], size, "-I%s/%s", cwd, path);
        argv[i] = owned[i];
        if (separate)
            argv[++i] = "";
    }
    return true;
}

/* Drops the empty words zfcl_absolute_includes left. */
static int zfcl_compact(char **argv, int n) {
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (argv[i][0] != '\0')
            argv[kept++] = argv[i];
    return kept;
}

static cl_int zfcl_clang(const char *dir, const char *options) {
    char *buffer = strdup(options != NULL ? options : "");
    if (buffer == NULL)
        return CL_OUT_OF_HOST_MEMORY;
    char *argv[ZFCL_MAX_ARGS + 16], *owned[ZFCL_MAX_ARGS] = {0};
    int n = 0;
    argv[n++] = (char *)zfcl_tool("ZEFAKE_CLANG", "clang-14");
    argv[n++] = "-c";
    argv[n++] = "-x";
    argv[n++] = "cl";
    argv[n++] = "-target";
    argv[n++] = "spir64";
    argv[n++] = "-emit-llvm";
    argv[n++] = "-Xclang";
    argv[n++] = "-finclude-default-header";
    argv[n++] = "-I.";
    argv[n++] = "-D__OPENCL_VERSION__=300"; /* CL_DEVICE_VERSION: OpenCL 3.0 (OpenCL C 3.0, "Predefined Macros") */
    bool has_std = strstr(buffer, "-cl-std=") != NULL;
    if (!has_std)
        argv[n++] = "-cl-std=CL1.2";
    int given = zfcl_split(buffer, argv + n, ZFCL_MAX_ARGS);
    bool ok = zfcl_absolute_includes(argv + n, given, owned);
    n += zfcl_compact(argv + n, given);
    argv[n++] = "-o";
    argv[n++] = "program.bc";
    argv[n++] = "program.cl";
    argv[n] = NULL;
    ok = ok && zfcl_run(dir, argv);
    for (int i = 0; i < given; i++)
        free(owned[i]);
    free(buffer);
    return ok ? CL_SUCCESS : CL_BUILD_PROGRAM_FAILURE;
}

static cl_int zfcl_llvm_spirv(const char *dir) {
    char *argv[] = {(char *)zfcl_tool("ZEFAKE_LLVM_SPIRV", "llvm-spirv-14"), "program.bc", "-o", "program.spv", NULL};
    return zfcl_run(dir, argv) ? CL_SUCCESS : CL_BUILD_PROGRAM_FAILURE;
}

static cl_int zfcl_prepare(const char *dir, const char *source, const zfcl_header *headers, cl_uint num_headers) {
    if (!zfcl_write_file(dir, "program.cl", source) || !zfcl_write_file(dir, "log.txt", ""))
        return CL_OUT_OF_RESOURCES;
    for (cl_uint i = 0; i < num_headers; i++)
        if (!zfcl_write_file(dir, headers[i].name, headers[i].source))
            return CL_OUT_OF_RESOURCES;
    return CL_SUCCESS;
}

/* Whether the options ask for the kernels' argument information (OpenCL 3.0, "Options for Querying Kernel Argument
 * Information"). */
static bool zfcl_wants_arg_info(const char *options) {
    for (const char *at = options; at != NULL && (at = strstr(at, "-cl-kernel-arg-info")) != NULL; at++) {
        char after = at[strlen("-cl-kernel-arg-info")];
        if ((at == options || at[-1] == ' ' || at[-1] == '\t') && (after == '\0' || after == ' ' || after == '\t'))
            return true;
    }
    return false;
}

cl_int zfcl_compile_source(const char *source, const char *options, const zfcl_header *headers, cl_uint num_headers,
                           bool compile_only, void **spirv, size_t *size, char **log, zfcl_arg_infos *infos) {
    *spirv = NULL;
    *log = NULL;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/zefake-cl-XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        return zfcl_fail(CL_OUT_OF_RESOURCES, "cannot make a temporary directory: %s", strerror(errno));
    cl_int err = zfcl_prepare(dir, source, headers, num_headers);
    if (err == CL_SUCCESS)
        err = zfcl_clang(dir, options);
    char bitcode[4200];
    snprintf(bitcode, sizeof bitcode, "%s/program.bc", dir);
    if (err == CL_SUCCESS)
        err = zfcl_prepare_bitcode(bitcode, infos, zfcl_wants_arg_info(options));
    if (err == CL_SUCCESS)
        err = zfcl_llvm_spirv(dir);
    if (err == CL_SUCCESS)
        *spirv = zfcl_read_file(dir, "program.spv", size);
    size_t log_size = 0;
    *log = zfcl_read_file(dir, "log.txt", &log_size);
    if (err == CL_SUCCESS && *spirv == NULL)
        err = CL_OUT_OF_RESOURCES;
    if (err == CL_BUILD_PROGRAM_FAILURE && *log != NULL &&
        (strstr(*log, "unknown argument") != NULL || strstr(*log, "unsupported option") != NULL))
        err = compile_only ? CL_INVALID_COMPILER_OPTIONS : CL_INVALID_BUILD_OPTIONS;
    else if (err == CL_BUILD_PROGRAM_FAILURE && compile_only)
        err = CL_COMPILE_PROGRAM_FAILURE;
    nftw(dir, zfcl_remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return err == CL_SUCCESS ? CL_SUCCESS : zfcl_fail(err, "the OpenCL C compilation failed; see the build log");
}
