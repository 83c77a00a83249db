/* qrad: lightmaps for Quake 2 bsps.
 *
 * Stages, each in its own file and each taking the explicit qrad_t context:
 *   keys.c      entity keys read with range checks (warnings name entity, key, line)
 *   models.c    per-model settings from brush entities and worldspawn (phong,
 *               minlight, shadows, channels)
 *   lights.c    entity light sources, sun and sky settings
 *   surflights.c surface lights from SURF_LIGHT faces
 *   trace.c     a BVH over the world's faces; occlusion and closest-hit rays,
 *               point contents and clusters through the bsp tree
 *   color.c     colour helpers every stage may use (final bytes, ambient, saturation)
 *   facegeom.c  per-face plane, winding, extents and luxel sample points
 *   dirt.c      dirtmapping (ambient occlusion) factors per luxel
 *   direct.c    direct light per luxel and per style
 *   bounce.c    ray-traced patch radiosity for style 0 (other styles with _bouncestyled)
 *   rounds.c    the order of bouncelights.c's rounds of a face's luxels
 *   bouncelights.c ericw's bounce (-preset ericw): a point light per face and style
 *   autominlight.c ericw's autominlight: a bmodel's luxels in solid take the
 *               light at the model's centre (-preset ericw)
 *   minlight.c  floors after the bounces: _minlight, local minlight, _ambient,
 *               autominlight, negative lights; then _lightignore, _maxlight,
 *               -soft and _gamma on every style
 *   write.c     the lighting lump, face styles and offsets in face order
 *   rad.c       the driver (qrad_run) used by main.c and by the tests
 * Everything is deterministic: fixed sample patterns, per-face work with no
 * shared accumulation, offsets allocated after the parallel loops.
 *
 * This header holds what the stages share: the options, the context
 * (qrad_t) and its records (faces, lights, patches), and the driver's entry
 * points. Each stage's functions are in its own header (keys.h, trace.h,
 * facegeom.h, direct.h, ...), which says what the stage takes and gives; a
 * file includes the headers of the stages it calls. */
#ifndef Q2M_QRAD_H
#define Q2M_QRAD_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/log.h"
#include "../common/mathlib.h"
#include "../common/timer.h"
#include "../common/winding.h"
#include "../formats/bspfile.h"
#include "../formats/entities.h"
#include "../formats/lightmap.h"
#include "../formats/textures.h"


/* Distance (units) a luxel sample is lifted off its face along the normal,
 * and kept inside the face's winding: far enough that shadow rays never hit
 * the sample's own face or a wall meeting it at a corner, close enough that
 * contact shadows stay put. */
#define SAMPLE_NUDGE 1.0
/* Smallest ray parameter accepted as a hit, in units along the ray. */
#define TRACE_EPSILON 0.01
/* A single light's contribution below this (luxel units, before -scale)
 * is not traced: a quarter of a byte step, small enough that even dozens
 * of dropped contributions stay within a few steps. */
#define LIGHT_CUTOFF 0.25
/* The loops every rank runs whole between its shared ones (dist_local_*,
 * common/dist.h) hand faces to the threads in chunks of this many: enough
 * work per chunk that timing it for a trace costs little. */
#define QRAD_LOCAL_CHUNK 64

/* Whose keys qrad reads (qrad_opts_t.tool_keys, set by -preset; toolkeys.c). */
enum { QRAD_TOOL_ALL = 0, QRAD_TOOL_QRAD3 = 1, QRAD_TOOL_ERICW = 2 };

