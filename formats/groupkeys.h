/* The Q2MAP_GROUPKEYS BSPX lump: lighting keys of the entities whose brushes
 * join the world (func_group, func_detail*, TrenchBroom groups and layers,
 * misc_external_map made into one of them), for the world's faces that came
 * from them. qbsp writes it, qrad reads it; engines ignore BSPX lumps they do
 * not know, and qvis keeps the BSPX block as it is.
 *
 * They travel in a side file beside the bsp, MAP.groupkeys, not in the bsp:
 * an engine must see only lumps it reads (yquake2remaster takes any IBSP 38
 * file with a BSPX block for a re-release map and reads its surface flags
 * differently). ericw-tools passes the same keys (_phong, _minlight,
 * _dirt -1, ...) from its qbsp to its light the same way, as per-texinfo
 * "extended flags" in MAP.texinfo.json. qbsp writes MAP.groupkeys (or removes
 * a stale one), qrad reads it on every run, so re-lighting keeps the keys;
 * bsps of earlier q2map versions carry the same bytes as the BSPX lump
 * Q2MAP_GROUPKEYS, which qrad still reads, moves into the side file and
 * drops from the bsp it writes.
 *
 * The side file: "Q2MAPGK1", uint32 fingerprint (groupkeys_fingerprint of the
 * bsp it belongs to), then the lump below. A file whose fingerprint does not
 * match the bsp (the map was compiled again and the file is another's) is
 * refused with a message.
 *
 * Layout (little-endian):
 *   uint32 numfaces      the bsp's face count when it was written
 *   uint32 numsets       keysets
 *   uint16 set[numfaces] 0: the face's model's own keys; k: keyset k
 *   (padding to 4)
 *   text                 numsets entities in entity-lump syntax, keyset k
 *                        being the k-th; each has the source entity's
 *                        classname and its lighting keys; NUL-terminated */
#ifndef Q2M_GROUPKEYS_H
#define Q2M_GROUPKEYS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "bspfile.h"
#include "entities.h"

#define GROUPKEYS_LUMP "Q2MAP_GROUPKEYS"
#define GROUPKEYS_EXT ".groupkeys"
#define GROUPKEYS_MAGIC "Q2MAPGK1"

typedef struct groupkeys_t {
    int numfaces;
    uint16_t *set;        /* numfaces entries */
    entity_list_t sets;   /* sets.count keysets; keyset k is sets.ents[k - 1] */
} groupkeys_t;

/* Serializes; *data is malloc'd. */
void groupkeys_encode(const groupkeys_t *g, uint8_t **data, size_t *size);
/* Parses and checks the lump against a bsp of `numfaces` faces: sizes, set
 * numbers and the entity text. */
bool groupkeys_decode(const uint8_t *data, size_t size, int numfaces, groupkeys_t *out, q2err_t *err);
void groupkeys_lump_free(groupkeys_t *g);

/* What ties a side file to its bsp: a CRC-32 of the face count and of the
 * vertex and surfedge lumps' bytes, which neither qvis nor qrad changes. */
uint32_t groupkeys_fingerprint(const bsp_t *bsp);
/* The side file's bytes for a lump's bytes; *data is malloc'd. */
void groupkeys_file_encode(const uint8_t *lump, size_t lumpsize, const bsp_t *bsp, uint8_t **data, size_t *size);
/* Checks the side file's header and fingerprint against `bsp` and decodes
 * the lump after it; `name` (the file's path) goes into the messages. */
/* Whether the side file's header and fingerprint are those of `bsp`. */
bool groupkeys_file_belongs(const uint8_t *data, size_t size, const bsp_t *bsp);
bool groupkeys_file_decode(const uint8_t *data, size_t size, const bsp_t *bsp, const char *name, groupkeys_t *out,
                           q2err_t *err);

#endif
