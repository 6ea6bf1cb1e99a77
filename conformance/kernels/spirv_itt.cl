/* SPIR-V execution: ITT device annotations (shared/seeds/000; test_spirv_tools.c). The kernel calls the compiler
 * wrappers an instrumented build inserts: work-item start and finish, barrier wait and resume, atomic start and
 * finish. They take effect only when specialization constant 0xFF747469 is non-zero; the kernel also stores its
 * value, so that the test sees which one the module was built with. */
char __attribute__((overloadable)) __spirv_SpecConstant(int id, char default_value);

void __itt_offload_wi_start_wrapper(void);
void __itt_offload_wi_finish_wrapper(void);
void __itt_offload_wg_barrier_wrapper(void);
void __itt_offload_wi_resume_wrapper(void);
void __itt_offload_atomic_op_start(global void *object, int op_type, int mem_order);
void __itt_offload_atomic_op_finish(global void *object, int op_type, int mem_order);

kernel void annotated(global int *counter, global int *out)
{
    __itt_offload_wi_start_wrapper();
    size_t i = get_global_id(0);
    out[i] = __spirv_SpecConstant((int)0xFF747469, (char)0);
    __itt_offload_wg_barrier_wrapper();
    barrier(CLK_GLOBAL_MEM_FENCE);
    __itt_offload_wi_resume_wrapper();
    __itt_offload_atomic_op_start(counter, 1, 5);
    atomic_inc(counter);
    __itt_offload_atomic_op_finish(counter, 1, 5);
    __itt_offload_wi_finish_wrapper();
}
