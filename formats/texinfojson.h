/* ericw-tools' MAP.texinfo.json: the per-texinfo "extended flags" its qbsp
 * (2.0.0-alpha) writes beside the bsp and its light reads. It is one JSON
 * object whose member names are texinfo numbers ("0", "1", ...) and whose
 * values are objects of the lighting settings of the entity whose brush made
 * the texinfo's faces (worldspawn, func_group, func_detail, a brush entity),
 * each written only when set:
 *
 *   minlight, maxlight      number, the key's own units (Q2: 1 = 128)
 *   minlight_color          [r, g, b], 0..255
 *   phong_angle, phong_angle_concave   degrees; phong_group  integer
 *   object_channel_mask     integer
 *   world_units_per_luxel   number
 *   no_dirt, no_bounce, no_minlight, light_ignore   true
 *   no_shadow, light_alpha, light_twosided, lightcolorscale, noambient,
 *   surflight_* (rescale, style, targetname, color, minlight_scale, atten,
 *   group)                  settings qrad takes from entity keys only
 *   is_light, is_sky, ... , is_skip, no_expand   the texinfo's surface flags
 *                           (in the bsp already) and qbsp-only flags
 *
 * The decoder turns each entry into a keyset in qrad's key names and units
 * ("_minlight", "_minlight_color" 0..1, "_dirt" "-1", ...), the way the
 * Q2MAP_GROUPKEYS keysets (groupkeys.h) carry the same keys from q2map's
 * qbsp; texinfos with the same keys share one keyset. Fields it does not
 * know are skipped, as ericw-tools' light skips them. */
#ifndef Q2M_TEXINFOJSON_H
#define Q2M_TEXINFOJSON_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "entities.h"

#define TEXINFOJSON_EXT ".texinfo.json"

/* The fields with a setting qrad reads only from entity keys (worldspawn's,
 * a brush entity's), not per texinfo; texinfojson_unread_name(i) names the
 * i-th. */
#define TEXINFOJSON_NUNREAD 12

typedef struct texinfojson_t {
    int numtexinfo;      /* the bsp's texinfo count: set[] entries */
    int *set;            /* per texinfo: 0 none, k: keyset k (sets.ents[k - 1]) */
    entity_list_t sets;  /* the keysets; each pair's line is its field's in the file */
    int numentries;      /* texinfo entries in the file (ericw-tools writes one per texinfo) */
    int unread_line[TEXINFOJSON_NUNREAD]; /* line of each unread field's first use, 0: not used */
} texinfojson_t;

/* Parses the file's bytes against a bsp of `numtexinfo` texinfos. Malformed
 * JSON, an entry that is not an object, a texinfo number that is not one of
 * the bsp's (the file is of another compile) or given twice, and a field of
 * the wrong type or out of range are errors naming `name` and the line. */
bool texinfojson_decode(const uint8_t *data, size_t size, int numtexinfo, const char *name, texinfojson_t *out,
                        q2err_t *err);
void texinfojson_free(texinfojson_t *t);
const char *texinfojson_unread_name(int i);

#endif
