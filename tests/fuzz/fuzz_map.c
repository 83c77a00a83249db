/* libFuzzer target: the .map parser, the texture projection of every side
 * it accepts and the key table's verdict on every key. */
#include <stddef.h>
#include <stdint.h>

#include "../../formats/keytable.h"
#include "../../formats/mapfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    map_t map;
    q2err_t err;
    if (!map_parse((const char *)data, size, "fuzz.map", &map, &err)) return 0;
    for (int e = 0; e < map.numentities; e++) {
        const entity_t *ent = &map.entities[e].ent;
        unsigned kind = keytable_entity_kind(entity_classname(ent), map.entities[e].numbrushes > 0);
        for (int k = 0; k < ent->numpairs; k++) {
            char why[256];
            keytable_key_warning(ent->pairs[k].key, kind, why, sizeof why);
        }
    }
    for (int e = 0; e < map.numentities; e++)
        for (int b = 0; b < map.entities[e].numbrushes; b++) {
            const map_brush_t *br = &map.entities[e].brushes[b];
            for (int s = 0; s < br->numsides; s++) {
                plane_t p;
                const map_side_t *side = &br->sides[s];
                if (!plane_from_points(side->points[0], side->points[1], side->points[2], &p)) continue;
                double vecs[2][4];
                map_texture_vectors(side, p.normal, vec3(0, 0, 0), vecs);
            }
        }
    map_free(&map);
    return 0;
}
