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
 *   bouncelights.c ericw's bounce (-preset ericw): a point light per face and style
 *   autominlight.c ericw's autominlight: a bmodel's luxels in solid take the
 *               light at the model's centre (-preset ericw)
 *   minlight.c  floors after the bounces: _minlight, local minlight, _ambient,
 *               autominlight, negative lights; then _lightignore, _maxlight,
 *               -soft and _gamma on every style
 *   write.c     the lighting lump, face styles and offsets in face order
 *   rad.c       the driver (qrad_run) used by main.c and by the tests
 * Everything is deterministic: fixed sample patterns, per-face work with no
 * shared accumulation, offsets allocated after the parallel loops. */
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
    /* tris' indices face by face: face f's are facetri[facetri_first[f]]
     * up to facetri[facetri_first[f + 1]] (numfacetri faces) */
    int numfacetri;
    int *facetri_first, *facetri;
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

/* lights.c */
bool qrad_lights_setup(qrad_t *q, q2err_t *err);
void qrad_lights_free(qrad_t *q);
/* Yaw/pitch (degrees) to a unit vector, as Quake's mangle. */
vec3_t qrad_angles_to_vec(double yaw, double pitch);

/* keys.c: entity keys read with checks; a bad value is a warning naming
 * the entity, key and line, and the default is used. */
double qrad_key_float(const struct qrad_t *q, const entity_t *e, const char *key, double dflt, double lo, double hi);
int qrad_key_int(const struct qrad_t *q, const entity_t *e, const char *key, int dflt, int lo, int hi);
/* "r g b" in 0..255 or 0..1, as 0..1 channels; false (warned if malformed) when absent. */
bool qrad_key_color(const struct qrad_t *q, const entity_t *e, const char *key, vec3_t *out);
const entity_t *qrad_worldspawn(const struct qrad_t *q);
/* Line of the key's pair in the entity lump (the entity's when unknown). */
int qrad_key_line(const entity_t *e, const char *key);

/* models.c */
bool qrad_models_setup(struct qrad_t *q, q2err_t *err);
void qrad_models_free(struct qrad_t *q);
/* Does a caster model block light travelling to a face of model recv, for
 * a light of this shadow mask? */
bool qrad_model_blocks(const struct qrad_t *q, int caster, int recv, int shadow_mask);

/* dirt.c */
void qrad_dirt_setup(struct qrad_t *q);
/* Per-luxel dirt factor in 0..1 (1 = open) for a lit face; NULL when off.
 * With dirt.custom, *raw gets the occlusion before scale and gain. */
float *qrad_dirt_face(const struct qrad_t *q, int fi, const rface_t *f, long *rays, float **raw);
/* The dirt factor of luxel idx for a light with these _dirtscale/_dirtgain
 * (< 0: worldspawn's, which is the precomputed f->dirtmap). */
double qrad_dirt_factor(const struct qrad_t *q, const rface_t *f, int idx, double scale, double gain);

/* minlight.c: after direct and bounce, style 0 only. */
void qrad_minlight(struct qrad_t *q);
/* The same face by face: qrad_minlight_begin reads the keys (false: there
 * is nothing to do), qrad_minlight_face does one face. */
typedef struct qrad_minlight_t {
    bool ambient, any, finish;
    double gamma;
} qrad_minlight_t;
bool qrad_minlight_begin(struct qrad_t *q, qrad_minlight_t *m);
void qrad_minlight_face(struct qrad_t *q, const qrad_minlight_t *m, int fi);

/* trace.c */
bool tracer_build(tracer_t *t, const qrad_t *q, q2err_t *err);
bool tracer_build_tree(tracer_t *t, const bsp_t *bsp, q2err_t *err);
void tracer_free(tracer_t *t);
/* True if a face of the BVH blocks the segment a-b. */
bool trace_occluded_faces(const tracer_t *t, vec3_t a, vec3_t b);
/* True if the segment a-b crosses solid: through the bsp tree's solid leaves
 * (qrad3's semantics: windows and liquids let light through), or through the
 * BVH's faces when the bsp has no tree. */
bool trace_occluded(const struct qrad_t *q, vec3_t a, vec3_t b);
/* True if a shadow-casting bmodel face blocks a-b for a receiver of model
 * recv and a light of this shadow mask. */
bool trace_occluded_models(const struct qrad_t *q, vec3_t a, vec3_t b, int recv, int shadow_mask);
/* Builds q->shadows over the faces of casting bmodels (none: empty). */
bool tracer_build_shadows(tracer_t *t, const struct qrad_t *q, q2err_t *err);
/* The world's liquid surfaces (warp, not sky), which light passes through
 * (trace_occluded) but -preset qrad3's bounces stop at (bounce.c). */
