/* An empty shared library: the baseline of zefake-bench-startup is the dlopen of a library that does nothing. */
int zb_empty(void);
int zb_empty(void) {
    return 0;
}