typedef struct qrad_opts_t {
    int threads;     /* resolved count */
    int bounce;      /* radiosity bounces, 0 = direct only */
    bool extra;      /* 2x2 supersampling per luxel */
    double chop;     /* patch size in units (bounce patches, emitter pieces) */
    double scale;    /* final multiplier of all light */
    double direct;   /* surface-light scale (qrad3's direct_scale) */
    double entity;   /* entity light scale */
    double ambient;  /* added to every luxel, 0..255 */
    double maxlight; /* brightest channel allowed, 0..255 */
    bool nopvs;
    int bounce_rays; /* rays per patch for bounce transfers */
    double smooth;   /* phong: faces meeting at less than this angle (degrees) share normals; 0 = off */
    double bouncescale; /* multiplies reflectivity in the bounces */
    struct dist_t *dist; /* ranks sharing the face and patch loops (common/dist.h); NULL: this process alone */
    bool smooth_set;    /* -smooth/-nosmooth given: overrides every _phong key */
    bool bounce_set;    /* -bounce given: overrides worldspawn's _bounce */
    double minlight;    /* -minlight (0..1 as ericw's Quake 2 key), < 0 = unset */
    int dirt;           /* -dirt: 1 forces dirtmapping on, -1 off, 0 = worldspawn decides */
    bool dirtdebug;     /* -dirtdebug (ericw's): style 0's bytes are the dirt factor alone, 255 x it */
    double anglescale;  /* ericw's _anglescale for every light; < 0 = keys decide (default: pure cosine) */
    double anglescale_default; /* the _anglescale of lights (and suns) without the key; < 0 = 1, qrad3's */
    /* Defaults of ericw's worldspawn keys (the keys still win); < 0: qrad's. */
    int surflight_rescale;           /* _surflight_rescale (qrad: 0) */
    double surflight_minlight_scale; /* _surflight_minlight_scale (qrad: 0) */
    int bouncestyled;                /* _bouncestyled (qrad: 0) */
    bool surflight_texcolor;  /* ericw's emission: value x the texture's average colour, none without the texture */
    int dirt_angles;          /* dirt directions per ring; 0 = qrad's DIRT_ANGLES (dirt.c) */
    bool surflight_bmodels;   /* bmodels' light faces emit (ericw); qrad3: only the world's */
    int tool_keys;            /* QRAD_TOOL_*: read only that tool's keys; QRAD_TOOL_ALL: every tool's */
    int dome_suns;            /* > 0: the sky dome as ericw-tools' ring of suns (its -sunsamples); 0: qrad's */
    bool surflight_selflit;   /* qrad3: a world light face's own emission is added to its lightmap */
    bool sun_grazing;         /* ericw: a sun lights every face whose plane it is not behind (by ANGLE_EPSILON), each
                                  luxel (1 - anglescale) + anglescale max(0, cos); qrad: only luxels it lights at cos > 0 */
    bool lightmap_pad4;       /* ericw: each face's block in the lighting lump padded to 4 samples (zeros after) */
    bool sky_no_lightmap;     /* ericw: sky faces get no lightmap (styles 255, offset -1; 0 x 0 in DECOUPLED_LM);
                                 qrad: they share the ambient block (write.c) */
    bool styles_by_brightness; /* ericw: a face's styles written brightest first (mean of its bytes), so style 0
                                  need not be first; qrad: style 0 first, then by style number */
    bool autominlight;        /* ericw: a bmodel's luxels in the world's solid take the light at the model's
                                 centre (its _autominlight; autominlight.c) */
    bool ericw_bounce;        /* ericw: the bounces as its point "bounce lights", one per face and style
                                 (bouncelights.c); qrad: patch radiosity (bounce.c) */
    bool qrad3_shadows;       /* -preset qrad3: translucent faces do not tint, alpha-tested ones do not shade and
                                 liquids are lit on their front only, as in qrad3 (trace.c, qrad_filter_setup) */
    bool qrad3_samples;       /* qrad3: luxels sample their texel corners a unit off the plane, moved towards the
                                 face's middle only when in solid or hidden from it (its CalcPoints) */
    bool qrad3_model_pvs;     /* qrad3: a brush model's luxel is culled by the PVS where it samples, and one in a
                                 leaf of no cluster (solid) gets no direct light (its PvsForOrigin) */
    bool qrad3_minlight;      /* qrad3: _minlight (worldspawn's for the world, a model's own) raises a luxel of
                                 every style whose brightest channel is under it, keeping its hue (FinalLightFace) */
    bool qrad3_transfers;     /* qrad3: bounce rays pass through windows and brush models, lighting each face they
                                 cross, those patches gather from the faces behind them too, and a patch's light is
                                 split among all it lights (its MakeTransfers) */
    bool qrad3_pvs;           /* qrad3: the PVS as the bsp has it, not opened across liquid surfaces */
    bool qrad3_light;         /* -preset qrad3: its surface lights as point emitters at its patches'
                                 centres, its byte conversion (every channel at least 1, truncated), no phong */
    /* BSPX output (lightgrid.c, facenormals.c, decoupled.c); all off by
     * default, and off they leave the output exactly as before. */
    bool lightgrid;          /* -lightgrid: LIGHTGRID_OCTREE */
    bool lightgrid_dist_set; /* -lightgrid_dist given (worldspawn's key is then ignored) */
    double lightgrid_dist[3];
    bool wrnormals;          /* -wrnormals: FACENORMALS */
    double world_units_per_luxel; /* -world_units_per_luxel: DECOUPLED_LM; 0 = off */
    bool novanilla;          /* -novanilla: only the decoupled lightmaps */
    int soft;                /* -soft N: each luxel the mean of its (2N+1)^2 square on its face; 0 = off */
    /* The MAP.groupkeys side file's bytes (formats/groupkeys.h), NULL for
     * none; groupkeys_name is its path, for messages. */
    const uint8_t *groupkeys;
    size_t groupkeys_size;
    const char *groupkeys_name;
    /* ericw-tools' MAP.texinfo.json beside the bsp (formats/texinfojson.h),
     * NULL for none: the same keys per texinfo from ericw-tools' qbsp. */
    const uint8_t *texinfojson;
    size_t texinfojson_size;
    const char *texinfojson_name;
} qrad_opts_t;

