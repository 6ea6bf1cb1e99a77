/* Integer syntax shared by the scenario's parsers and the driver's environment variables (scenario_values.c):
 * decimal or 0x hex, '_' between digits, an optional size suffix (KiB, MiB, GiB, TiB, one space before it allowed). */
#ifndef ZF_SCENARIO_NUMBER_H
#define ZF_SCENARIO_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum zf_number_status {
    ZF_NUMBER_OK,
    ZF_NUMBER_SYNTAX,
    ZF_NUMBER_OVERFLOW,
    ZF_NUMBER_NEGATIVE,
} zf_number_status;

zf_number_status zf_number_parse(const char *text, size_t length, bool allow_suffix, uint64_t *out);

#endif
