# image/: images, formats and views, samplers.
zf_area(image image.c image_format.c sampler.c)
