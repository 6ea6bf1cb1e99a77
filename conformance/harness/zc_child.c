/* Child processes: fork (and exec), capture stdout and stderr, enforce a timeout.
 *
 * The child gets its own process group so that a timeout kills whatever it started too. Environments for exec are
 * built before fork: between fork and exec only async-signal-safe calls are made. */
#include "zc_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Output beyond this is read and dropped: a runaway child must not exhaust memory. */
#define ZC_CHILD_OUTPUT_MAX (4u << 20)

typedef struct zc_buffer {
    char *data;
    size_t length;
    size_t capacity;
} zc_buffer;

static void zc_buffer_append(zc_buffer *buffer, const char *bytes, size_t n) {
    if (buffer->length + n > ZC_CHILD_OUTPUT_MAX)
        n = ZC_CHILD_OUTPUT_MAX - buffer->length;
    if (buffer->length + n + 1 > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + n + 1)
            capacity *= 2;
        char *data = realloc(buffer->data, capacity);
        if (data == NULL)
            return;
        buffer->data = data;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, bytes, n);
    buffer->length += n;
    buffer->data[buffer->length] = '\0';
}

/* Captured outputs not yet freed. A failed assertion leaves the test with a longjmp before zc_child_free: listed
 * here, the outputs stay reachable and leak checkers do not report them. */
#define ZC_LIVE_OUTPUTS 64
static char *zc_live_outputs[ZC_LIVE_OUTPUTS];

static char *zc_output_track(char *output) {
    for (size_t i = 0; i < ZC_LIVE_OUTPUTS; i++) {
        if (zc_live_outputs[i] == NULL) {
            zc_live_outputs[i] = output;
            break;
        }
    }
    return output;
}

static void zc_output_free(char *output) {
    for (size_t i = 0; output != NULL && i < ZC_LIVE_OUTPUTS; i++) {
        if (zc_live_outputs[i] == output)
            zc_live_outputs[i] = NULL;
    }
    free(output);
}

static char *zc_buffer_take(zc_buffer *buffer) {
    return zc_output_track(buffer->data != NULL ? buffer->data : strdup(""));
}

static bool zc_env_matches(const char *entry, const char *change) {
    size_t name_length = strcspn(change, "=");
    return strncmp(entry, change, name_length) == 0 && entry[name_length] == '=';
}

static bool zc_env_changed(const char *entry, const char *const env[]) {
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (zc_env_matches(entry, env[i]))
            return true;
    }
    return false;
}

/* True when a later change names the same variable: the last change wins. */
static bool zc_env_overridden(const char *const env[], size_t i) {
    size_t name_length = strcspn(env[i], "=");
    for (size_t j = i + 1; env[j] != NULL; j++) {
        if (strncmp(env[j], env[i], name_length) == 0 && (env[j][name_length] == '=' || env[j][name_length] == '\0'))
            return true;
    }
    return false;
}

/* The current environment with `env` applied, for execve. The strings are shared with environ and env. */
static char **zc_env_build(const char *const env[]) {
    size_t n = 0, m = 0;
    while (environ[n] != NULL)
        n++;
    while (env != NULL && env[m] != NULL)
        m++;
    char **result = calloc(n + m + 1, sizeof *result);
    if (result == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!zc_env_changed(environ[i], env))
            result[k++] = environ[i];
    }
    for (size_t i = 0; i < m; i++) {
        if (strchr(env[i], '=') != NULL && !zc_env_overridden(env, i))
            result[k++] = (char *)env[i];
    }
    return result;
}

/* For forked functions: change this (child) process's environment in place. */
static void zc_env_apply(const char *const env[]) {
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        const char *eq = strchr(env[i], '=');
        if (eq == NULL) {
            unsetenv(env[i]);
            continue;
        }
        char name[256];
        size_t length = (size_t)(eq - env[i]) < sizeof name - 1 ? (size_t)(eq - env[i]) : sizeof name - 1;
        memcpy(name, env[i], length);
        name[length] = '\0';
        setenv(name, eq + 1, 1);
    }
}

static uint64_t zc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Redirects the child's standard streams; called between fork and exec. */
static void zc_child_stdio(int out_fd, int err_fd) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0)
        dup2(null_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    setpgid(0, 0);
}

