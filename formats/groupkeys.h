/* The Q2MAP_GROUPKEYS BSPX lump: lighting keys of the entities whose brushes
 * join the world (func_group, func_detail*, TrenchBroom groups and layers,
 * misc_external_map made into one of them), for the world's faces that came
 * from them. qbsp writes it, qrad reads it; engines ignore BSPX lumps they do
 * not know, and qvis keeps the BSPX block as it is.
 *
 * ericw-tools passes the same keys (_phong, _minlight, _dirt -1, ...) from
 * its qbsp to its light as per-texinfo "extended flags" in a side file
 * (MAP.texinfo.json); q2map keeps them in the bsp, per face, so a bsp copied
 * or relit elsewhere keeps them.
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
#include "entities.h"

#define GROUPKEYS_LUMP "Q2MAP_GROUPKEYS"

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

#endif
