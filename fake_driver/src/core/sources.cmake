# core/: logging and diagnostics, fault injection of API calls, the registry of live objects, the device clock, byte
# and pNext-chain helpers, the device state shared between processes.
zf_area(core core.c object.c clock.c chain.c shared.c fault.c)