/* Reads both pipes until they close or the deadline passes; returns false on timeout. */
static bool zc_collect(int fds[2], zc_buffer buffers[2], uint64_t deadline) {
    int open_fds = 2;
    while (open_fds > 0) {
        uint64_t now = zc_now_ms();
        if (now >= deadline)
            return false;
        struct pollfd pfd[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
        int ready = poll(pfd, 2, (int)(deadline - now));
        if (ready < 0 && errno == EINTR)
            continue;
        for (int i = 0; i < 2; i++) {
            if (fds[i] < 0 || pfd[i].revents == 0)
                continue;
            char chunk[4096];
            ssize_t n = read(fds[i], chunk, sizeof chunk);
            if (n > 0) {
                zc_buffer_append(&buffers[i], chunk, (size_t)n);
            } else if (n == 0 || errno != EINTR) {
                close(fds[i]);
                fds[i] = -1;
                open_fds--;
            }
        }
    }
    return true;
}

/* Waits for the child until the deadline (it may close its output and keep running); false on timeout. */
static bool zc_wait(pid_t pid, int *status, uint64_t deadline) {
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid)
            return true;
        if (done < 0 && errno != EINTR)
            return true;
        if (zc_now_ms() >= deadline)
            return false;
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
}

static void zc_finish(pid_t pid, int fds[2], unsigned timeout_ms, zc_child *child) {
    zc_buffer buffers[2] = {{0}, {0}};
    uint64_t deadline = zc_now_ms() + timeout_ms;
    int status = 0;
    bool in_time = zc_collect(fds, buffers, deadline) && zc_wait(pid, &status, deadline);
    if (!in_time) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        child->timed_out = true;
    }
    for (int i = 0; i < 2; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
    }
    child->exited = WIFEXITED(status);
    child->exit_code = child->exited ? WEXITSTATUS(status) : -1;
    child->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    child->out = zc_buffer_take(&buffers[0]);
    child->err = zc_buffer_take(&buffers[1]);
}

typedef struct zc_launch {
    const char *path; /* exec mode: the program; NULL for a function */
    char *const *argv;
    char **envp;
    int (*fn)(void *); /* function mode */
    void *arg;
    const char *const *env; /* function mode: applied in the child */
} zc_launch;

static void zc_child_body(const zc_launch *launch) {
    if (launch->fn == NULL) {
        execvpe(launch->path, launch->argv, launch->envp);
        static const char message[] = "zc: exec failed\n";
        ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
        (void)ignored;
        _exit(127);
    }
    zc_env_apply(launch->env);
    int status = launch->fn(launch->arg);
    fflush(NULL);
    /* _exit: the parent's atexit handlers and the loader's destructors belong to the parent. */
    _exit(status & 0xff);
}

static bool zc_launch_run(const zc_launch *launch, unsigned timeout_ms, zc_child *child) {
    memset(child, 0, sizeof *child);
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0)
        return false;
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return false;
    }
    fflush(NULL); /* or buffered output would be written twice */
    pid_t pid = fork();
    if (pid == 0) {
        zc_child_stdio(out_pipe[1], err_pipe[1]);
        zc_child_body(launch);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (pid < 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        return false;
    }
    setpgid(pid, pid); /* also here: whichever runs first, the group exists before a kill */
    int fds[2] = {out_pipe[0], err_pipe[0]};
    zc_finish(pid, fds, timeout_ms, child);
    return true;
}

bool zc_run_command(const char *const argv[], const char *const env[], unsigned timeout_ms, zc_child *child) {
    char **envp = zc_env_build(env);
    if (envp == NULL)
        return false;
    zc_launch launch = {.path = argv[0], .argv = (char *const *)argv, .envp = envp};
    bool started = zc_launch_run(&launch, timeout_ms, child);
    free(envp);
    return started;
}

bool zc_run_function(int (*fn)(void *), void *arg, const char *const env[], unsigned timeout_ms, zc_child *child) {
    zc_launch launch = {.fn = fn, .arg = arg, .env = env};
    return zc_launch_run(&launch, timeout_ms, child);
}

bool zc_run_self(const char *const args[], const char *const env[], unsigned timeout_ms, zc_child *child) {
    size_t n = 0;
    while (args != NULL && args[n] != NULL)
        n++;
    const char **argv = calloc(n + 2, sizeof *argv);
    if (argv == NULL)
        return false;
    argv[0] = "/proc/self/exe";
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = args[i];
    bool started = zc_run_command(argv, env, timeout_ms, child);
    free(argv);
    return started;
}