void qrad_opts_default(qrad_opts_t *o);

enum { LIGHT_POINT = 0, LIGHT_SPOT = 1, LIGHT_SURFACE = 2 };
enum {
    FALLOFF_LINEAR = 0,
    FALLOFF_INVERSE = 1,
    FALLOFF_INVERSE2 = 2,
    FALLOFF_NONE = 3,
    FALLOFF_LOCALMIN = 4, /* ericw delay 4: no falloff, raises luxels to its level at most */
    FALLOFF_INVERSE2B = 5 /* ericw delay 5: 1/(1+d/128)^2, no bright core */
};

/* Minlight in ericw-tools' Quake 2 scale: 1.0 is this many luxel units. */
#define Q2_MINLIGHT_SCALE 128.0

/* Settings of one bmodel (index = model number) from its entity's keys,
 * worldspawn's for model 0 and as the default of every other. */
typedef struct model_keys_t {
    double phong_angle;    /* degrees; 0 = flat */
    int phong_group;       /* models with the same nonzero group smooth together */
    double minlight;       /* luxel units */
    vec3_t minlight_color; /* 0..1 per channel */
    char minlight_exclude[32];
    bool minlight_dirt;
    bool shadow, shadowself, shadowworldonly;
    int object_mask;       /* _object_channel_mask */
    bool nodirt;           /* _dirt -1 */
    bool nobounce;         /* _bounce -1 */
    double maxlight;       /* _maxlight in luxel units (before -scale); 0 = none */
    bool lightignore;      /* _lightignore: minimum light only */
    bool mottle;           /* _minlight_mottle: noise added to the minimum light */
    double phong_concave;  /* _phong_angle_concave, degrees; 0 = phong_angle */
    double upl;            /* keysets only: _world_units_per_luxel, 0 = the model's */
    double light_alpha;    /* _light_alpha 0..1: the share of light a translucent face tints; < 0 = unset
                              (TRANS33 0.33, TRANS66 0.66: trace.c) */
    int light_twosided;    /* _light_twosided 0/1; < 0 = unset (liquids and translucent faces are two-sided) */
} model_keys_t;

/* Worldspawn's dirtmapping (ambient occlusion) settings. */
typedef struct dirt_t {
    bool on;        /* some light (or minlight) uses dirt */
    bool global;    /* worldspawn _dirt 1 or -dirt: lights default to dirty */
    int mode;       /* 0 ordered, 1 jittered (hashed, still deterministic) */
    double depth, scale, gain, angle;
    bool dome;      /* _sunlight2_dirt: the domes are dirty (default: global) */
    bool custom;    /* some light has its own _dirtscale/_dirtgain: rface_t.dirtraw is kept */
} dirt_t;

