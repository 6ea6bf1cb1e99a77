/* Extension structures chained to device property queries (device_ext.c), filled by device.c's queries. */
#ifndef ZF_DEVICE_EXT_H
#define ZF_DEVICE_EXT_H

#include "driver/zf_driver.h"

/* ze_device_properties_t chain: ze_device_luid_ext_properties_t, ze_eu_count_ext_t. */
void zf_device_properties_chain(const zf_device *device, void *next);

/* ze_device_module_properties_t chain: ze_scheduling_hint_exp_properties_t. */
void zf_device_module_properties_chain(const zf_device *device, void *next);

/* ze_device_cache_properties_t chain of cache `index`: ze_cache_reservation_ext_desc_t. */
void zf_device_cache_properties_chain(const zf_device *device, uint32_t index, void *next);

#endif
