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
    {'(', "010100100100010"}, {')', "010001001001010"}, {',', "000000000010100"}, {'_', "000000000000111"},
    {'\'', "010010000000000"}, {'"', "101101000000000"}, {'=', "000111000111000"}, {'+', "000010111010000"},
    {'>', "100010001010100"}, {'<', "001010100010001"}, {'!', "010010010000010"}, {'?', "111001010000010"},
    {'#', "101111101111101"}, {'[', "110100100100110"}, {']', "011001001001011"}, {'%', "101001010100101"},
    {';', "000010000010100"}, {'*', "000101010101000"}, {'{', "011010110010011"}, {'}', "110010011010110"},
    {'|', "010010010010010"}, {'&', "010101010101011"}, {'@', "010101111100011"}, {'~', "000011110000000"},
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

int hud_text_rows(int w, int x, int scale, const char *text)
{
    int per = (w - x) / (4 * scale);
    if (per < 1) per = 1;
    if (per > 511) per = 511;
    int len = (int)strlen(text);
    return len == 0 ? 1 : (len + per - 1) / per;
}

int hud_text_wrap(uint8_t *rgba, int w, int h, int x, int y, int scale, const char *text, const uint8_t rgb[3])
{
    int per = (w - x) / (4 * scale);
    if (per < 1) per = 1;
    int len = (int)strlen(text), rows = hud_text_rows(w, x, scale, text);
    char line[512];
    if (per > 511) per = 511;
    for (int r = 0; r < rows; r++) {
        int at = r * per, n = len - at < per ? len - at : per;
        if (n < 0) n = 0;
        memcpy(line, text + at, (size_t)n);
        line[n] = '\0';
        hud_text(rgba, w, h, x, y + r * HUD_LINE(scale), scale, line, rgb);
    }
    return rows;
}
