/* Samplers: zeSamplerCreate and zeSamplerDestroy. A sampler is the state a kernel samples images with (address mode,
 * filter mode, normalized coordinates); kernels receive it as an argument (zf_image_check_kernel_arg). */
#include "core/zf_core.h"
#include "image/zf_image.h"

#include <stdlib.h>

ze_result_t zfi_zeSamplerCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_sampler_desc_t *desc,
                                ze_sampler_handle_t *phSampler) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    if (!zf_context_has_device(context, device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hDevice is not a device of hContext (nor a sub-device of one)");
    if (desc->stype != ZE_STRUCTURE_TYPE_SAMPLER_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->stype is 0x%x, not ZE_STRUCTURE_TYPE_SAMPLER_DESC",
                       (unsigned)desc->stype);
    zf_sampler *sampler = calloc(1, sizeof *sampler);
    if (sampler == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a sampler");
    sampler->context = context;
    sampler->device = device;
    sampler->address_mode = desc->addressMode;
    sampler->filter_mode = desc->filterMode;
    sampler->normalized = desc->isNormalized != 0;
    if (!zf_object_register(&sampler->header, ZF_OBJ_ZE_SAMPLER, &context->header)) {
        free(sampler);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a sampler");
    }
    *phSampler = (ze_sampler_handle_t)sampler;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeSamplerDestroy(ze_sampler_handle_t hSampler) {
    zf_object_retire(&zf_sampler_from(hSampler)->header);
    return ZE_RESULT_SUCCESS;
}