bool qrad_face_liquid(const struct qrad_t *q, int f);
/* ericw-tools' filter faces (light/trace_embree.cc) in both models but
 * -preset qrad3's: the world's translucent (TRANS33/66) and alpha-tested
 * (SURF_ALPHATEST) faces in q->filter, and each face's twosided flag.
 * Shadows still come from the bsp tree; trace_filter then says what these
 * faces do to light that the tree let through. */
void qrad_filter_setup(struct qrad_t *q);
void qrad_filter_free(struct qrad_t *q);
/* Light from b to a: false when an opaque texel of an alpha-tested face
 * between them stops it; else *tint (per channel) is multiplied by each
 * translucent face's tint. Cheap when there are no filter faces. */
bool trace_filter(const struct qrad_t *q, vec3_t a, vec3_t b, vec3_t *tint);
bool tracer_build_liquids(tracer_t *t, const struct qrad_t *q, q2err_t *err);
/* -preset qrad3's transfers pass through what its TestLine does not stop
 * at (only the world's solid leaves do) yet light it: the world's
 * translucent faces (windows) and every brush model's face. */
bool qrad3_see_through(const struct qrad_t *q, int f);
bool tracer_build_see_through(tracer_t *t, const struct qrad_t *q, q2err_t *err);
/* The shadow-casting bmodels that have no faces (after tracer_build_tree):
 * ericw-tools shades with brushes, so a _shadow 1 func_wall of nodraw
 * brushes still casts its shadow. */
void qrad_brush_shadows_setup(struct qrad_t *q);
void qrad_brush_shadows_free(struct qrad_t *q);
/* Closest hit along origin + t*dir for t in (TRACE_EPSILON, maxdist);
 * returns the face index or -1, and the distance. */
int trace_closest(const tracer_t *t, vec3_t origin, vec3_t dir, double maxdist, double *hitdist);
/* The same over the faces whose _object_channel_mask shares a bit with
 * mask (their model's, or their func_group's). */
int trace_closest_channels(const struct qrad_t *q, const tracer_t *t, vec3_t origin, vec3_t dir, double maxdist,
                           int mask, double *hitdist);
/* The sky face trace_closest would find along origin + t*dir, or -1 where
 * the closest hit is none or not sky; faster where only that matters. */
int trace_sky(const tracer_t *t, vec3_t origin, vec3_t dir, double maxdist, double *hitdist);
/* A direction as the hierarchies take it, made once (trace_dir_init) for
 * the many rays that share it: its reciprocals and box sides cost as much
 * as a short walk. */
typedef struct trace_dir_t {
    vec3_t d;
    float inv[3];
    int nearoff[3], faroff[3];
} trace_dir_t;
void trace_dir_init(trace_dir_t *td, vec3_t dir);
/* The face whose triangle in the world's hierarchy blocked a ray (-1:
 * none yet): the rays of one direction from a face's luxels are mostly
 * blocked by the same face, and trying its triangles first spares their
 * walks. */
typedef struct trace_hit_t {
    int face; /* the face of the triangle met */
} trace_hit_t;
/* trace_sky along a direction made by trace_dir_init: the same answer.
 * seen (or NULL): tried first; left holding what blocks this ray, if
 * something does. */
int trace_sky_dir(const tracer_t *t, vec3_t origin, const trace_dir_t *dir, double maxdist, double *hitdist,
                  trace_hit_t *seen);
int qrad_point_leaf(const bsp_t *bsp, vec3_t p);
/* qrad_point_leaf over the tracer's copy of the tree (once built): the
 * same leaf, in a walk that touches one small record per node. */
int trace_point_leaf(const qrad_t *q, vec3_t p);
/* The same with the side of a point on a node's plane chosen: the back
 * child when on_plane_back (qrad3's PointInLeafnum), else the front. */
int qrad_point_leaf_side(const bsp_t *bsp, vec3_t p, bool on_plane_back);
bool qrad_point_solid(const bsp_t *bsp, vec3_t p);
int qrad_point_cluster(const bsp_t *bsp, vec3_t p);
bool qrad_pvs_setup(qrad_t *q, q2err_t *err);
/* Whether the world shades a light of this _shadow_channel_mask between a
 * and b: the world is on channel 1, and a func_group's faces on the
 * channels of its _object_channel_mask (ericw-tools). */
bool trace_occluded_channels(const qrad_t *q, vec3_t a, vec3_t b, int shadow_mask);
/* The world tree's node from which every segment from a point of box to b
 * runs as from the top (INT_MIN without a tree), and the tests that start
 * there: the same answers as trace_occluded and trace_occluded_channels
 * for such segments, without the nodes they all pass alike. */
