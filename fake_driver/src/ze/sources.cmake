# ze/: the Level Zero face: the composition root (library unload order, context teardown, the zefake extension, the
# sysman extension functions).
zf_area(ze lifecycle.c zefake_ext.c sysman_ext.c)
