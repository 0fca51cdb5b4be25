/* retarget.c - a clip of one skeleton re-expressed as a clip of another
 * (retarget.h): joints matched by map, name and humanoid naming scheme,
 * the rigs' rest poses compared once, then the source sampled at its key
 * times and the target's local keys solved top-down at each. */
#include "retarget.h"
#include "anim.h"
#include "keys.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void retarget_map_free(skv_bone_map *map)
{
    for (int i = 0; i < map->count; i++) free(map->target[i]), free(map->source[i]);
    free(map->target);
    free(map->source);
    memset(map, 0, sizeof *map);
}

/* --- names ------------------------------------------------------------------ */

/* After the last ':' or '|' (the namespace prefix Mixamo and Blender's
 * exporters put before a bone's name). */
static const char *bare(const char *name)
{
    const char *b = name;
    for (const char *p = name; *p; p++)
        if (*p == ':' || *p == '|') b = p + 1;
    return b;
}

/* A name as the schemes' table spells it: namespace and Rigify's DEF-/ORG-
 * prefix off, 3ds Max's "Bip01 " (Bip001 ...) off, letters and digits
 * only, lower case: "Bip01 L Thigh" -> "lthigh", "thigh.L" and "thigh_l"
 * -> "thighl", "mixamorig:LeftUpLeg" -> "leftupleg". */
static void slot_key(const char *name, char *out, size_t size)
{
    const char *p = bare(name);
    if ((strncasecmp(p, "DEF-", 4) == 0 || strncasecmp(p, "ORG-", 4) == 0)) p += 4;
    size_t n = 0;
    for (; *p && n + 1 < size; p++)
        if (isalnum((unsigned char)*p)) out[n++] = (char)tolower((unsigned char)*p);
    out[n] = '\0';
    if (strncmp(out, "bip", 3) == 0) { /* bip01, bip001: the Biped's name */
        size_t k = 3;
        while (out[k] == '0') k++;
        if (out[k] == '1' && k > 3) memmove(out, out + k + 1, n - k);
    }
}

enum {
    SLOT_HIPS, SLOT_SPINE, SLOT_CHEST, SLOT_UPPER_CHEST, SLOT_NECK, SLOT_HEAD,
    SLOT_L_SHOULDER, SLOT_L_UPPER_ARM, SLOT_L_LOWER_ARM, SLOT_L_HAND,
    SLOT_L_UPPER_LEG, SLOT_L_LOWER_LEG, SLOT_L_FOOT, SLOT_L_TOES,
    SLOT_R_SHOULDER, SLOT_R_UPPER_ARM, SLOT_R_LOWER_ARM, SLOT_R_HAND,
    SLOT_R_UPPER_LEG, SLOT_R_LOWER_LEG, SLOT_R_FOOT, SLOT_R_TOES,
    SLOT_COUNT
};

static const char *const slot_names[SLOT_COUNT] = {
    "hips", "spine", "chest", "upper chest", "neck", "head",
    "left shoulder", "left upper arm", "left lower arm", "left hand",
    "left upper leg", "left lower leg", "left foot", "left toes",
    "right shoulder", "right upper arm", "right lower arm", "right hand",
    "right upper leg", "right lower leg", "right foot", "right toes",
};

const char *retarget_slot_name(int slot)
{
    return slot >= 0 && slot < SLOT_COUNT ? slot_names[slot] : NULL;
}

/* Each scheme's name per slot, as slot_key spells it ("" where it has
 * none). One scheme per rig: "spine" is the hips in Rigify's metarig, the
 * chest in CMU's BVH and the spine elsewhere. */
static const char *const schemes[][SLOT_COUNT] = {
    { /* Mixamo (mixamorig:), and ozz's and most FBX mocap */
     "hips", "spine", "spine1", "spine2", "neck", "head",
     "leftshoulder", "leftarm", "leftforearm", "lefthand", "leftupleg", "leftleg", "leftfoot", "lefttoebase",
     "rightshoulder", "rightarm", "rightforearm", "righthand", "rightupleg", "rightleg", "rightfoot", "righttoebase"},
    { /* CMU BVH (Debian's assimp-testmodels 01_01.bvh) */
     "hips", "lowerback", "spine", "spine1", "neck", "head",
     "leftshoulder", "leftarm", "leftforearm", "lefthand", "leftupleg", "leftleg", "leftfoot", "lefttoebase",
     "rightshoulder", "rightarm", "rightforearm", "righthand", "rightupleg", "rightleg", "rightfoot", "righttoebase"},
    { /* 3ds Max Biped, "Bip01 " off */
     "pelvis", "spine", "spine1", "spine2", "neck", "head",
     "lclavicle", "lupperarm", "lforearm", "lhand", "lthigh", "lcalf", "lfoot", "ltoe0",
     "rclavicle", "rupperarm", "rforearm", "rhand", "rthigh", "rcalf", "rfoot", "rtoe0"},
    { /* Unreal's mannequin */
     "pelvis", "spine01", "spine02", "spine03", "neck01", "head",
     "claviclel", "upperarml", "lowerarml", "handl", "thighl", "calfl", "footl", "balll",
     "clavicler", "upperarmr", "lowerarmr", "handr", "thighr", "calfr", "footr", "ballr"},
    { /* Blender's Rigify metarig (spine .. spine.006) */
     "spine", "spine001", "spine002", "spine003", "spine004", "spine006",
     "shoulderl", "upperarml", "forearml", "handl", "thighl", "shinl", "footl", "toel",
     "shoulderr", "upperarmr", "forearmr", "handr", "thighr", "shinr", "footr", "toer"},
    { /* Blender's older human metarig */
     "hips", "spine", "chest", "", "neck", "head",
     "shoulderl", "upperarml", "forearml", "handl", "thighl", "shinl", "footl", "toel",
     "shoulderr", "upperarmr", "forearmr", "handr", "thighr", "shinr", "footr", "toer"},
    { /* VRM humanoid */
     "hips", "spine", "chest", "upperchest", "neck", "head",
     "leftshoulder", "leftupperarm", "leftlowerarm", "lefthand", "leftupperleg", "leftlowerleg", "leftfoot", "lefttoes",
     "rightshoulder", "rightupperarm", "rightlowerarm", "righthand", "rightupperleg", "rightlowerleg", "rightfoot",
     "righttoes"},
};
enum { SCHEME_COUNT = (int)(sizeof schemes / sizeof schemes[0]) };

