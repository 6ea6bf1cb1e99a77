// Kernels whose accesses the compiled tier checks once per work-group (docs/spirv-execution.md, "Checks made per
// group"), and kernels that look like them but must keep their per-work-item checks (test_spirv_engine.c).

// A 5-point stencil whose border copies: the stored index is a phi of the same value from both branches.
kernel void hoist_stencil(global const float *in, global float *out, uint n)
{
    uint x = get_global_id(0), y = get_global_id(1), i = y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 4.0f * in[i] - in[i - 1] - in[i + 1] - in[i - n] - in[i + n];
}

// Straight-line code: the last group runs past `n` elements and faults where the interpreter faults.
kernel void hoist_scale(global const float *in, global float *out, float k)
{
    size_t i = get_global_id(0);
    out[i] = k * in[i] + 1.0f;
}

// A 32-bit index that wraps inside a group (the test makes the first, second and last work-item's element the only
// ones inside the buffer).
kernel void hoist_wrap(global const uint *in, global uint *out, uint m)
{
    uint g = (uint)get_global_id(0);
    out[g] = in[g * m];
}

// A signed index below the start of the buffer in the first group only.
kernel void hoist_signed(global const int *in, global int *out, int shift)
{
    int g = (int)get_global_id(0);
    out[g] = in[g - shift] + 1;
}

// Local memory without a barrier (each work-item its own element), a 2-dimensional group, and an index that depends
// on a loaded value (that access stays checked per work-item).
kernel void hoist_local(global const uint *in, global uint *out, uint width)
{
    local uint tmp[128];
    uint l = get_local_id(1) * get_local_size(0) + get_local_id(0);
    uint g = get_global_id(1) * width + get_global_id(0);
    tmp[l] = in[g] * 3u;
    out[g] = tmp[l] + in[in[g] % width];
}

// Branches of every shape, none of which can fault once the group's accesses are proven: the unchecked copy derives
// most of its block counts from a few counters (cx_emit_count.c), and the executed-work record must not change.
static int hoist_bucket(int v)
{
    switch (v % 5) {
    case 1:
        return v + 1;
    case -2:
    case 3:
        return v * 2;
    case 4:
        return v - 5;
    default:
        return v;
    }
}

kernel void hoist_branches(global const int *in, global int *out, uint n)
{
    uint i = get_global_id(0);
    int v = in[i], r;
    if (i == 0 || i == n - 1 || (v & 3) == 0)
        r = v;
    else if (v & 4)
        r = v * 3;
    else
        r = -v;
    r = hoist_bucket(r);
    if (v > 100) {
        out[i] = r;
        return;
    }
    out[i] = r + (v < -50 ? 7 : 1);
}

// A read one row above, at an index kept to 16 bits by a mask: the first row of groups reads below the buffer in its
// first row only, so the rows below it run proven and the faults are the interpreter's.
kernel void hoist_above(global const float *in, global float *out, uint n)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t i = (y * n + x) & 0xFFFF;
    out[i] = in[i - n] + 1.0f;
}

// Ids as values at addresses of the global id alone: a wave of groups in one run along x runs row by row, one loop
// along x across its groups (docs/spirv-execution.md, "Rows across the wave"), and every work-item must still see
// its own local, group and linear ids.
kernel void hoist_ids(global uint *ids, global uint *linear, uint width)
{
    size_t x = get_global_id(0), y = get_global_id(1), i = y * width + x;
    ids[i] = (uint)get_local_id(0) | (uint)get_local_id(1) << 8 | (uint)get_group_id(0) << 16 |
             (uint)get_group_id(1) << 24;
    linear[i] = (uint)get_local_linear_id() << 16 | (uint)x;
}

// An access at a loaded index, which stays checked in the unchecked copy: a work-item can fault there, so the wave
// keeps the groups' order and its first fault is the interpreter's.
kernel void hoist_leave(global const uint *in, global uint *out, uint width)
{
    size_t x = get_global_id(0), y = get_global_id(1), i = y * width + x;
    out[i] = in[i] + in[in[i]];
}