typedef struct light_t {
    int type;
    int style;
    int falloff;
    vec3_t origin;    /* point/spot: position; surface: piece centroid */
    vec3_t color;     /* normalized so the brightest channel is 1 (points) or
                         exitance per channel (surfaces) */
    double intensity; /* point/spot: qrad3 "light" value times -entity */
    double wait;      /* distance scale of the falloff */
    double fade_dist; /* linear: ericw _falloff, the distance where it reaches 0; 0 = intensity/wait */
    vec3_t dir;       /* spot: unit direction it shines; surface: normal */
    double stopdot;   /* spot: cos of the cone half-angle */
    double range;     /* beyond this the contribution is below LIGHT_CUTOFF */
    int cluster;      /* -1 when unknown (no PVS culling) */
    int light_mask;   /* _light_channel_mask */
    int shadow_mask;  /* _shadow_channel_mask */
    bool dirt;        /* darkened by the dirtmap */
    bool dirtcustom;  /* it has its own _dirtscale/_dirtgain: */
    double dirtscale, dirtgain; /* < 0 = worldspawn's */
    double softdot;   /* spot: cos of the _softangle inner cone (full light inside); 0 = hard edge */
    double bouncescale; /* _bouncescale: its share in the bounced light */
    double anglescale;  /* weight of the incidence cosine: (1 - a) + a cos; 1 = qrad3's pure cosine */
    bool rescale;       /* surface: ericw's _surflight_rescale (both cosines 0.5 + 0.5 cos) */
    bool point_emitter; /* surface: qrad3's emit_surface, a point a unit off the piece's centre giving
                           color * area * cos * cos / d^2 (color: its base light times -direct) */
    bool negative;      /* a negative "light": intensity holds its size; it takes light away after the
                           floors (ericw-tools' order), style 0 only */
    /* surface lights only */
    int face;
    double area;
    int numpoints;
    vec3_t *points;   /* the piece's polygon */
} light_t;

typedef struct sun_t {
    bool on;
    vec3_t dir;       /* unit vector pointing towards the sun */
    vec3_t color;     /* normalized */
    double intensity;
    double penumbra;  /* degrees (half-angle of the sun's disk) */
    double dome;      /* _sunlight2: light from the whole upper sky */
    vec3_t dome_color;
    double dome3;     /* _sunlight3: light from the lower sky */
    vec3_t dome3_color;
    double diffuse;   /* arghrad _sun_diffuse: glow around sunlit edges */
    double diffwait;  /* arghrad _sun_diffwait/_sun_difwait: its fade scale */
    bool dirt;        /* _sunlight_dirt (a _sun light's _dirt): darkened by the dirtmap */
    int style;        /* arghrad _sun_style, a _sun light's style */
    char texture[32]; /* ericw _suntexture: only sky faces of this texture let it in; "" = all */
} sun_t;

/* Extra suns beyond the first (ericw _sun lights, arghrad _sun2.._sun9). */
#define MAX_EXTRA_SUNS 16

/* Per-face geometry and results. */
typedef struct rface_t {
    int model;
    int keys;          /* index into qrad_t.mkeys: the model's, or a func_group/func_detail keyset (models.c) */
    bool lit;          /* gets a computed lightmap (false: sky, constant fill) */
    bool sky;
    bool emits;
    int texflags;
    bool twosided;     /* lit from behind as from in front: liquids and translucent faces (trace.c) */
    vec3_t normal;     /* facing normal (plane flipped by side) */
    double dist;
    vec3_t offset;     /* bmodel origin */
    int numpoints;
    vec3_t *points;    /* winding in world space (offset applied) */
    vec3_t centroid;
    double area;
    face_extents_t ext;
    int w, h;          /* luxels */
    vec3_t *samples;   /* w*h sample points (nudged, clamped, offset applied) */
    int *clusters;     /* w*h clusters (-1 unknown) */
    vec3_t *lnormals;  /* w*h phong-smoothed normals, NULL when flat */
    vec3_t *vnormals;  /* numpoints smoothed vertex normals, NULL when flat */
    double tex_to_world[3][4]; /* (s, t, plane dist) -> world point; column 3: one unit of plane dist at the same (s, t) */
    vec3_t reflect;    /* texture reflectivity 0..1 */
    int numstyles;
    int styles[MAXLIGHTMAPS];
    float *light;      /* numstyles * w*h * 3, luxel units before -scale */
    int firstpatch, numpatches, pw, ph; /* bounce patch grid */
    float *nobounce;   /* w*h*3 style-0 light kept out of the bounces (_bouncescale < 1); NULL = none */
    float *dirtmap;    /* w*h dirt factors 0..1, NULL when no dirt */
    float *dirtraw;    /* w*h mean occlusion before _dirtscale/_dirtgain during the direct pass (dirt.custom), else NULL */
    float *localmin;   /* w*h*3 floor from delay-4 lights (local minlight); NULL = none */
    float *negative;   /* w*h*3 style-0 light negative lights take away after the floors; NULL = none */
    uint8_t *bytes;    /* numstyles * w*h * 3 lightmap bytes from qrad_finish; NULL: write.c makes them */
} rface_t;

