/* Little-endian reads and writes of fixed-width values, independent of the
 * host's byte order and alignment. */
#ifndef Q2M_BYTES_H
#define Q2M_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t rd_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline int16_t rd_i16(const uint8_t *p) { return (int16_t)rd_u16(p); }
static inline uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline int32_t rd_i32(const uint8_t *p) { return (int32_t)rd_u32(p); }
static inline float rd_f32(const uint8_t *p)
{
    uint32_t u = rd_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline void wr_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void wr_i16(uint8_t *p, int16_t v) { wr_u16(p, (uint16_t)v); }
static inline void wr_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void wr_i32(uint8_t *p, int32_t v) { wr_u32(p, (uint32_t)v); }
static inline void wr_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    wr_u32(p, u);
}

#endif
