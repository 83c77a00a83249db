#include "hud.h"

#include <ctype.h>
#include <string.h>

typedef struct glyph_t {
    char c;
    const char *bits; /* 5 rows of 3 columns, top row first */
} glyph_t;

static const glyph_t font[] = {
    {'0', "111101101101111"}, {'1', "010110010010111"}, {'2', "111001111100111"}, {'3', "111001111001111"},
    {'4', "101101111001001"}, {'5', "111100111001111"}, {'6', "111100111101111"}, {'7', "111001001001001"},
    {'8', "111101111101111"}, {'9', "111101111001111"}, {'A', "010101111101101"}, {'B', "110101110101110"},
    {'C', "011100100100011"}, {'D', "110101101101110"}, {'E', "111100110100111"}, {'F', "111100110100100"},
    {'G', "011100101101011"}, {'H', "101101111101101"}, {'I', "111010010010111"}, {'J', "001001001101010"},
    {'K', "101101110101101"}, {'L', "100100100100111"}, {'M', "101111111101101"}, {'N', "110101101101101"},
    {'O', "010101101101010"}, {'P', "110101110100100"}, {'Q', "010101101110011"}, {'R', "110101110101101"},
    {'S', "011100010001110"}, {'T', "111010010010010"}, {'U', "101101101101111"}, {'V', "101101101101010"},
    {'W', "101101111111101"}, {'X', "101101010101101"}, {'Y', "101101010010010"}, {'Z', "111001010100111"},
    {':', "000010000010000"}, {'.', "000000000000010"}, {'/', "001001010100100"}, {'-', "000000111000000"},
};

static const char *glyph(char c)
{
    c = (char)toupper((unsigned char)c);
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].c == c) return font[i].bits;
    return NULL;
}

static void fill(uint8_t *rgba, int w, int h, int x, int y, int s, const uint8_t rgb[3])
{
    for (int j = y; j < y + s; j++)
        for (int i = x; i < x + s; i++) {
            if (i < 0 || j < 0 || i >= w || j >= h) continue;
            uint8_t *p = rgba + ((size_t)j * w + i) * 4;
            p[0] = rgb[0];
            p[1] = rgb[1];
            p[2] = rgb[2];
        }
}

void hud_text(uint8_t *rgba, int w, int h, int x, int y, int scale, const char *text, const uint8_t rgb[3])
{
    static const uint8_t shadow[3] = {0, 0, 0};
    for (int pass = 0; pass < 2; pass++) {
        int cx = x;
        for (const char *t = text; *t; t++, cx += 4 * scale) {
            const char *b = glyph(*t);
            if (!b) continue;
            for (int r = 0; r < 5; r++)
                for (int c = 0; c < 3; c++)
                    if (b[r * 3 + c] == '1')
                        fill(rgba, w, h, cx + c * scale + (pass ? 0 : scale / 2 + 1), y + r * scale + (pass ? 0 : scale / 2 + 1),
                             scale, pass ? rgb : shadow);
        }
    }
}