typedef struct bvh_node_t bvh_node_t;
typedef struct rtri_t rtri_t;

typedef struct transfer_t transfer_t;

typedef struct tnode_t tnode_t;

typedef struct tracer_t {
    int numtnodes, headnode;
    tnode_t *tnodes; /* the world's bsp tree for line tests; NULL without one */
    int numtris;
    rtri_t *tris;
    int numnodes;
    bvh_node_t *nodes;
    int numskytris; /* the sky faces' triangles alone, for trace_sky (the world's tracer only) */
    rtri_t *skytris;
    int numskynodes;
    bvh_node_t *skynodes;
    /* the world tracer's tris' indices face by face (the dome's seen
     * faces): face f's are facetri[facetri_first[f]] up to
     * facetri[facetri_first[f + 1]] (numfacetri faces; 0 elsewhere) */
    int numfacetri;
    int *facetri_first, *facetri;
    /* the same triangles two to a record, lane 1 the next of the face's
     * (the last repeated), for ray_tri2: face f's are
     * facepairs[facepair_first[f]] up to [f + 1]; NULL without sky, on
     * the portable build, and in tracers other than the world's */
    rtri_t *facepairs;
    int *facepair_first;
    /* the world tracer's wide nodes' parents (-1 at the root) and, per
     * triangle, the wide node whose child its leaf is: where the next ray
     * of a direction looks first (trace_sky_dir); NULL elsewhere */
    int *wparent, *trinode;
    /* each solid leaf's way from the head node (trace_witness_blocks):
     * leaf l's are solidpath[solidpath_first[l]] up to [l + 1], as node *
     * 2 + child; NULL where the tree is not a plain tree */
    int numsolidpathleafs;
    int *solidpath_first, *solidpath;
    double *solidplanes; /* their planes, leaf by leaf: x, y, z, dist */
    int *tdepth;         /* a node's depth below the head (-1: no solid leaf below it) */
    /* each solid leaf's witness planes (witness_reduce), as solidplanes
     * are laid out: leaf l's block of wred_first[l + 1] - wred_first[l]
     * records, WITNESS_PAD of them padding, none where the leaf's way
     * serves; NULL where there are no ways */
    int *wred_first;
    double *wredplanes;
    bool avx2;           /* the witness test may take its AVX2 form (common/cpu.h) */
    bool wide_avx2;      /* the hierarchy's walks (sky, closest hits) may take their AVX2 forms */
} tracer_t;

struct qrad_t;

/* Worldspawn keys every light entity reads (lights.c). */
typedef struct world_light_keys_t {
    double dist;   /* _dist: multiplies every light's wait */
    double range;  /* _range: brightness scale, 0.5 = as the light says */
    bool spotauto; /* _spotlightautofalloff */
    bool sun_dirt; /* _sunlight_dirt (default: _dirt) */
} world_light_keys_t;

