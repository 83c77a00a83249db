#include "zwords.h"

#include <string.h>

/* Both loops are branch-free per word: the bit vectors exchanged have
 * zero and non-zero words mixed at random, which a branch per word would
 * mispredict half the time. */

size_t zw_bound(size_t n)
{
    size_t words = n / 8;
    /* one word more: zw_encode stores each word before it knows whether
     * to keep it */
    return sizeof(uint64_t) + (words + 7) / 8 + n + 8;
}

size_t zw_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    uint64_t raw = (uint64_t)n;
    memcpy(out, &raw, sizeof raw);
    size_t words = n / 8, mapbytes = (words + 7) / 8;
    uint8_t *map = out + sizeof raw, *p = map + mapbytes;
    for (size_t g = 0; g < mapbytes; g++) {
        unsigned m = 0;
        size_t last = words - 8 * g < 8 ? words - 8 * g : 8;
        for (size_t j = 0; j < last; j++) {
            uint64_t w;
            memcpy(&w, in + 8 * (8 * g + j), 8);
            memcpy(p, &w, 8);
            unsigned keep = w != 0;
            m |= keep << j;
            p += 8 * keep;
        }
        map[g] = (uint8_t)m;
    }
    size_t tail = n - 8 * words;
    memcpy(p, in + 8 * words, tail);
    return (size_t)(p + tail - out);
}

bool zw_raw_size(const uint8_t *in, size_t len, size_t *raw)
{
    uint64_t r;
    if (len < sizeof r) return false;
    memcpy(&r, in, sizeof r);
    if (r > SIZE_MAX / 2) return false;
    *raw = (size_t)r;
    return true;
}

bool zw_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    size_t n;
    if (!zw_raw_size(in, len, &n) || n > cap) return false;
    size_t words = n / 8, mapbytes = (words + 7) / 8, tail = n - 8 * words;
    if (len - sizeof(uint64_t) < mapbytes) return false;
    const uint8_t *map = in + sizeof(uint64_t), *p = map + mapbytes, *end = in + len;
    for (size_t g = 0; g < mapbytes; g++) {
        unsigned m = map[g];
        size_t last = words - 8 * g < 8 ? words - 8 * g : 8;
        if (m >> last) return false; /* bits past the last word */
        size_t k = (size_t)__builtin_popcount(m);
        if ((size_t)(end - p) < 8 * k) return false;
        /* the group's stored words, then zeros: word j is stored[idx] where
         * idx counts the kept words before it, or a zero */
        uint64_t stored[9] = {0};
        memcpy(stored, p, 8 * k);
        p += 8 * k;
        size_t idx = 0;
        for (size_t j = 0; j < last; j++) {
            unsigned keep = m >> j & 1;
            uint64_t w = stored[idx] & (0 - (uint64_t)keep);
            memcpy(out + 8 * (8 * g + j), &w, 8);
            idx += keep;
        }
    }
    if ((size_t)(end - p) != tail) return false;
    memcpy(out + 8 * words, p, tail);
    return true;
}
