/* Module program, a bad input: imports program_scale with two parameters where program_scale.cl exports one. */
extern int program_scale(int x, int y);

kernel void program_mismatched(global int *p)
{
    p[0] = program_scale(p[0], 1);
}
