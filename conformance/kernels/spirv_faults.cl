// Kernels that break the rules a device must survive (conformance/core/test_spirv_faults.c): private arrays indexed
// out of their bounds, and a kernel that never ends. Each must end in a device fault, never in a crash or a hang.

// The four elements of a private array as work-item get_global_id(0)'s four outputs.
void store4(global int *out, const int *a) {
    for (int k = 0; k < 4; k++)
        out[get_global_id(0) * 4 + k] = a[k];
}

// A private array written at index i: 0..3 are inside it, 4 and beyond overflow it.
kernel void private_overflow(global int *out, int i, int v) {
    int a[4] = {1, 2, 3, 4};
    a[i] = v;
    store4(out, a);
}

// The same overflow made by a loop in a function the array is passed to, one element too many for i >= 4.
__attribute__((noinline)) void fill_from(int *a, int n, int v) {
    for (int k = 0; k < n; k++)
        a[k] = v + k;
}

kernel void private_overflow_loop(global int *out, int i, int v) {
    int a[4];
    fill_from(a, 4, 0);
    fill_from(a, i + 1, v);
    store4(out, a);
}

// A private array read at 7 - i: below its start for i >= 8.
kernel void private_underflow(global int *out, int i) {
    int a[8];
    for (int k = 0; k < 8; k++)
        a[k] = k * (int)get_global_id(0);
    out[get_global_id(0) * 4] = a[7 - i];
}

// Spins until *flag is non-zero, which nothing ever writes.
kernel void spin(global volatile int *flag, global int *out) {
    while (*flag == 0)
        ;
    out[get_global_id(0)] = 1;
}

// Ends at once: the queue still works after a hang.
kernel void mark(global int *out) {
    out[get_global_id(0)] = 7;
}

// A float texel written to an integer image (undefined for OpenCL C): the engine converts it as its conversions do,
// saturating, NaN to 0, without undefined behaviour of its own.
kernel void float_to_int_image(write_only image2d_t image, float v) {
    write_imagef(image, (int2)(get_global_id(0), 0), (float4)(v, -v, v, 1.0f));
}

// printf with nothing to print: no output, no fault.
kernel void print_nothing(global int *out) {
    printf("%s", "");
    out[get_global_id(0)] = 1;
}
