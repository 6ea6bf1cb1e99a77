/* Explicitly little-endian integers in byte buffers: the one set of readers and writers for the formats the driver
 * hands out or accepts as bytes (the native module binary, docs/modules.md; the raw metric records and frames,
 * docs/metrics-raw-formats.md). They assemble the value byte by byte, so they give the documented layout on any host
 * and need no alignment. The SPIR-V library (a leaf that includes no core header) needs none of them: it reads
 * SPIR-V words after fixing their byte order once, and its decoded form is documented as host byte order. */
#ifndef ZF_BYTES_H
#define ZF_BYTES_H

#include <stdint.h>

static inline uint32_t zf_le32_get(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t zf_le64_get(const uint8_t *p) {
    return (uint64_t)zf_le32_get(p) | (uint64_t)zf_le32_get(p + 4) << 32;
}

static inline void zf_le32_put(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void zf_le64_put(uint8_t *p, uint64_t v) {
    zf_le32_put(p, (uint32_t)v);
    zf_le32_put(p + 4, (uint32_t)(v >> 32));
}

#endif
