/* dae_curves.h - a Collada file's animation curves as the file writes
 * them (dae_curves.c, libxml2), read beside Assimp: Assimp's Collada
 * reader keeps each sampler's keys and plays every curve as LINEAR
 * between them, dropping STEP, BEZIER and HERMITE. No Assimp type here.
 *
 * What is read: every <node>'s transform stack (translate, rotate, scale,
 * matrix, in document order; a node with <lookat> or <skew> is not
 * evaluated), the <animation> channels that target one of its elements,
 * whole ("node/sid") or one member ("node/sid.X|Y|Z|ANGLE",
 * "node/sid(i)" and "node/sid(col)(row)" of a row-major <matrix>), their
 * samplers (INPUT, OUTPUT, INTERPOLATION, IN_TANGENT, OUT_TANGENT), and
 * <library_animation_clips>. Interpolation per key, for the segment that
 * key starts (COLLADA 1.4.1/1.5, "Curve Interpolation"):
 *   LINEAR   the values lerped in time (also a key that names none);
 *   STEP     the key's value held until the next key;
 *   BEZIER   a cubic Bezier in (time, value): with 2-D tangents (a
 *            tangent's stride twice the output's) the out-tangent of the
 *            key and the in-tangent of the next are the control points
 *            (time, value) of each component, and the value at time t is
 *            the curve's at the parameter s where its time is t (solved);
 *            with 1-D tangents they are the control values, at the thirds
 *            of the segment in time;
 *   HERMITE  the spec's Hermite form, P0, P1 and the tangent vectors T0
 *            (the key's out-tangent) and T1 (the next key's in-tangent),
 *            derivatives by the segment's parameter s: the Bezier with
 *            C0 = P0 + T0 / 3 and C1 = P1 - T1 / 3 (the spec's relation),
 *            in (time, value) for 2-D tangents, in value (time linear in
 *            s) for 1-D ones.
 * A BEZIER or HERMITE key whose sampler lacks tangents (or whose tangents
 * have another stride) is linear. Before the first key a curve holds its
 * first value, after the last its last. An animated <matrix> is kept
 * affine (bottom row 0 0 0 1), as ColladaMax files need. These are the
 * rules ../shared/oracle/dae_spec.py evaluates by. */
#ifndef SKV_DAE_CURVES_H
#define SKV_DAE_CURVES_H

#include <stddef.h>

#include "error.h"

typedef struct dae_curves dae_curves;

/* The file's curves from its bytes (in memory: no file, entity or network
 * is read). SKV_ERR_IMPORT with one line ("Collada: ...") for a document
 * libxml2 cannot parse, one that declares entities, or one over the size
 * bound; SKV_ERR_MEMORY. Channels that do not hold together (a sampler
 * without keys, times out of order, a target that is not there) are left
 * out, as nothing evaluates them. */
skv_result dae_curves_read(const unsigned char *bytes, size_t size, dae_curves **out, skv_error *err);
void dae_curves_destroy(dae_curves *curves);

/* Does the file name a curve that is not linear (a cheap look for the
 * names, no parse)? */
int dae_curves_wanted(const unsigned char *bytes, size_t size);

/* The <animation_clip> whose name (else id) is `name`, or -1: the caller
 * then takes every animation of the file (a file without clips plays all
 * at once). */
int dae_curves_clip(const dae_curves *curves, const char *name);

/* The node of id `id` that can be evaluated (no <lookat>/<skew>), or -1. */
int dae_curves_node(const dae_curves *curves, const char *id);

/* Has node `node` a channel (in clip `clip`, -1: any) whose curve has a
 * key that is not LINEAR? */
int dae_curves_node_curved(const dae_curves *curves, int node, int clip);

/* Node `node`'s local transform at `seconds` by the channels of `clip`
 * (-1: all), column-major (m[col * 4 + row]), each curve as above. `left`:
 * at a key's own time, the value the segment before it ends with (a STEP
 * then still holds the previous key); otherwise the key's value. */
void dae_curves_local(const dae_curves *curves, int node, int clip, double seconds, int left, double m[16]);

/* A node's curves sampled for linear playback: keys at every key time of
 * its channels and between them where the curves bend, dense enough that
 * T lerped, R slerped and S lerped between keys stay within ~1e-4 of the
 * local transform (relative to the node's largest translation for T); a
 * jump (STEP) is two keys at one time, the value before it and after it.
 * Times in seconds. */
typedef struct dae_baked {
    int count;
    double *times;
    float (*t)[3];
    float (*q)[4]; /* x y z w */
    float (*s)[3];
} dae_baked;

/* Bakes node `node` of clip `clip` (-1: all) into *out, at most
 * `max_keys` keys: SKV_ERR_ARGUMENT (with a line) past that, so that the
 * caller keeps the linear keys it has; SKV_ERR_MEMORY. */
skv_result dae_curves_bake(const dae_curves *curves, int node, int clip, int max_keys, dae_baked *out,
                           skv_error *err);
void dae_baked_free(dae_baked *baked);

/* A 2-D cubic Bezier from (t0, v0) over the control points (c0t, c0v),
 * (c1t, c1v) to (t1, v1), at time t in [t0, t1]: its value where its time
 * is t (the parameter found by bisection: the time polynomial need not be
 * monotonic, and the oracle's choice of root is kept). */
double dae_bezier_value(double t0, double v0, double c0t, double c0v, double c1t, double c1v, double t1, double v1,
                        double t);

#endif
