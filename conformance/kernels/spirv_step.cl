// Kernels whose work-items the compiled tier runs side by side (docs/spirv-execution.md, "Work-items in step"), and
// kernels that look like them but must not or must leave the copy in step (test_spirv_engine.c).

// A naive matrix product: one chain of additions per work-item, a load every work-item of a row makes alike.
kernel void step_gemm(global const float *a, global const float *b, global float *c, uint n)
{
    uint col = get_global_id(0), row = get_global_id(1);
    float sum = 0.0f;
    for (uint k = 0; k < n; k++)
        sum += a[row * n + k] * b[k * n + col];
    c[row * n + col] = sum;
}

// A branch on the row inside the loop: the same for the work-items of a row.
kernel void step_rows(global const float *in, global float *out, uint width, uint n)
{
    uint x = get_global_id(0), y = get_global_id(1);
    float s = 1.0f;
    for (uint k = 0; k < n; k++) {
        if ((y + k) & 1)
            s = s * 0.5f + in[k * width + x];
        else
            s -= in[k * width + x] * 0.25f;
    }
    out[y * width + x] = s;
}

// A branch on x inside the loop: the work-items of a row take different paths, so they run one by one.
kernel void step_diverge(global const float *in, global float *out, uint width, uint n)
{
    uint x = get_global_id(0);
    float s = 0.0f;
    for (uint k = 0; k < n; k++)
        if ((x + k) % 3 == 0)
            s += in[k * width + x];
    out[x] = s;
}

// Loads at loaded places: a work-item whose place is outside `in` faults in the middle of its loop.
kernel void step_gather(global const float *in, global const uint *at, global float *out, uint n)
{
    uint x = get_global_id(0);
    uint from = at[x];
    float s = 0.0f;
    for (uint k = 0; k < n; k++)
        s = s * 0.75f + in[from + k];
    out[x] = s;
}

// A store at a loaded place that adds to what the work-item read at its own: a work-item whose place is outside `out`
// faults at the end, where the others of its run would have stored already, and a work-item that ran twice would
// add twice.
kernel void step_scatter(global const float *in, global const uint *at, global float *out, uint n)
{
    uint x = get_global_id(0);
    float s = 0.0f;
    for (uint k = 0; k < n; k++)
        s += in[k * 64 + x % 64];
    out[at[x]] = out[x] + s;
}

// With step = 0 a loop that never ends, the same for every work-item: the hang detector stops it.
kernel void step_spin(global const float *in, global float *out, uint n, uint step)
{
    float s = 0.0f;
    for (uint k = 0; k < n; k += step)
        s = s * 0.5f + in[k];
    out[get_global_id(0)] = s;
}
