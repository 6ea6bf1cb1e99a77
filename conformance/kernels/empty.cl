/* A kernel that does nothing: launches of it cost only what the driver adds (bench/bench_exec.c). Not a built-in, so
 * it takes its modelled time. */
kernel void empty(global int *unused)
{
}
