# ze/: the Level Zero face: the composition root (library unload order, context teardown, the zefake extension).
zf_area(ze lifecycle.c zefake_ext.c)