/* A scheme's slot of a name's key, or -1. */
static int scheme_slot(int scheme, const char *key)
{
    for (int s = 0; s < SLOT_COUNT; s++)
        if (schemes[scheme][s][0] && strcmp(schemes[scheme][s], key) == 0) return s;
    return -1;
}

int retarget_slots(const skv_skeleton *skeleton, int *slot_of)
{
    int n = skeleton->node_count, best = -1, best_count = 0;
    char key[128];
    for (int scheme = 0; scheme < SCHEME_COUNT; scheme++) {
        int count = 0;
        for (int i = 0; i < n; i++) {
            slot_key(skeleton->node_names[i], key, sizeof key);
            count += scheme_slot(scheme, key) >= 0;
        }
        if (count > best_count) best = scheme, best_count = count;
    }
    int found = 0;
    unsigned char taken[SLOT_COUNT] = {0};
    for (int i = 0; i < n; i++) {
        slot_of[i] = -1;
        if (best < 0) continue;
        slot_key(skeleton->node_names[i], key, sizeof key);
        int s = scheme_slot(best, key);
        if (s >= 0 && !taken[s]) slot_of[i] = s, taken[s] = 1, found++;
    }
    return found;
}

/* The node of `name` in `skeleton`, or -1. */
static int node_named(const skv_skeleton *skeleton, const char *name)
{
    for (int i = 0; i < skeleton->node_count; i++)
        if (strcmp(skeleton->node_names[i], name) == 0) return i;
    return -1;
}

typedef enum { MATCH_EXACT, MATCH_NOCASE, MATCH_BARE } match_kind;

static int names_match(match_kind kind, const char *a, const char *b)
{
    switch (kind) {
    case MATCH_EXACT: return strcmp(a, b) == 0;
    case MATCH_NOCASE: return strcasecmp(a, b) == 0;
    case MATCH_BARE: return strcasecmp(bare(a), bare(b)) == 0;
    }
    return 0;
}

skv_result retarget_match(const skv_skeleton *target, const skv_skeleton *source, const skv_bone_map *map,
                          int *source_of, skv_error *err)
{
    int nt = target->node_count, ns = source->node_count;
    for (int i = 0; i < nt; i++) source_of[i] = -1;
    for (int k = 0; map && k < map->count; k++) {
        int t = node_named(target, map->target[k]), s = node_named(source, map->source[k]);
        if (t < 0) return skv_fail(err, SKV_ERR_ARGUMENT, "the model has no node '%s'", map->target[k]);
        if (s < 0) return skv_fail(err, SKV_ERR_ARGUMENT, "the animation file has no node '%s'", map->source[k]);
        source_of[t] = s;
    }
    unsigned char *taken = calloc((size_t)(ns > 0 ? ns : 1), 1);
    int *slot_t = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *slot_t);
    int *slot_s = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *slot_s);
    if (!taken || !slot_t || !slot_s) {
        free(taken), free(slot_t), free(slot_s);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    for (int i = 0; i < nt; i++)
        if (source_of[i] >= 0) taken[source_of[i]] = 1;
    retarget_slots(target, slot_t);
    retarget_slots(source, slot_s);
    /* Each rule over every node before the next, looser one: a name that
     * matches exactly is not taken by another node's looser match. Two
     * nodes of one name that the rigs' schemes put in different places
     * are no match ("Spine": the chest of a CMU take, a Mixamo rig's
     * spine, a Rigify rig's hips). */
    for (match_kind kind = MATCH_EXACT; kind <= MATCH_BARE; kind++)
        for (int i = 0; i < nt; i++)
            for (int j = 0; source_of[i] < 0 && j < ns; j++)
                if (!taken[j] && !(slot_t[i] >= 0 && slot_s[j] >= 0 && slot_t[i] != slot_s[j]) &&
                    names_match(kind, target->node_names[i], source->node_names[j]))
                    source_of[i] = j, taken[j] = 1;
    for (int i = 0; i < nt; i++)
        for (int j = 0; source_of[i] < 0 && slot_t[i] >= 0 && j < ns; j++)
            if (!taken[j] && slot_s[j] == slot_t[i]) source_of[i] = j, taken[j] = 1;
    free(taken), free(slot_t), free(slot_s);
    return SKV_OK;
}

