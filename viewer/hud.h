/* A tiny built-in 3x5 pixel font for the window's on-screen figures. */
#ifndef QVIEW_HUD_H
#define QVIEW_HUD_H

#include <stdint.h>

/* Draws text (upper-cased; unknown characters are blanks) at (x, y) with
 * each font pixel scale x scale, over a dark shadow. */
void hud_text(uint8_t *rgba, int w, int h, int x, int y, int scale, const char *text, const uint8_t rgb[3]);

/* Height of one text line at this scale, gap included. */
#define HUD_LINE(scale) (7 * (scale))

/* Lines hud_text_wrap takes for text from x in an image w wide. */
int hud_text_rows(int w, int x, int scale, const char *text);
/* The same, broken into as many lines as the width needs; returns how many
 * lines it took. */
int hud_text_wrap(uint8_t *rgba, int w, int h, int x, int y, int scale, const char *text, const uint8_t rgb[3]);

#endif
