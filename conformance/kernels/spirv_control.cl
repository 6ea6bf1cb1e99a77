/* SPIR-V execution: control flow (test_spirv_exec.c replays each kernel in C): loops with break and continue, a
 * switch with fall-through, early returns, do-while, a loop left from its middle, and calls of functions that are
 * not inlined, with private memory passed by pointer. (A loop entered in its middle, with goto, is irreducible:
 * llvm-spirv 14 then orders blocks as spirv-val refuses, so fake_driver/tests covers that case in assembly.) */
__attribute__((noinline)) int collatz_steps(int n)
{
    int steps = 0;
    while (n != 1 && steps < 500) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}

__attribute__((noinline)) void swap_if_greater(private int *a, private int *b)
{
    if (*a > *b) {
        int t = *a;
        *a = *b;
        *b = t;
    }
}

/* One bubble pass (nested loops here make llvm-spirv 14 emit invalid SPIR-V at -O2). */
__attribute__((noinline)) int sum_sorted(private int *v, int n)
{
    for (int i = 0; i + 1 < n; i++)
        swap_if_greater(&v[i], &v[i + 1]);
    int s = 0;
    for (int i = 0; i < n; i++)
        s = s * 3 + v[i];
    return s;
}

kernel void control(global const int *in, global int *out)
{
    size_t i = get_global_id(0);
    int v = in[i];
    if (v < -50)
        return; /* out[i] keeps what the host put there */
    int r = 0;
    switch (v) { /* on v itself: clang narrows a switch on a small range to an i3 llvm-spirv 14 cannot translate */
    case 0:
        r = 10;
        break;
    case 1:
        r = 20; /* falls through */
    case 2:
        r += 5;
        break;
    case 5:
        for (int k = 0; k < 4; k++)
            r += k * v;
        break;
    default:
        r = -1;
    }
    for (int k = 0; k < (v & 15); k++) {
        if (k == 3)
            continue;
        if (k == 11)
            break;
        r += k;
    }
    int w = v < 0 ? -v : v;
    do {
        r ^= w;
        w >>= 1;
    } while (w > 3);
    int g = v;
    while (1) {
        g *= 2;
        if (g >= 200 || g <= -200)
            break;
        g += 3;
    }
    int arr[6] = {v, 3, -v, 7, v * 2, 1};
    out[i] = r + collatz_steps((v < 0 ? -v : v) % 97 + 1) * 1000 + g + sum_sorted(arr, 6);
}