/* --- small maths ------------------------------------------------------------ */

static void quat_mul(const float a[4], const float b[4], float out[4])
{
    versor p = {a[0], a[1], a[2], a[3]}, q = {b[0], b[1], b[2], b[3]}, r;
    glm_quat_mul(p, q, r);
    memcpy(out, r, sizeof r);
}

static void quat_conj(const float q[4], float out[4])
{
    out[0] = -q[0], out[1] = -q[1], out[2] = -q[2], out[3] = q[3];
}

static void quat_rotate(const float q[4], const float v[3], float out[3])
{
    versor p = {q[0], q[1], q[2], q[3]};
    vec3 in = {v[0], v[1], v[2]}, r;
    glm_quat_rotatev(p, in, r);
    memcpy(out, r, sizeof r);
}

static void quat_normalize(float q[4])
{
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(len > 0.0f) || !isfinite(len)) {
        q[0] = q[1] = q[2] = 0.0f, q[3] = 1.0f;
        return;
    }
    for (int k = 0; k < 4; k++) q[k] /= len;
}

/* The shortest turn taking direction a onto direction b (unit length
 * both); a half turn about some axis normal to a where they are opposite. */
static void quat_between(const float a[3], const float b[3], float out[4])
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    if (d < -0.999999f) {
        float axis[3] = {0.0f, -a[2], a[1]}; /* a x (1, 0, 0) */
        if (axis[1] * axis[1] + axis[2] * axis[2] < 1e-6f) axis[0] = a[2], axis[1] = 0.0f, axis[2] = -a[0];
        float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        out[0] = axis[0] / len, out[1] = axis[1] / len, out[2] = axis[2] / len, out[3] = 0.0f;
        return;
    }
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
    out[3] = 1.0f + d;
    quat_normalize(out);
}