typedef struct qrad_t {
    world_light_keys_t world_light_keys; /* read by qrad_lights_setup */
    const qrad_opts_t *opts;
    bsp_t *bsp;
    log_t *log;
    texdb_t *texdb; /* may be NULL: textures not found, grey and white */
    entity_list_t ents;
    rface_t *faces;
    int numlights, caplights;
    light_t *lights;
    sun_t sun;
    int numsuns;               /* extra suns */
    bool sun_from_world;       /* worldspawn keys made q->sun */
    int sun_lights;            /* "_sun" "1" lights seen */
    sun_t suns[MAX_EXTRA_SUNS];
    tracer_t tracer;
    tracer_t shadows;          /* faces of bmodels that cast shadows (_shadow, _shadowself) */
    tracer_t filter;           /* the world's translucent and alpha-tested faces (trace_filter); empty: none */
    struct filterface_t *filterfaces; /* per face: what it does to light crossing it; NULL without filter faces */
    int numbrushshadows;       /* shadow-casting bmodels without faces (nodraw, skip): their own tree's solid leafs */
    int *brushshadow_model;    /* numbrushshadows model numbers */
    vec3_t *brushshadow_offset; /* their entities' origins */
    model_keys_t *mkeys;       /* per model, then the Q2MAP_GROUPKEYS keysets (models.c) */
    int nummkeys;              /* models + keysets */
    int *face_keys;            /* per face its mkeys index; NULL: every face its model's */
    dirt_t dirt;
    vec3_t ambient;            /* arghrad worldspawn _ambient, luxel units per channel */
    bool any_bouncescale;      /* some light has _bouncescale != 1 */
    int bounces;               /* -bounce, or worldspawn's _bounce */
    double bouncescale;        /* -bouncescale times worldspawn's _bouncescale */
    double bouncecolorscale;   /* worldspawn _bouncecolorscale; < 0 = texture colour as is */
    double tex_saturation_boost; /* worldspawn _tex_saturation_boost 0..1 (surflights.c reads it) */
    bool any_channels;         /* some light or model uses a channel mask other than 1 */
    bool world_channels;       /* some func_group keyset of the world has an _object_channel_mask other than 1 */
    bool any_localmin;         /* some light has delay 4 */
    bool any_negative;         /* some light has a negative "light" */
    double world_anglescale;   /* worldspawn _anglescale, every light's default */
    double sun_anglescale;     /* the suns' _anglescale: -anglescale, else worldspawn's (ericw-tools' suns read it too) */
    int numclusters;
    uint8_t *pvs; /* numclusters rows of rowbytes, NULL without vis */
    int pvs_rowbytes;
    /* bounce */
    int numpatches;
    struct patch_t *patches;
    transfer_t *transfers;
    struct decoupled_t *decoupled; /* decoupled.c's state, NULL when off */
    struct automin_t *automin;     /* autominlight.c: per model its centre sample; NULL when off */
    /* statistics */
    long luxels, rays;
    int surface_pieces;
    vec3_t *surf_floor;        /* per face: _surflight_minlight_scale floor (surflights.c); NULL = none */
    vec3_t *surf_self;         /* per face: qrad3's own emission added to style 0 (surflights.c); NULL = none */
    /* Ranks (common/dist.h): whether every rank needs every face's samples
     * and light after the direct pass (the light grid and _bouncestyled
     * read other faces' light); else a face's samples and light stay on
     * the rank that lit it, which also finishes it (qrad_finish) on the
     * direct pass's items, kept here (also with full_exchange when there
     * are decoupled lightmaps, which are finished there too). */
    double world_upl;          /* DECOUPLED_LM's units per luxel: -world_units_per_luxel, else worldspawn's
                                  _world_units_per_luxel (ericw-tools' global setting); 0 = none */
    bool full_exchange;
    struct dist_items_t *direct_items;
} qrad_t;

/* Whether some bmodel casts shadows (trace_occluded_models can block). */
static inline bool qrad_any_model_shadows(const qrad_t *q) { return q->shadows.numnodes > 0 || q->numbrushshadows > 0; }

typedef struct patch_t {
    int face;
    vec3_t origin;
    vec3_t normal;
    vec3_t direct;   /* average style-0 direct light over its luxels */
    vec3_t incident; /* bounced light arriving (H) */
    vec3_t exitance; /* reflected light leaving (R) */
    int firsttransfer, numtransfers;
    int raygrid; /* rays cast: raygrid^2 */
    int lit;     /* qrad3_transfers: the patches its rays light, all rays together (its light is split among them) */
} patch_t;

/* rad.c */
/* Lights the bsp in memory: setup, direct, bounce, write. texdb may be NULL. */
bool qrad_run(bsp_t *bsp, const qrad_opts_t *opts, texdb_t *texdb, log_t *log, stage_times_t *st,
              qrad_t *stats_out, q2err_t *err);
/* The stages qrad_run chains, for tests that inspect or alter the context
 * between them. */
bool qrad_begin(qrad_t *q, bsp_t *bsp, const qrad_opts_t *opts, texdb_t *texdb, log_t *log, q2err_t *err);
void qrad_end(qrad_t *q);

#endif
