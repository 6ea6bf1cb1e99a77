# exec/: engines and their workers, what commands do, the cost model, queues, command lists, events (and IPC), fences, image copies.
zf_area(exec engine.c perform.c cost.c queue.c command.c cmdlist.c cmdlist_exp.c cmdlist_mutable.c event.c event_ipc.c fence.c image_copy.c)