static float vec_len(const float v[3])
{
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static int vec_unit(const float v[3], float out[3])
{
    float len = vec_len(v);
    if (!(len > 1e-12f) || !isfinite(len)) return 0;
    for (int k = 0; k < 3; k++) out[k] = v[k] / len;
    return 1;
}

static float vec_dot(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A node's world position in a pose's globals. */
static void position_of(const mat4 m, float out[3])
{
    out[0] = m[3][0], out[1] = m[3][1], out[2] = m[3][2];
}

static int is_below(const skv_skeleton *sk, int ancestor, int node)
{
    for (int n = node; n >= 0; n = sk->parents[n])
        if (n == ancestor) return 1;
    return 0;
}

/* --- a rig's rest pose ------------------------------------------------------- */

typedef struct rig {
    const skv_skeleton *sk;
    float (*t)[3], (*q)[4], (*s)[3]; /* local rest T, R, S */
    float (*wq)[4];                  /* world rest rotation: the local rotations multiplied down */
    mat4 *w;                         /* world rest transform */
    int *slot_node;                  /* SLOT_COUNT: the node of each humanoid slot, or -1 */
} rig;

static void rig_free(rig *r)
{
    free(r->t), free(r->q), free(r->s), free(r->wq), free(r->w), free(r->slot_node);
}

static int rig_make(rig *r, const skv_skeleton *sk)
{
    int n = sk->node_count > 0 ? sk->node_count : 1;
    *r = (rig){.sk = sk};
    r->t = malloc((size_t)n * sizeof *r->t), r->q = malloc((size_t)n * sizeof *r->q);
    r->s = malloc((size_t)n * sizeof *r->s), r->wq = malloc((size_t)n * sizeof *r->wq);
    r->w = malloc((size_t)n * sizeof *r->w), r->slot_node = malloc(SLOT_COUNT * sizeof *r->slot_node);
    int *slot_of = malloc((size_t)n * sizeof *slot_of);
    if (!r->t || !r->q || !r->s || !r->wq || !r->w || !r->slot_node || !slot_of) {
        free(slot_of);
        rig_free(r);
        return 0;
    }
    for (int i = 0; i < sk->node_count; i++) {
        anim_decompose(sk->rest_local[i], r->t[i], r->q[i], r->s[i]);
        int p = sk->parents[i];
        if (p < 0) memcpy(r->wq[i], r->q[i], sizeof r->wq[i]);
        else quat_mul(r->wq[p], r->q[i], r->wq[i]);
    }
    skeleton_pose(sk, sk->rest_local, r->w);
    for (int s = 0; s < SLOT_COUNT; s++) r->slot_node[s] = -1;
    retarget_slots(sk, slot_of);
    for (int i = 0; i < sk->node_count; i++)
        if (slot_of[i] >= 0) r->slot_node[slot_of[i]] = i;
    free(slot_of);
    return 1;
}

/* --- the plan: what the two rest poses say, once per clip ------------------ */

typedef struct plan {
    rig t, s;
    const int *source_of;
    float align[4];   /* turns the source's world onto the target's */
    float (*fix)[4];  /* per target node: its rest bone turned onto the source's */
    float (*offset)[9]; /* per target node: a change of the source's offset -> the target's (column-major 3x3) */
    int root;         /* the target node that takes the source's world position; -1: none */
    float ratio;      /* target size / source size */
} plan;

static void plan_free(plan *p)
{
    rig_free(&p->t);
    rig_free(&p->s);
    free(p->fix);
    free(p->offset);
}

/* The slot nodes of both rigs, each side's filled from the other's
 * through the matches where its own names did not say. */
static void paired_slots(const plan *p, int *slot_t, int *slot_s)
{
    int nt = p->t.sk->node_count;
    for (int k = 0; k < SLOT_COUNT; k++) {
        slot_t[k] = p->t.slot_node[k], slot_s[k] = p->s.slot_node[k];
        for (int i = 0; slot_t[k] < 0 && slot_s[k] >= 0 && i < nt; i++)
            if (p->source_of[i] == slot_s[k]) slot_t[k] = i;
        if (slot_s[k] < 0 && slot_t[k] >= 0) slot_s[k] = p->source_of[slot_t[k]];
    }
}

/* A rig's up (hips -> head) and right (left -> right upper arm, else
 * thigh) in its rest pose; 0 where its slots do not say. */
static int rig_axes(const rig *r, const int *slot, float up[3], float right[3])
{
    int l = slot[SLOT_L_UPPER_ARM], rr = slot[SLOT_R_UPPER_ARM];
    if (l < 0 || rr < 0) l = slot[SLOT_L_UPPER_LEG], rr = slot[SLOT_R_UPPER_LEG];
    if (slot[SLOT_HIPS] < 0 || slot[SLOT_HEAD] < 0 || l < 0 || rr < 0) return 0;
    float a[3], b[3], u[3], x[3];
    position_of(r->w[slot[SLOT_HIPS]], a), position_of(r->w[slot[SLOT_HEAD]], b);
    for (int k = 0; k < 3; k++) u[k] = b[k] - a[k];
    position_of(r->w[l], a), position_of(r->w[rr], b);
    for (int k = 0; k < 3; k++) x[k] = b[k] - a[k];
    return vec_unit(u, up) && vec_unit(x, right);
}

/* How far apart two directions must be before the rigs count as turned:
 * a rig rebuilt from the same one (rounding in its rest pose) is not. */
#define TURN_COS 0.99984769515f /* cos 1 degree */

/* plan->align: where both rigs' axes are known, the source turned onto
 * the target's up axis where they differ by more than 30 degrees (another
 * up axis), then about the target's up until the right directions agree.
 * up_t and up_s: each rig's up in its own world (Y where unknown). */
static void plan_align(plan *p, const int *slot_t, const int *slot_s, float up_t[3], float up_s[3])
{
    float right_t[3], right_s[3];
    p->align[0] = p->align[1] = p->align[2] = 0.0f, p->align[3] = 1.0f;
    if (!rig_axes(&p->t, slot_t, up_t, right_t) || !rig_axes(&p->s, slot_s, up_s, right_s)) {
        up_t[0] = up_t[2] = up_s[0] = up_s[2] = 0.0f, up_t[1] = up_s[1] = 1.0f; /* Y up, glTF's and most files' */
        return;
    }
    float first[4] = {0.0f, 0.0f, 0.0f, 1.0f}, r[3];
    if (vec_dot(up_s, up_t) < 0.86602540378f) quat_between(up_s, up_t, first);
    quat_rotate(first, right_s, r);
    float d_t = vec_dot(right_t, up_t), d_s = vec_dot(r, up_t), ht[3], hs[3];
    for (int k = 0; k < 3; k++) ht[k] = right_t[k] - d_t * up_t[k], hs[k] = r[k] - d_s * up_t[k];
    float second[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    /* No threshold here: a rig turned as a whole gets its clip turned
     * as a whole, to the rounding. */
    if (vec_unit(ht, ht) && vec_unit(hs, hs)) quat_between(hs, ht, second);
    quat_mul(second, first, p->align);
}

/* plan->fix: a target joint with one matched joint below it (the nearest
 * matched below it on each branch) turns its rest bone onto the source's
 * where the two point more than a degree apart. */
static void plan_fix(plan *p)
{
    const skv_skeleton *tk = p->t.sk;
    int nt = tk->node_count;
    for (int i = 0; i < nt; i++) p->fix[i][0] = p->fix[i][1] = p->fix[i][2] = 0.0f, p->fix[i][3] = 1.0f;
    for (int i = 0; i < nt; i++) {
        int j = p->source_of[i];
        if (j < 0) continue;
        int child = -1, children = 0;
        for (int c = i + 1; c < nt; c++) {
            if (p->source_of[c] < 0 || !is_below(tk, i, c)) continue;
            int a = tk->parents[c];
            while (a != i && p->source_of[a] < 0) a = tk->parents[a];
            if (a == i) child = c, children++;
        }
        if (children != 1 || !is_below(p->s.sk, j, p->source_of[child])) continue;
        float a[3], b[3], dt[3], ds[3], ds_turned[3];
        position_of(p->t.w[i], a), position_of(p->t.w[child], b);
        for (int k = 0; k < 3; k++) dt[k] = b[k] - a[k];
        position_of(p->s.w[j], a), position_of(p->s.w[p->source_of[child]], b);
        for (int k = 0; k < 3; k++) ds[k] = b[k] - a[k];
        quat_rotate(p->align, ds, ds_turned);
        if (!vec_unit(dt, dt) || !vec_unit(ds_turned, ds)) continue;
        if (vec_dot(dt, ds) < TURN_COS) quat_between(dt, ds, p->fix[i]);
    }
}

/* The rigs' size ratio: the hip heights (the root above the lowest
 * matched joint below it, along each rig's up), else the reach of the
 * matched joints from the root; 1 where neither can be measured. */
static float plan_ratio(const plan *p, int root, const float up_t[3], const float up_s[3])
{
    if (root < 0) return 1.0f;
    int root_s = p->source_of[root];
    float ht = 0.0f, hs = 0.0f, reach_t = 0.0f, reach_s = 0.0f, rt[3], rs[3], a[3], b[3];
    position_of(p->t.w[root], rt), position_of(p->s.w[root_s], rs);
    for (int i = 0; i < p->t.sk->node_count; i++) {
        int j = p->source_of[i];
        if (j < 0 || !is_below(p->t.sk, root, i) || !is_below(p->s.sk, root_s, j)) continue;
        position_of(p->t.w[i], a), position_of(p->s.w[j], b);
        float dt[3], ds[3];
        for (int k = 0; k < 3; k++) dt[k] = rt[k] - a[k], ds[k] = rs[k] - b[k];
        ht = fmaxf(ht, vec_dot(dt, up_t)), hs = fmaxf(hs, vec_dot(ds, up_s));
        reach_t = fmaxf(reach_t, vec_len(dt)), reach_s = fmaxf(reach_s, vec_len(ds));
    }
    if (ht > 1e-6f * reach_t && hs > 1e-6f * reach_s && ht > 0.0f && hs > 0.0f) return ht / hs;
    if (reach_t > 0.0f && reach_s > 0.0f) return reach_t / reach_s;
    return 1.0f;
}

/* The 3x3 (linear) part of m, and its inverse. */
static void linear_of(const mat4 m, mat3 out)
{
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) out[c][r] = m[c][r];
}

/* plan->offset[i]: a change d of source joint j's offset (in its
 * parent's rest frame) as a change of target joint i's: into the world
 * through the source parent's rest transform, turned and scaled, back
 * through the target parent's. */
static void plan_offsets(plan *p)
{
    const skv_skeleton *tk = p->t.sk, *sk = p->s.sk;
    mat3 align;
    versor q = {p->align[0], p->align[1], p->align[2], p->align[3]};
    glm_quat_mat3(q, align);
    for (int i = 0; i < tk->node_count; i++) {
        int j = p->source_of[i];
        if (j < 0) continue;
        mat3 from = GLM_MAT3_IDENTITY_INIT, to = GLM_MAT3_IDENTITY_INIT, into, m;
        if (sk->parents[j] >= 0) linear_of(p->s.w[sk->parents[j]], from);
        if (tk->parents[i] >= 0) linear_of(p->t.w[tk->parents[i]], to);
        glm_mat3_inv(to, into);
        glm_mat3_mul(align, from, m);
        glm_mat3_mul(into, m, m);
        glm_mat3_scale(m, p->ratio);
        memcpy(p->offset[i], m, sizeof p->offset[i]);
    }
}

/* The root: the topmost source node whose translation the clip moves,
 * then the topmost matched target node whose source is at or under it. */
static int plan_root(const plan *p, const skv_clip *clip)
{
    const skv_skeleton *sk = p->s.sk;
    int moved = -1, moved_depth = 0;
    for (int c = 0; c < clip->channel_count; c++) {
        const skv_channel *ch = &clip->channels[c];
        if (ch->position_count < 2) continue;
        int depth = 0;
        for (int a = sk->parents[ch->node]; a >= 0; a = sk->parents[a]) depth++;
        if (moved < 0 || depth < moved_depth) moved = ch->node, moved_depth = depth;
    }
    if (moved < 0) return -1;
    int root = -1, root_depth = 0;
    for (int i = 0; i < p->t.sk->node_count; i++) {
        if (p->source_of[i] < 0 || !is_below(sk, moved, p->source_of[i])) continue;
        int depth = 0;
        for (int a = p->t.sk->parents[i]; a >= 0; a = p->t.sk->parents[a]) depth++;
        if (root < 0 || depth < root_depth) root = i, root_depth = depth;
    }
    return root;
}

static skv_result plan_make(plan *p, const skv_model *target, const skv_model *source, const skv_clip *clip,
                            const int *source_of, skv_error *err)
{
    memset(p, 0, sizeof *p);
    p->source_of = source_of;
    int nt = target->skeleton.node_count > 0 ? target->skeleton.node_count : 1;
    int ok = rig_make(&p->t, &target->skeleton);
    ok = rig_make(&p->s, &source->skeleton) && ok;
    p->fix = malloc((size_t)nt * sizeof *p->fix);
    p->offset = malloc((size_t)nt * sizeof *p->offset);
    if (!ok || !p->fix || !p->offset) {
        plan_free(p);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    int slot_t[SLOT_COUNT], slot_s[SLOT_COUNT];
    float up_t[3], up_s[3];
    paired_slots(p, slot_t, slot_s);
    plan_align(p, slot_t, slot_s, up_t, up_s);
    plan_fix(p);
    p->root = plan_root(p, clip);
    int measure = p->root;
    if (measure < 0) /* no root motion: the topmost matched node still measures the rigs */
        for (int i = 0; i < target->skeleton.node_count && measure < 0; i++)
            if (source_of[i] >= 0) measure = i;
    p->ratio = plan_ratio(p, measure, up_t, up_s);
    plan_offsets(p);
    return SKV_OK;
}

/* --- sampling ----------------------------------------------------------------- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A key array's times, and where its mode needs them, points between
 * (cubic: three per segment) or just before its keys (step). */
static int add_times(double *out, int n, const void *keys, size_t stride, int count, int mode)
{
    for (int k = 0; k < count; k++) {
        double t = *(const double *)((const char *)keys + (size_t)k * stride);
        out[n++] = t;
        if (k == 0) continue;
        double before = *(const double *)((const char *)keys + (size_t)(k - 1) * stride);
        if (mode == SKV_KEY_CUBIC)
            for (int q = 1; q < 4; q++) out[n++] = before + (t - before) * q / 4.0;
        else if (mode == SKV_KEY_STEP)
            out[n++] = t - (t - before) * 1e-3;
    }
    return n;
}

static int times_per_key(int mode)
{
    return mode == SKV_KEY_CUBIC ? 4 : mode == SKV_KEY_STEP ? 2 : 1;
}

/* The clip's sample times, ascending, without repeats; -1 on OOM. */
static int clip_times(const skv_clip *clip, double **out)
{
    size_t total = 2;
    for (int c = 0; c < clip->channel_count; c++) {
        const skv_channel *ch = &clip->channels[c];
        total += (size_t)ch->position_count * times_per_key(ch->position_mode) +
                 (size_t)ch->rotation_count * times_per_key(ch->rotation_mode) +
                 (size_t)ch->scale_count * times_per_key(ch->scale_mode);
    }
    double *t = malloc(total * sizeof *t);
    if (!t) return -1;
    int n = 0;
    t[n++] = 0.0;
    t[n++] = clip->duration_ticks;
    for (int c = 0; c < clip->channel_count; c++) {
        const skv_channel *ch = &clip->channels[c];
        n = add_times(t, n, ch->positions, sizeof *ch->positions, ch->position_count, ch->position_mode);
        n = add_times(t, n, ch->rotations, sizeof *ch->rotations, ch->rotation_count, ch->rotation_mode);
        n = add_times(t, n, ch->scales, sizeof *ch->scales, ch->scale_count, ch->scale_mode);
    }
    qsort(t, (size_t)n, sizeof *t, by_value);
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (t[i] >= 0.0 && t[i] <= clip->duration_ticks && (kept == 0 || t[i] != t[kept - 1])) t[kept++] = t[i];
    *out = t;
    return kept;
}

/* One pose of the source: per node its local T, R, S, world rotation
 * and world transform. */
typedef struct frame {
    float (*t)[3], (*q)[4], (*s)[3], (*wq)[4];
    mat4 *w;
} frame;

static int frame_make(frame *f, int nodes)
{
    size_t n = (size_t)(nodes > 0 ? nodes : 1);
    f->t = malloc(n * sizeof *f->t), f->q = malloc(n * sizeof *f->q), f->s = malloc(n * sizeof *f->s);
    f->wq = malloc(n * sizeof *f->wq), f->w = malloc(n * sizeof *f->w);
    return f->t && f->q && f->s && f->wq && f->w;
}

static void frame_free(frame *f)
{
    free(f->t), free(f->q), free(f->s), free(f->wq), free(f->w);
}

static void source_frame(const rig *r, const skv_clip *clip, double ticks, frame *f)
{
    const skv_skeleton *sk = r->sk;
    for (int i = 0; i < sk->node_count; i++) {
        int c = clip->node_channel[i];
        if (c >= 0) {
            keys_channel_trs(&clip->channels[c], ticks, f->t[i], f->q[i], f->s[i]);
            quat_normalize(f->q[i]);
        } else {
            memcpy(f->t[i], r->t[i], sizeof f->t[i]), memcpy(f->q[i], r->q[i], sizeof f->q[i]);
            memcpy(f->s[i], r->s[i], sizeof f->s[i]);
        }
        mat4 local;
        keys_local(f->t[i], f->q[i], f->s[i], local);
        int p = sk->parents[i];
        if (p < 0) {
            memcpy(f->wq[i], f->q[i], sizeof f->wq[i]);
            glm_mat4_copy(local, f->w[i]);
        } else {
            quat_mul(f->wq[p], f->q[i], f->wq[i]);
            glm_mat4_mul(f->w[p], local, f->w[i]);
        }
    }
}

/* The target's pose for the source's frame `s` (plan.h's rules), into `f`. */
static void target_frame(const plan *p, const frame *s, frame *f)
{
    const skv_skeleton *tk = p->t.sk;
    float unalign[4];
    quat_conj(p->align, unalign);
    for (int i = 0; i < tk->node_count; i++) {
        int j = p->source_of[i], parent = tk->parents[i];
        memcpy(f->t[i], p->t.t[i], sizeof f->t[i]), memcpy(f->q[i], p->t.q[i], sizeof f->q[i]);
        memcpy(f->s[i], p->t.s[i], sizeof f->s[i]);
        if (j >= 0) {
            /* World: the source's turn from its rest, in the target's
             * world, on the target's (fixed) rest. */
            float turn[4], rest_inv[4], world[4], a[4], b[4];
            quat_conj(p->s.wq[j], rest_inv);
            quat_mul(s->wq[j], rest_inv, turn);
            quat_mul(p->align, turn, a);
            quat_mul(a, unalign, turn);
            quat_mul(p->fix[i], p->t.wq[i], b);
            quat_mul(turn, b, world);
            if (parent < 0) {
                memcpy(f->q[i], world, sizeof f->q[i]);
            } else {
                float up_inv[4];
                quat_conj(f->wq[parent], up_inv);
                quat_mul(up_inv, world, f->q[i]);
            }
            quat_normalize(f->q[i]);
            if (i == p->root) {
                float at[3], here[3];
                position_of(s->w[j], at);
                quat_rotate(p->align, at, here);
                for (int k = 0; k < 3; k++) here[k] *= p->ratio;
                if (parent < 0) {
                    memcpy(f->t[i], here, sizeof f->t[i]);
                } else {
                    mat4 inv;
                    anim_inverse(f->w[parent], inv);
                    vec3 local;
                    glm_mat4_mulv3(inv, here, 1.0f, local);
                    memcpy(f->t[i], local, sizeof f->t[i]);
                }
            } else {
                float d[3];
                for (int k = 0; k < 3; k++) d[k] = s->t[j][k] - p->s.t[j][k];
                const float *m = p->offset[i];
                for (int k = 0; k < 3; k++) f->t[i][k] += m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
            }
            for (int k = 0; k < 3; k++)
                if (fabsf(p->s.s[j][k]) > 1e-12f) f->s[i][k] = p->t.s[i][k] * (s->s[j][k] / p->s.s[j][k]);
        }
        mat4 local;
        keys_local(f->t[i], f->q[i], f->s[i], local);
        if (parent < 0) {
            memcpy(f->wq[i], f->q[i], sizeof f->wq[i]);
            glm_mat4_copy(local, f->w[i]);
        } else {
            quat_mul(f->wq[parent], f->q[i], f->wq[i]);
            glm_mat4_mul(f->w[parent], local, f->w[i]);
        }
    }
}

/* --- the clip ----------------------------------------------------------------- */

/* Keys that differ from the rest value by less than this (a rig rebuilt
 * from the source's, rounding) leave a node at rest. */
#define REST_TOLERANCE 1e-6f

skv_result retarget_clip(const skv_model *target, const skv_model *source, const skv_clip *clip,
                         const int *source_of, skv_clip *out, skv_error *err)
{
    memset(out, 0, sizeof *out);
    const skv_skeleton *tk = &target->skeleton;
    int nt = tk->node_count;
    plan p;
    skv_result r = plan_make(&p, target, source, clip, source_of, err);
    if (r != SKV_OK) return r;
    double *times = NULL;
    int samples = clip_times(clip, &times);
    frame fs = {0}, ft = {0};
    /* Per matched target node, its keys: samples T, R, S each. */
    int matched = 0;
    for (int i = 0; i < nt; i++) matched += source_of[i] >= 0;
    size_t cells = (size_t)(samples > 0 ? samples : 1) * (size_t)(matched > 0 ? matched : 1);
    float (*kt)[3] = malloc(cells * sizeof *kt), (*kq)[4] = malloc(cells * sizeof *kq);
    float (*ks)[3] = malloc(cells * sizeof *ks);
    int *slot = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *slot);
    int ok = samples >= 0 && frame_make(&fs, source->skeleton.node_count) && frame_make(&ft, nt) && kt && kq && ks &&
             slot;
    out->name = ok ? strdup(clip->name ? clip->name : "") : NULL;
    out->node_channel = ok ? malloc((size_t)(nt > 0 ? nt : 1) * sizeof *out->node_channel) : NULL;
    out->channels = ok ? calloc((size_t)(matched > 0 ? matched : 1), sizeof *out->channels) : NULL;
    out->retarget_from = ok ? calloc((size_t)(nt > 0 ? nt : 1), sizeof *out->retarget_from) : NULL;
    if (!out->name || !out->node_channel || !out->channels || !out->retarget_from) ok = 0;
    else out->retarget_node_count = nt;
    for (int i = 0, m = 0; ok && i < nt; i++) {
        slot[i] = source_of[i] >= 0 ? m++ : -1;
        out->node_channel[i] = -1;
        if (source_of[i] >= 0 && !(out->retarget_from[i] = strdup(source->skeleton.node_names[source_of[i]]))) ok = 0;
    }
    for (int k = 0; ok && k < samples; k++) {
        source_frame(&p.s, clip, times[k], &fs);
        target_frame(&p, &fs, &ft);
        for (int i = 0; i < nt; i++) {
            if (slot[i] < 0) continue;
            size_t c = (size_t)slot[i] * (size_t)samples + (size_t)k;
            memcpy(kt[c], ft.t[i], sizeof kt[c]), memcpy(ks[c], ft.s[i], sizeof ks[c]);
            memcpy(kq[c], ft.q[i], sizeof kq[c]);
            /* On the side of the previous key: the shorter arc is the one meant. */
            if (k > 0 && vec_dot(kq[c - 1], kq[c]) + kq[c - 1][3] * kq[c][3] < 0.0f)
                for (int a = 0; a < 4; a++) kq[c][a] = -kq[c][a];
        }
    }
    /* A channel for each matched node the clip moves away from its rest. */
    float size = 0.0f;
    for (int i = 0; i < nt; i++) {
        float at[3];
        position_of(p.t.w[i], at);
        size = fmaxf(size, vec_len(at));
    }
    for (int i = 0; ok && i < nt; i++) {
        if (slot[i] < 0) continue;
        const size_t base = (size_t)slot[i] * (size_t)samples;
        int moves_t = 0, moves_q = 0, moves_s = 0;
        for (int k = 0; k < samples; k++) {
            const float *t = kt[base + k], *q = kq[base + k], *s = ks[base + k];
            for (int a = 0; a < 3; a++) {
                moves_t |= !(fabsf(t[a] - p.t.t[i][a]) <= REST_TOLERANCE * fmaxf(size, 1e-6f));
                moves_s |= !(fabsf(s[a] - p.t.s[i][a]) <= REST_TOLERANCE * fmaxf(fabsf(p.t.s[i][a]), 1e-6f));
            }
            float d = fabsf(vec_dot(q, p.t.q[i]) + q[3] * p.t.q[i][3]);
            moves_q |= !(d >= 1.0f - REST_TOLERANCE * REST_TOLERANCE);
        }
        if (!moves_t && !moves_q && !moves_s) continue;
        skv_channel *ch = &out->channels[out->channel_count];
        ch->node = i;
        ch->position_count = moves_t ? samples : 1;
        ch->rotation_count = moves_q ? samples : 1;
        ch->scale_count = moves_s ? samples : 1;
        ch->positions = malloc((size_t)ch->position_count * sizeof *ch->positions);
        ch->rotations = malloc((size_t)ch->rotation_count * sizeof *ch->rotations);
        ch->scales = malloc((size_t)ch->scale_count * sizeof *ch->scales);
        out->channel_count++;
        if (!ch->positions || !ch->rotations || !ch->scales) {
            ok = 0;
            break;
        }
        for (int k = 0; k < ch->position_count; k++) {
            ch->positions[k] = (skv_vec3_key){.time = moves_t ? times[k] : 0.0};
            memcpy(ch->positions[k].value, moves_t ? kt[base + k] : p.t.t[i], sizeof ch->positions[k].value);
        }
        for (int k = 0; k < ch->rotation_count; k++) {
            ch->rotations[k].time = moves_q ? times[k] : 0.0;
            memcpy(ch->rotations[k].value, moves_q ? kq[base + k] : p.t.q[i], sizeof ch->rotations[k].value);
        }
        for (int k = 0; k < ch->scale_count; k++) {
            ch->scales[k] = (skv_vec3_key){.time = moves_s ? times[k] : 0.0};
            memcpy(ch->scales[k].value, moves_s ? ks[base + k] : p.t.s[i], sizeof ch->scales[k].value);
        }
        out->node_channel[i] = out->channel_count - 1;
    }
    if (ok) {
        out->duration_ticks = clip->duration_ticks;
        out->ticks_per_second = clip->ticks_per_second;
        out->file_channels = clip->channel_count;
        out->notes = clip->notes & (SKV_CLIP_KEYS_PAST_END | SKV_CLIP_PIVOTS_FOLDED | SKV_CLIP_LINEAR_NOT_CURVE);
    }
    free(times), free(kt), free(kq), free(ks), free(slot);
    frame_free(&fs), frame_free(&ft);
    plan_free(&p);
    if (!ok) {
        model_clip_free(out);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    return SKV_OK;
}
