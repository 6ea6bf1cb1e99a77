# memory/: USM allocations and their index, device-memory accounting, IPC, external, physical and virtual memory.
zf_area(memory memory.c memory_account.c memory_arena.c memory_backing.c memory_block.c memory_external.c memory_index.c memory_ipc.c
        memory_physical.c memory_virtual.c)
