/* The built-in variables of OpenCL kernels: the one list of them, with the formula of each, which the decoder accepts
 * (spirv_decode_func.c), the interpreter computes per lane (spirv_wave.c) and the compiled tier emits as LLVM IR
 * (compiled/cx_emit_ops.c). ZF_BUILTINS(X3, X1) names each built-in by its SpvBuiltIn suffix, whether it differs
 * between the waves of a launch (a wave is whole work-groups, so only what depends on the group does), and the value
 * of its component d: X3 for those of 3 components, X1 for scalars (their other components are 0). The formulas are
 * written with operations the includer defines over its own values:
 *   ZF_B_LID(d), ZF_B_GRP(d)                      the work-item's local id and its group's id
 *   ZF_B_GSIZE(d), ZF_B_GROUPS(d), ZF_B_OFFSET(d) the launch's group size, group count and global offset
 *   ZF_B_R, ZF_B_S, ZF_B_G, ZF_B_WORKDIM          its linear id in its group, the sub-group size, the group's
 *                                                 work-items and the launch's dimensions
 *   ZF_B_ADD, ZF_B_SUB, ZF_B_MUL, ZF_B_DIV, ZF_B_REM, ZF_B_MIN (unsigned, 64-bit), ZF_B_K(n) a constant. */
#ifndef ZF_SPIRV_BUILTINS_H
#define ZF_SPIRV_BUILTINS_H

/* The work-item's global id without the offset, and the launch's global size, in dimension k. */
#define ZF_B_ITEM(k)   ZF_B_ADD(ZF_B_MUL(ZF_B_GRP(k), ZF_B_GSIZE(k)), ZF_B_LID(k))
#define ZF_B_GLOBAL(k) ZF_B_MUL(ZF_B_GROUPS(k), ZF_B_GSIZE(k))
/* The first linear id of the work-item's sub-group. */
#define ZF_B_SG_FIRST ZF_B_MUL(ZF_B_DIV(ZF_B_R, ZF_B_S), ZF_B_S)

#define ZF_BUILTINS(X3, X1)                                                                                            \
    X3(GlobalInvocationId, true, ZF_B_ADD(ZF_B_OFFSET(d), ZF_B_ITEM(d)))                                               \
    X3(LocalInvocationId, false, ZF_B_LID(d))                                                                          \
    X3(WorkgroupId, true, ZF_B_GRP(d))                                                                                 \
    X3(NumWorkgroups, false, ZF_B_GROUPS(d))                                                                           \
    X3(WorkgroupSize, false, ZF_B_GSIZE(d))                                                                            \
    X3(EnqueuedWorkgroupSize, false, ZF_B_GSIZE(d))                                                                    \
    X3(GlobalSize, false, ZF_B_GLOBAL(d))                                                                              \
    X3(GlobalOffset, false, ZF_B_OFFSET(d))                                                                            \
    X1(LocalInvocationIndex, false, ZF_B_R)                                                                            \
    X1(WorkDim, false, ZF_B_WORKDIM)                                                                                   \
    X1(GlobalLinearId, true,                                                                                           \
       ZF_B_ADD(ZF_B_MUL(ZF_B_ADD(ZF_B_MUL(ZF_B_ITEM(2), ZF_B_GLOBAL(1)), ZF_B_ITEM(1)), ZF_B_GLOBAL(0)),              \
                ZF_B_ITEM(0)))                                                                                         \
    X1(SubgroupSize, false, ZF_B_MIN(ZF_B_SUB(ZF_B_G, ZF_B_SG_FIRST), ZF_B_S))                                         \
    X1(SubgroupMaxSize, false, ZF_B_S)                                                                                 \
    X1(NumSubgroups, false, ZF_B_DIV(ZF_B_SUB(ZF_B_ADD(ZF_B_G, ZF_B_S), ZF_B_K(1)), ZF_B_S))                           \
    X1(NumEnqueuedSubgroups, false, ZF_B_DIV(ZF_B_SUB(ZF_B_ADD(ZF_B_G, ZF_B_S), ZF_B_K(1)), ZF_B_S))                   \
    X1(SubgroupId, false, ZF_B_DIV(ZF_B_R, ZF_B_S))                                                                    \
    X1(SubgroupLocalInvocationId, false, ZF_B_REM(ZF_B_R, ZF_B_S))

#endif
