# core/: logging and diagnostics, the registry of live objects, the device clock, byte and pNext-chain helpers.
zf_area(core core.c object.c clock.c chain.c)
