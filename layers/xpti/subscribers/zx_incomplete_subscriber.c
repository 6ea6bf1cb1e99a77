/* A subscriber that lacks xptiTraceFinish: the framework must not load it (the suite checks that its xptiTraceInit
 * is never called, which would print the line below). */
#include <stdio.h>

__attribute__((visibility("default"))) void xptiTraceInit(unsigned major, unsigned minor, const char *version_str,
                                                          const char *stream_name);

__attribute__((visibility("default"))) void xptiTraceInit(unsigned major, unsigned minor, const char *version_str,
                                                          const char *stream_name) {
    (void)major;
    (void)minor;
    (void)version_str;
    printf("zx_incomplete_subscriber: xptiTraceInit(%s)\n", stream_name);
    fflush(stdout);
}
