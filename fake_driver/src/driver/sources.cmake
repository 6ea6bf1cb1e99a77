# driver/: zeInit and the driver, devices and sub-devices, device selection, contexts, the fabric.
zf_area(driver driver.c device.c device_ext.c device_select.c context.c fabric.c fabric_route.c fabric_api.c)