int trace_start_node(const qrad_t *q, aabb_t box, vec3_t b);
bool trace_occluded_from(const qrad_t *q, int start, vec3_t a, vec3_t b);
bool trace_occluded_channels_from(const qrad_t *q, int start, vec3_t a, vec3_t b, int shadow_mask);
static inline bool qrad_cluster_visible(const qrad_t *q, int from, int to)
{
    if (!q->pvs || from < 0 || to < 0) return true;
    return (q->pvs[(size_t)from * q->pvs_rowbytes + (to >> 3)] >> (to & 7)) & 1;
}

/* facegeom.c */
bool qrad_faces_setup(qrad_t *q, q2err_t *err);
/* Calls fn for every face on the rank's threads, in chunks of
 * QRAD_LOCAL_CHUNK faces, each chunk an item of a traced local loop
 * (common/dist.h); fn may write only what belongs to face fi. */
void qrad_faces_parallel(const qrad_t *q, void (*fn)(const qrad_t *q, int fi, void *ctx), void *ctx);
void qrad_faces_free(qrad_t *q);
/* World point of texture coordinates (s, t) on the face's plane. */
vec3_t rface_tex_to_world(const rface_t *f, double s, double t);
/* Texture coordinates of a world point. */
void rface_world_to_tex(const qrad_t *q, int face, vec3_t p, double *s, double *t);
/* The closest point of the face's polygon to p (p projected on its plane). */
vec3_t rface_clamp(const rface_t *f, vec3_t p);

/* Luxel sample points, clusters and phong normals of a face whose w, h,
 * ext.texturemins and tex_to_world are set (one luxel per LIGHTMAP_SCALE). */
void qrad_face_samples(const qrad_t *q, rface_t *f);
/* -preset qrad3's sample points instead (its CalcPoints; facegeom.c). */
void qrad3_face_samples(const qrad_t *q, rface_t *f);
/* A face's samples, clusters and phong normals as bytes (for ranks). */
size_t qrad_samples_size(const rface_t *f);
void qrad_samples_pack(const rface_t *f, uint8_t *out);
void qrad_samples_unpack(rface_t *f, const uint8_t *in);
/* Frees a face's per-luxel buffers (samples, clusters, normals, light,
 * dirt and floors); its points and vertex normals stay. */
void rface_free_luxels(rface_t *f);
/* Luxels are lit in two passes: first those with both coordinates even,
 * then the rest, each between 2 or 4 luxels of the first pass (direct.c's
 * dome light, dirt.c). Stores the traced neighbours of luxel (i, j) in nb
 * and returns their count. */
int qrad_traced_neighbours(const rface_t *f, int i, int j, int nb[4]);

/* color.c: colour helpers under every stage. */
/* Final byte value of a channel triple after -scale, -ambient, -maxlight. */
void qrad_final_color(const qrad_opts_t *o, const float in[3], bool style0, uint8_t out[3]);
/* -dirtdebug: the block of a lit face's style 0 (out, w*h*3 bytes) as its
 * dirt factors alone, 255 x each (255 where the face has none). */
void qrad_dirtdebug_bytes(const float *dirtmap, int n, uint8_t *out);
/* Fills bytes of lightmap with the ambient level: the block that the faces
 * without a lightmap of their own share (see write.c). */
void qrad_fill_ambient(const qrad_opts_t *o, uint8_t *data, size_t bytes);
/* ericw's _tex_saturation_boost of a texture colour (0..1 channels): the
 * colour squared, doubled, brought back under 1, mixed in by boost. */
vec3_t qrad_saturation_boost(vec3_t c, double boost);

/* direct.c */
/* The direct pass over q->faces: each face's sample points (when it has
 * none yet), its light and, with bounce patches laid out
 * (qrad_bounce_layout), its patches' origins and direct light; with
 * decoupled lightmaps, the decoupled face's samples and direct light too. */
bool qrad_direct(qrad_t *q, q2err_t *err);
/* Irradiance factor of a uniformly emitting polygon at point p with normal
 * n: the form factor times pi (Lambert's contour integral), with the polygon
 * clipped to the receiver's hemisphere. */
double polygon_irradiance(const vec3_t *pts, int n, vec3_t p, vec3_t normal);
/* A point or spot light's value dist away (dir: unit, towards the light)
 * for a receiver whose cosine term (with _anglescale applied) is dot: its
 * falloff and cone, no shadow. */
double qrad_point_light_value(const light_t *l, double dist, double dot, vec3_t dir);
/* ericw-tools' sky dome (its SetupSkyDome) for -sunsamples `samples`: the
 * directions towards its suns, *count of them (malloc'd). */
vec3_t *qrad_dome_ring_dirs(int samples, int *count);

/* bounce.c */
/* With q->full_exchange the whole radiosity; else up to the solved
 * patches, the rest being qrad_finish's. */
