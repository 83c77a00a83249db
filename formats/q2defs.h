/* Quake 2's constants: contents bits, surface flags and the MAX_MAP_* limits
 * that stock engines and id's tools enforce (qcommon/qfiles.h). */
#ifndef Q2M_Q2DEFS_H
#define Q2M_Q2DEFS_H

/* Contents bits; lower bits are stronger. */
#define CONTENTS_SOLID 0x1
#define CONTENTS_WINDOW 0x2
#define CONTENTS_AUX 0x4
#define CONTENTS_LAVA 0x8
#define CONTENTS_SLIME 0x10
#define CONTENTS_WATER 0x20
#define CONTENTS_MIST 0x40
#define LAST_VISIBLE_CONTENTS 0x40
#define CONTENTS_AREAPORTAL 0x8000
#define CONTENTS_PLAYERCLIP 0x10000
#define CONTENTS_MONSTERCLIP 0x20000
#define CONTENTS_CURRENT_0 0x40000
#define CONTENTS_CURRENT_90 0x80000
#define CONTENTS_CURRENT_180 0x100000
#define CONTENTS_CURRENT_270 0x200000
#define CONTENTS_CURRENT_UP 0x400000
#define CONTENTS_CURRENT_DOWN 0x800000
#define CONTENTS_ORIGIN 0x1000000
#define CONTENTS_MONSTER 0x2000000
#define CONTENTS_DEADMONSTER 0x4000000
#define CONTENTS_DETAIL 0x8000000
#define CONTENTS_TRANSLUCENT 0x10000000
#define CONTENTS_LADDER 0x20000000

#define MASK_LIQUID (CONTENTS_WATER | CONTENTS_LAVA | CONTENTS_SLIME)

/* Surface flags. */
#define SURF_LIGHT 0x1
#define SURF_SLICK 0x2
#define SURF_SKY 0x4
#define SURF_WARP 0x8
#define SURF_TRANS33 0x10
#define SURF_TRANS66 0x20
#define SURF_FLOWING 0x40
#define SURF_NODRAW 0x80
#define SURF_HINT 0x100
#define SURF_SKIP 0x200
/* The 2023 re-release's alpha-tested (cut-out) surface (its q_files.h
 * SURF_ALPHATEST, 1 << 25): see-through like TRANS33/66 for the compilers. */
#define SURF_ALPHATEST 0x2000000

/* Limits (engine and id tools). */
#define MAX_MAP_MODELS 1024
#define MAX_MAP_BRUSHES 8192
#define MAX_MAP_ENTITIES 2048
#define MAX_MAP_ENTSTRING 0x40000
#define MAX_MAP_TEXINFO 8192
#define MAX_MAP_AREAS 256
#define MAX_MAP_AREAPORTALS 1024
#define MAX_MAP_PLANES 65536
#define MAX_MAP_NODES 65536
#define MAX_MAP_BRUSHSIDES 65536
#define MAX_MAP_LEAFS 65536
#define MAX_MAP_VERTS 65536
#define MAX_MAP_FACES 65536
#define MAX_MAP_LEAFFACES 65536
#define MAX_MAP_LEAFBRUSHES 65536
#define MAX_MAP_PORTALS 65536
#define MAX_MAP_EDGES 128000
#define MAX_MAP_SURFEDGES 256000
#define MAX_MAP_LIGHTING 0x200000
#define MAX_MAP_VISIBILITY 0x100000
/* The QBSP format's model limit [q2tools-220 qfiles.h MAX_MAP_MODELS_QBSP];
 * its other limits are in bspfile.c. */
#define MAX_MAP_MODELS_QBSP 131072
#define MAX_KEY 32
#define MAX_VALUE 1024
#define MAX_LIGHTSTYLES 256
#define MAXLIGHTMAPS 4

/* A lightmap is at most 17x17 luxels: the software renderer rejects faces
 * whose texture extents exceed 256 units ("Bad surface extents"). */
#define MAX_LIGHTMAP_DIM 17
#define LIGHTMAP_SCALE 16

#endif