bool zc_run_child_mode(const char *mode, const char *const args[], const char *const env[], unsigned timeout_ms,
                       zc_child *child) {
    size_t n = 0;
    while (args != NULL && args[n] != NULL)
        n++;
    const char **all = calloc(n + 3, sizeof *all);
    if (all == NULL)
        return false;
    all[0] = "--zc-child";
    all[1] = mode;
    for (size_t i = 0; i < n; i++)
        all[i + 2] = args[i];
    bool started = zc_run_self(all, env, timeout_ms, child);
    free(all);
    return started;
}

bool zc_run_child_in_scenario(const char *mode, const char *yaml, unsigned timeout_ms, zc_child *child) {
    char path[] = "/tmp/zc_scenario_XXXXXX.yaml";
    int fd = mkstemps(path, 5);
    if (fd < 0)
        return false;
    size_t length = strlen(yaml);
    bool written = write(fd, yaml, length) == (ssize_t)length;
    close(fd);
    char variable[64 + sizeof path];
    snprintf(variable, sizeof variable, "ZEFAKE_SCENARIO=%s", path);
    const char *const env[] = {variable, NULL};
    bool ran = written && zc_run_child_mode(mode, NULL, env, timeout_ms, child);
    unlink(path);
    return ran;
}

void zc_child_free(zc_child *child) {
    zc_output_free(child->out);
    zc_output_free(child->err);
    child->out = child->err = NULL;
}

bool zc_child_ok(const zc_child *child) {
    return !child->timed_out && child->exited && child->exit_code == 0;
}

const char *zc_child_status(const zc_child *child, char *buf, size_t size) {
    if (child->timed_out)
        snprintf(buf, size, "timed out and was killed");
    else if (child->exited)
        snprintf(buf, size, "exit status %d", child->exit_code);
    else
        snprintf(buf, size, "signal %d (%s)", child->signal, strsignal(child->signal));
    return buf;
}

void zc_assert_child_ok_at(const zc_child *child, const char *what, const char *file, int line) {
    if (zc_child_ok(child))
        return;
    char status[128];
    zc_fail_at(file, line, "%s: the child ended with %s\n--- its stdout:\n%s--- its stderr:\n%s---", what,
               zc_child_status(child, status, sizeof status), child->out, child->err);
}

bool zc_child_value(const zc_child *child, const char *key, char *value, size_t size) {
    size_t key_length = strlen(key);
    for (const char *line = child->out; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (length > key_length && strncmp(line, key, key_length) == 0 && line[key_length] == '=') {
            size_t n = length - key_length - 1;
            if (n >= size)
                n = size - 1;
            memcpy(value, line + key_length + 1, n);
            value[n] = '\0';
            return true;
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return false;
}

uint64_t zc_child_number(const zc_child *child, const char *key) {
    char value[64];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("the child reported no '%s'; its stdout:\n%s\nits stderr:\n%s", key, child->out, child->err);
    char *end = NULL;
    errno = 0;
    unsigned long long number = strtoull(value, &end, 0);
    if (errno != 0 || end == value || *end != '\0')
        zc_fail("the child reported '%s=%s', not a number", key, value);
    return number;
}

void zc_hex_encode(const void *bytes, size_t size, char *text) {
    const unsigned char *b = bytes;
    for (size_t i = 0; i < size; i++)
        snprintf(text + 2 * i, 3, "%02x", b[i]);
    text[2 * size] = '\0';
}

bool zc_hex_decode(const char *text, void *bytes, size_t size) {
    if (strlen(text) != 2 * size || strspn(text, "0123456789abcdefABCDEF") != 2 * size)
        return false;
    unsigned char *b = bytes;
    for (size_t i = 0; i < size; i++) {
        unsigned value = 0;
        if (sscanf(text + 2 * i, "%2x", &value) != 1)
            return false;
        b[i] = (unsigned char)value;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Descriptors between processes */

typedef union zc_fd_control {
    struct cmsghdr header;
    char bytes[CMSG_SPACE(sizeof(int))];
} zc_fd_control;

bool zc_send_with_fd(int socket_fd, const void *data, size_t size, int fd) {
    struct iovec iov = {(void *)data, size};
    zc_fd_control control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
    return sendmsg(socket_fd, &message, 0) == (ssize_t)size;
}

int zc_receive_with_fd(int socket_fd, void *data, size_t size) {
    struct iovec iov = {data, size};
    zc_fd_control control;
    struct msghdr message = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    if (recvmsg(socket_fd, &message, 0) != (ssize_t)size)
        return -1;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message);
    if (cmsg == NULL || cmsg->cmsg_type != SCM_RIGHTS)
        return -1;
    int fd = -1;
    memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
    return fd;
}