bool qrad_bounce(qrad_t *q, q2err_t *err);
/* The patch grid of every face (before the direct pass fills it). */
void qrad_bounce_layout(qrad_t *q);
/* Origins and average direct light of face fi's patches, from its samples
 * and light. */
void qrad_patch_face(qrad_t *q, int fi);
/* Bounced light into one face's style-0 luxels, after the solve. */
typedef struct qrad_gather_t qrad_gather_t;
qrad_gather_t *qrad_gather_begin(const qrad_t *q);
void qrad_gather_face(const qrad_t *q, const qrad_gather_t *g, int fi);
void qrad_gather_end(qrad_gather_t *g);
/* One iteration sweep for tests: solves `bounces` rounds over the patches
 * already made by qrad_bounce_setup. */
bool qrad_bounce_setup(qrad_t *q, q2err_t *err);
void qrad_bounce_solve(qrad_t *q, int bounces);
void qrad_bounce_apply(qrad_t *q);
void qrad_bounce_free(qrad_t *q);

/* write.c */
/* Without q->full_exchange, after the bounces: each face's bounced light,
 * minimum light and final touches and its lightmap bytes, on the rank that
 * lit it; the bytes go to rank 0, which alone goes on to write. */
bool qrad_finish(qrad_t *q, q2err_t *err);
/* A face written with no lightmap at all (styles 255, offset -1): a sky
 * face under opts->sky_no_lightmap (facegeom.c; write.c, decoupled.c). */
bool qrad_face_no_lightmap(const qrad_t *q, int fi);
/* The bytes a face's lightmap block takes in the lighting lump: samples
 * times styles, RGB, rounded up to 4 samples under opts->lightmap_pad4
 * (facegeom.c; write.c, decoupled.c). */
size_t qrad_lightmap_block(const qrad_opts_t *o, size_t samples, int numstyles);
bool qrad_write_lighting(qrad_t *q, q2err_t *err);

/* decoupled.c: DECOUPLED_LM. setup before the direct pass (every face's
 * decoupled geometry); in face fi's direct-pass item keep_face (the
 * vanilla luxels' direct light, so the bounce can be told apart) and the
 * decoupled face's own direct light; finish_face after the vanilla face's
 * bounces and floors, on the same rank (the bounced light under each fine
 * luxel, then the bytes); write on rank 0 after qrad_write_lighting. With
 * q->full_exchange qrad_decoupled_finish finishes every face, on the rank
 * that lit it. The bytes travel to rank 0 with pack and unpack. */
bool qrad_decoupled_setup(qrad_t *q, q2err_t *err);
/* Face fi's decoupled rface, NULL when there are no decoupled lightmaps. */
rface_t *qrad_decoupled_face(const qrad_t *q, int fi);
void qrad_decoupled_keep_face(qrad_t *q, int fi);
void qrad_decoupled_finish_face(qrad_t *q, int fi);
bool qrad_decoupled_finish(qrad_t *q, q2err_t *err);
size_t qrad_decoupled_bytes_size(const qrad_t *q, int fi);
void qrad_decoupled_pack(const qrad_t *q, int fi, uint8_t *out);
void qrad_decoupled_unpack(qrad_t *q, int fi, const uint8_t *in, size_t size);
bool qrad_decoupled_write(qrad_t *q, q2err_t *err);
void qrad_decoupled_free(qrad_t *q);
/* lightgrid.c: LIGHTGRID_OCTREE, after the lighting is written. */
bool qrad_lightgrid(qrad_t *q, q2err_t *err);
/* ericw-tools' FixLightOnFace for a point of its light grid: p if it is not
 * in the world's solid, else the first of its six moves of 2 units along
 * the axes that is; false (p unchanged) when none is. */
bool qrad_fix_point(const bsp_t *bsp, vec3_t *p);
/* facenormals.c: FACENORMALS (the phong normals facegeom.c computed). */
bool qrad_facenormals(qrad_t *q, q2err_t *err);
/* Removes the BSPX lumps an earlier qrad run wrote that this run does not
 * write again: they describe lighting that is being replaced. */
bool qrad_drop_stale_lumps(qrad_t *q, q2err_t *err);

/* rad.c */
/* Lights the bsp in memory: setup, direct, bounce, write. texdb may be NULL. */
bool qrad_run(bsp_t *bsp, const qrad_opts_t *opts, texdb_t *texdb, log_t *log, stage_times_t *st,
              qrad_t *stats_out, q2err_t *err);
/* The stages qrad_run chains, for tests that inspect or alter the context
 * between them. */
bool qrad_begin(qrad_t *q, bsp_t *bsp, const qrad_opts_t *opts, texdb_t *texdb, log_t *log, q2err_t *err);
void qrad_end(qrad_t *q);

#endif
