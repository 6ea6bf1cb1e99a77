/* Specialization constants: SpecId 7 (int, default 42), SpecId 8 (short, default 3) and the ITT annotations
 * constant 0xFF747469 (a byte, default 0), read through the SPIR-V built-in llvm-spirv maps to OpSpecConstant. */
int __attribute__((overloadable)) __spirv_SpecConstant(int id, int default_value);
short __attribute__((overloadable)) __spirv_SpecConstant(int id, short default_value);
char __attribute__((overloadable)) __spirv_SpecConstant(int id, char default_value);

kernel void spec_values(global int *out)
{
    out[0] = __spirv_SpecConstant(7, 42);
    out[1] = __spirv_SpecConstant(8, (short)3);
    out[2] = __spirv_SpecConstant((int)0xFF747469, (char)0);
}
