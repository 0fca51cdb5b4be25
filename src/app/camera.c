/* camera.c - camera framing and matrices. */
#include "camera.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "skin.h"
#include "skin_bound.h"

#define FIELD_OF_VIEW_DEG 40.0f

void camera_node_position(const skv_model *model, const mat4 *global, int node, float out[3])
{
    vec4 p;
    glm_mat4_mulv((vec4 *)model->upright, (vec4){global[node][3][0], global[node][3][1], global[node][3][2], 1.0f}, p);
    out[0] = p[0], out[1] = p[1], out[2] = p[2];
}

int camera_root_motion_node(const skv_model *model, int clip)
{
    if (clip < 0 || clip >= model->clip_count) return -1;
    const skv_clip *c = &model->clips[clip];
    for (int n = 0; n < model->skeleton.node_count; n++) {
        int k = c->node_channel[n];
        if (k >= 0 && c->channels[k].position_count > 1) return n; /* one key: it does not move */
    }
    return -1;
}

/* The framing rule's angles (camera.h). */
#define FRAMING_YAW_DEG 25.0f
#define FRAMING_PITCH_DEG 15.0f

/* The picture shapes at which camera_framed_view is exact: portrait,
 * square (goldens, thumbnails), 4:3 (the default 800x600), 16:9, wide. */
static const float fit_aspects[CAMERA_FIT_ASPECTS] = {0.5f, 1.0f, 4.0f / 3.0f, 16.0f / 9.0f, 2.5f};

/* Half the picture's height and width at depth 1, less the margin. */
static float fit_tan_up(void)
{
    return tanf(glm_rad(FIELD_OF_VIEW_DEG) * 0.5f) * CAMERA_FILL;
}

/* The framing points seen from the default angles, gathered: a point o
 * (from the centre) at distance d is at depth d + o.f in front of the eye
 * and fits the height when |o.u| <= t (d + o.f), t = fit_tan_up(): d >=
 * o.(+-u / t - f). The sideways reach is the same with the width's t,
 * which depends on the aspect: the point that needs the most is kept per
 * aspect of fit_aspects, its (o.r, o.f). Points are gathered as given and
 * taken relative to the centre once it is known (the reaches are linear
 * in o). */
typedef struct fit_gather {
    vec3 right, up, forward;
    float up_reach[2];         /* max of p.(u / t - f), p.(-u / t - f) */
    float front;               /* max of -p.f */
    float up_scale, across[CAMERA_FIT_ASPECTS]; /* 1 / t for the height, and the width at each aspect */
    float side_reach[CAMERA_FIT_ASPECTS][2];
    float side_pair[CAMERA_FIT_ASPECTS][2][2];
    /* Where the points gathered come in an order of their own (the
     * framing's samples, vertex by vertex), the pair kept among equally
     * far ones is the first in it: its place. */
    long long side_place[CAMERA_FIT_ASPECTS][2];
    long long next; /* fit_add's place for the next point */
    long count;
} fit_gather;

static void fit_begin(fit_gather *g)
{
    float yaw = glm_rad(FRAMING_YAW_DEG), pitch = glm_rad(FRAMING_PITCH_DEG);
    *g = (fit_gather){.forward = {-cosf(pitch) * sinf(yaw), -sinf(pitch), -cosf(pitch) * cosf(yaw)}};
    glm_vec3_cross(g->forward, (vec3){0.0f, 1.0f, 0.0f}, g->right);
    glm_vec3_normalize(g->right);
    glm_vec3_cross(g->right, g->forward, g->up);
    g->up_scale = 1.0f / fit_tan_up();
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++) g->across[k] = g->up_scale / fit_aspects[k];
}

/* Gathers a point at `place` in the points' order, given as its dots
 * with the default camera's right, up and forward. */
static void fit_add_dots(fit_gather *g, float pr, float pu, float pf, long long place)
{
    if (!isfinite(pr) || !isfinite(pu) || !isfinite(pf)) return;
    int first = g->count++ == 0;
    for (int side = 0; side < 2; side++) {
        float reach = (side ? -pu : pu) * g->up_scale - pf;
        if (first || reach > g->up_reach[side]) g->up_reach[side] = reach;
    }
    if (first || -pf > g->front) g->front = -pf;
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++) {
        for (int side = 0; side < 2; side++) {
            float reach = (side ? -pr : pr) * g->across[k] - pf;
            if (first || reach > g->side_reach[k][side] ||
                (reach == g->side_reach[k][side] && place < g->side_place[k][side])) {
                g->side_reach[k][side] = reach;
                g->side_pair[k][side][0] = pr, g->side_pair[k][side][1] = pf;
                g->side_place[k][side] = place;
            }
        }
    }
}

/* The dots fit_add_dots takes. */
static void fit_dots(const fit_gather *g, const float p[3], float *pr, float *pu, float *pf)
{
    *pr = glm_vec3_dot((float *)p, (float *)g->right), *pu = glm_vec3_dot((float *)p, (float *)g->up);
    *pf = glm_vec3_dot((float *)p, (float *)g->forward);
}

static void fit_add(fit_gather *g, const float p[3])
{
    float pr, pu, pf;
    fit_dots(g, p, &pr, &pu, &pf);
    fit_add_dots(g, pr, pu, pf, g->next++);
}

/* The framing's linear functions of a point p (upright, root travel
 * taken off), whose largest values over the points decide it: the box
 * (-x, -y, -z, x, y, z), then fit_add_dots' reaches (up, its two sides;
 * front; sideways, two sides per aspect). */
enum {
    FIT_BOX = 6,
    FIT_UP = 6,
    FIT_FRONT = 8,
    FIT_SIDE = 9,
    FIT_FUNCTIONS = FIT_SIDE + 2 * CAMERA_FIT_ASPECTS
};

_Static_assert(FIT_FUNCTIONS <= SKIN_BOUND_MAX_FUNCTIONS, "skin_bound takes the framing's functions");

/* Function k as dir[k] . p. */
static void fit_directions(const fit_gather *g, double dir[FIT_FUNCTIONS][3])
{
    for (int a = 0; a < 3; a++) {
        for (int k = 0; k < 3; k++) dir[a][k] = dir[3 + a][k] = 0.0;
        dir[a][a] = -1.0, dir[3 + a][a] = 1.0;
        for (int side = 0; side < 2; side++)
            dir[FIT_UP + side][a] = (side ? -(double)g->up[a] : (double)g->up[a]) * g->up_scale - g->forward[a];
        dir[FIT_FRONT][a] = -(double)g->forward[a];
        for (int k = 0; k < CAMERA_FIT_ASPECTS; k++)
            for (int side = 0; side < 2; side++)
                dir[FIT_SIDE + 2 * k + side][a] =
                    (side ? -(double)g->right[a] : (double)g->right[a]) * g->across[k] - g->forward[a];
    }
}

/* The functions' values at p (dots pr, pu, pf: fit_dots), as the box and
 * fit_add_dots work them out; `count` of them (the box's alone, or all). */
static void fit_values(const fit_gather *g, const float p[3], float pr, float pu, float pf, int count, float *value)
{
    for (int a = 0; a < 3; a++) value[a] = -p[a], value[3 + a] = p[a];
    if (count <= FIT_BOX) return;
    for (int side = 0; side < 2; side++) value[FIT_UP + side] = (side ? -pu : pu) * g->up_scale - pf;
    value[FIT_FRONT] = -pf;
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++)
        for (int side = 0; side < 2; side++) value[FIT_SIDE + 2 * k + side] = (side ? -pr : pr) * g->across[k] - pf;
}

/* Puts the camera's centre at `box_centre`, or (`balance`) there moved
 * along the default camera's up until the points reach as far above the
 * picture's middle as below it (in perspective: the near ones look
 * larger); keeps what camera_framed_view needs, relative to it. */
static void fit_end(const fit_gather *g, const float box_centre[3], int balance, skv_camera *camera)
{
    float cr = glm_vec3_dot((float *)box_centre, (float *)g->right), cu = glm_vec3_dot((float *)box_centre, (float *)g->up);
    float cf = glm_vec3_dot((float *)box_centre, (float *)g->forward);
    float up = g->up_scale;
    /* Moving the centre by m along u takes m * up off the upper reach and
     * adds it to the lower one. */
    float above = g->up_reach[0] - (cu * up - cf), below = g->up_reach[1] - (-cu * up - cf);
    float move = balance ? (above - below) / (2.0f * up) : 0.0f;
    for (int a = 0; a < 3; a++) camera->center[a] = box_centre[a] + move * g->up[a];
    camera->reach_up = balance ? 0.5f * (above + below) : fmaxf(above, below);
    camera->reach_front = g->front + cf;
    camera->balanced = balance;
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++)
        for (int side = 0; side < 2; side++) {
            camera->sideways[k][side][0] = g->side_pair[k][side][0] - cr;
            camera->sideways[k][side][1] = g->side_pair[k][side][1] - cf;
        }
    camera->yaw = FRAMING_YAW_DEG;
    camera->pitch = FRAMING_PITCH_DEG;
    camera->zoom = 1.0f;
}

/* The scale of the box lo..hi: half its diagonal, 1 for a point. */
static float box_radius(const float lo[3], const float hi[3])
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++) d2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    float radius = 0.5f * sqrtf(d2);
    return radius > 1e-6f && isfinite(radius) ? radius : 1.0f;
}

/* One sample of the framing: the pose's vertices blended one by one,
 * kept as the whole mesh's pass kept them (skin_bounds, fit_add in vertex
 * order), whichever of them are blended and in whatever order. */
typedef struct frame_sample {
    const skv_model *model;
    const mat4 *palette;
    const float *rest;
    float back[3];        /* the steady node's travel, taken off x and z */
    long long place;      /* the sample's first vertex's place in the framing's order */
    float lo[3], hi[3];   /* skin_bounds' box of the blended vertices */
    int lo_at[3], hi_at[3];
    fit_gather *gather;   /* NULL: only the box is wanted */
    int record;           /* into lo, hi and gather (else: only the values below) */
    int functions;        /* FIT_BOX or FIT_FUNCTIONS */
    float *best;          /* the seeds': per function, the largest value less `slack` (NULL: not kept) */
    const double *slack;
    int bounded;          /* every vertex so far within TRUSTED_REACH */
    long long blended;
} frame_sample;

/* Where skin_bound's bounds and the points are trusted not to overflow. */
#define TRUSTED_REACH 1e30f
/* A seed's points count for their value less this many of skin_bound's
 * rounding margins. */
#define SEED_SLACK 16.0

static void frame_sample_begin(frame_sample *fs, const skv_pose *pose, const float back[3], long long place)
{
    for (int a = 0; a < 3; a++) {
        fs->back[a] = back[a];
        fs->lo[a] = FLT_MAX, fs->hi[a] = -FLT_MAX;
        fs->lo_at[a] = fs->hi_at[a] = INT_MAX;
    }
    fs->palette = (const mat4 *)pose->palette;
    fs->place = place;
    fs->bounded = 1;
}

static void frame_vertex(frame_sample *fs, int v)
{
    float x[3];
    skin_blend_vertex(fs->model, fs->palette, v, &fs->rest[(size_t)v * 3], x);
    fs->blended++;
    vec4 q;
    glm_mat4_mulv((vec4 *)fs->model->upright, (vec4){x[0], x[1], x[2], 1.0f}, q);
    float p[3] = {q[0] - fs->back[0], q[1], q[2] - fs->back[2]};
    for (int a = 0; a < 3; a++)
        if (!(fabsf(q[a]) < TRUSTED_REACH)) fs->bounded = 0;
    if (fs->record) {
        /* skin_bounds keeps the first of equal ones in vertex order. */
        for (int a = 0; a < 3; a++) {
            if (q[a] < fs->lo[a] || (q[a] == fs->lo[a] && v < fs->lo_at[a])) fs->lo[a] = q[a], fs->lo_at[a] = v;
            if (q[a] > fs->hi[a] || (q[a] == fs->hi[a] && v < fs->hi_at[a])) fs->hi[a] = q[a], fs->hi_at[a] = v;
        }
    }
    float pr = 0.0f, pu = 0.0f, pf = 0.0f;
    if (fs->gather) fit_dots(fs->gather, p, &pr, &pu, &pf);
    if (fs->record && fs->gather) fit_add_dots(fs->gather, pr, pu, pf, fs->place + v);
    if (fs->best) {
        float value[FIT_FUNCTIONS];
        fit_values(fs->gather, p, pr, pu, pf, fs->functions, value);
        for (int k = 0; k < fs->functions; k++) {
            float at_least = (float)((double)value[k] - fs->slack[k]);
            if (at_least > fs->best[k]) fs->best[k] = at_least;
        }
    }
}

/* Can some vertex of the span beat `best` at one of the functions? */
static int span_needed(const skv_skin_bound *bound, const skv_skin_span *span, int functions, const float *best)
{
    float upper[SKIN_BOUND_MAX_FUNCTIONS];
    skin_bound_span(bound, span, upper);
    for (int k = 0; k < functions; k++)
        if (!(upper[k] < best[k])) return 1;
    return 0;
}

/* The pose the frames draw at `seconds` of clip `clip` (camera.h,
 * skv_frame_pose). */
static void pose_drawn(skv_pose *pose, skv_walks *walks, const skv_frame_pose *drawn, int clip, double seconds)
{
    if (drawn && drawn->layers) pose_evaluate_layers(pose, walks, clip, seconds, drawn->layers);
    else if (drawn && drawn->blend_clip >= 0)
        pose_evaluate_blend(pose, walks_model(walks), clip, seconds, drawn->blend_clip, seconds, drawn->blend_weight);
    else pose_evaluate(pose, walks, clip, seconds);
}

/* How long the frames `drawn` poses take to show each clip they read
 * whole (each loops on its own duration, camera.h): the longest of them,
 * `c` and the blend's or the layers' clips; 0 where none moves. */
static double drawn_duration(const skv_model *model, const skv_frame_pose *drawn, const skv_clip *c)
{
    double longest = c ? c->duration_ticks / c->ticks_per_second : 0.0;
    int more[SKV_LAYERS_MAX], n = 0;
    if (drawn && drawn->layers)
        for (int i = 0; i < drawn->layers->count && n < SKV_LAYERS_MAX; i++) more[n++] = drawn->layers->clip[i];
    else if (drawn && drawn->blend_clip >= 0)
        more[n++] = drawn->blend_clip;
    for (int k = 0; k < n; k++) {
        if (more[k] < 0 || more[k] >= model->clip_count) continue;
        const skv_clip *m = &model->clips[more[k]];
        double d = m->duration_ticks / m->ticks_per_second;
        if (d > longest) longest = d;
    }
    return longest;
}

/* Poses the model at sample s (the clip's start + s / samples of it) and
 * prepares `bound` for it: 1 where its bounds hold, 0 where every vertex
 * is to be blended. back: the steady node's travel since the clip's
 * start. */
static int frame_pose_at(skv_pose *pose, skv_walks *walks, const skv_frame_pose *drawn, int clip, double seconds,
                         int steady_node, const float start[3], skv_skin_bound *bound, const fit_gather *g,
                         int functions, float back[3])
{
    const skv_model *model = walks_model(walks);
    pose_drawn(pose, walks, drawn, clip, seconds);
    back[0] = back[1] = back[2] = 0.0f;
    if (steady_node >= 0 && steady_node < model->skeleton.node_count) {
        float at[3];
        camera_node_position(model, pose_globals(pose), steady_node, at);
        for (int a = 0; a < 3; a += 2) back[a] = at[a] - start[a];
    }
    if (!bound) return 0;
    for (int a = 0; a < 3; a++)
        if (!(fabsf(back[a]) < TRUSTED_REACH)) return 0;
    double dir[FIT_FUNCTIONS][3], offset[FIT_FUNCTIONS];
    fit_directions(g, dir);
    for (int k = 0; k < functions; k++) offset[k] = -(dir[k][0] * back[0] + dir[k][2] * back[2]);
    return skin_bound_prepare(bound, (const mat4 *)pose->palette, model->upright, functions,
                              (const double(*)[3])dir, offset);
}

/* best raised to what the points kept so far reach: the sample's box
 * (less the steady node's travel, as it is merged) and the gather's
 * reaches (every sample's), the same values fit_values gives. */
static void frame_best_update(const frame_sample *fs, float *best)
{
    for (int a = 0; a < 3; a++) {
        if (fs->lo[a] > fs->hi[a]) continue; /* nothing yet */
        float lo = fs->lo[a], hi = fs->hi[a];
        if (a != 1) lo -= fs->back[a], hi -= fs->back[a];
        if (-lo > best[a]) best[a] = -lo;
        if (hi > best[3 + a]) best[3 + a] = hi;
    }
    const fit_gather *g = fs->gather;
    if (fs->functions <= FIT_BOX || !g || g->count == 0) return;
    for (int side = 0; side < 2; side++)
        if (g->up_reach[side] > best[FIT_UP + side]) best[FIT_UP + side] = g->up_reach[side];
    if (g->front > best[FIT_FRONT]) best[FIT_FRONT] = g->front;
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++)
        for (int side = 0; side < 2; side++)
            if (g->side_reach[k][side] > best[FIT_SIDE + 2 * k + side])
                best[FIT_SIDE + 2 * k + side] = g->side_reach[k][side];
}

/* Do the span's bones all stand as they stood at the last sample? */
static int span_still(const skv_skin_bound *bound, const skv_skin_span *span, const unsigned char *still)
{
    for (int j = span->bone_first; j < span->bone_first + span->bone_count; j++)
        if (!still[bound->bones[j]]) return 0;
    return 1;
}

/* Blends the always-blended vertices (skin_bound.h), then those the bounds
 * leave (all of them where `prune` is 0), of the pose frame_pose_at made.
 * still: where not NULL, per bone, 1 where its palette entry is the last
 * sample's bit for bit (the steady node's travel too), that sample having
 * been pruned: a span all of whose bones are still gives the points it
 * gave then, each either kept then (again it would be a later equal: not
 * kept) or below best then. Returns 1 where the sample was pruned (its
 * points bounded). */
static int frame_sample_blend(frame_sample *fs, const skv_skin_bound *bound, int prune, float *best,
                              const unsigned char *still)
{
    fs->best = NULL;
    for (int i = 0; i < bound->always_count; i++) frame_vertex(fs, bound->always[i]);
    /* A sample whose points may overflow keeps every vertex and counts
     * for no bound (its box may be passed over). */
    prune = prune && fs->bounded;
    if (!prune) still = NULL;
    for (int g = 0; g < bound->group_count; g++) {
        const skv_skin_span *group = &bound->groups[g];
        if (still && span_still(bound, group, still)) continue;
        if (prune && !span_needed(bound, group, fs->functions, best)) continue;
        for (int c = group->first; c < group->first + group->count; c++) {
            const skv_skin_span *cluster = &bound->clusters[c];
            if (still && span_still(bound, cluster, still)) continue;
            if (prune && !span_needed(bound, cluster, fs->functions, best)) continue;
            for (int i = cluster->first; i < cluster->first + cluster->count; i++) frame_vertex(fs, bound->order[i]);
            if (prune) frame_best_update(fs, best);
        }
    }
    return prune;
}

static skv_result framed_bounds(skv_walks *walks, const skv_frame_pose *drawn, int clip, double start_seconds,
                                int samples, int steady_node, int prune, long long *blended, float lo[3], float hi[3],
                                skv_camera *framed)
{
    const skv_model *model = walks_model(walks);
    /* pose: the framing's, posed as it always was (a pose's first
     * evaluation takes another path than the next ones, which may differ
     * in the last bits); seek: the one that looks ahead for the seeds. */
    skv_pose pose, seek;
    skv_skin_bound bound;
    if (skin_bound_create(&bound, model) != SKV_OK) return SKV_ERR_MEMORY;
    if (pose_create(&pose, &model->skeleton) != SKV_OK) {
        skin_bound_destroy(&bound);
        return SKV_ERR_MEMORY;
    }
    if (prune && pose_create(&seek, &model->skeleton) != SKV_OK) {
        pose_destroy(&pose);
        skin_bound_destroy(&bound);
        return SKV_ERR_MEMORY;
    }
    for (int a = 0; a < 3; a++) {
        lo[a] = FLT_MAX;
        hi[a] = -FLT_MAX;
    }
    fit_gather gather;
    fit_begin(&gather);
    const skv_clip *c = clip >= 0 && clip < model->clip_count ? &model->clips[clip] : NULL;
    double duration = drawn_duration(model, drawn, c);
    if (!(duration > 0.0) || samples < 1) samples = 1;
    float start[3] = {0.0f, 0.0f, 0.0f}; /* the steady node at the clip's start */
    if (steady_node >= 0 && steady_node < model->skeleton.node_count) {
        pose_drawn(&pose, walks, drawn, clip, 0.0);
        camera_node_position(model, pose_globals(&pose), steady_node, start);
    }
    const int functions = framed ? FIT_FUNCTIONS : FIT_BOX;
    frame_sample fs = {.model = model, .rest = bound.rest, .gather = &gather, .functions = functions};
    /* best: the largest value of each function over points the framing
     * keeps; a cluster whose bound stays below it at every function has
     * no point the framing would keep (the first of equals included). */
    float best[FIT_FUNCTIONS], back[3];
    for (int k = 0; k < FIT_FUNCTIONS; k++) best[k] = -INFINITY;
    if (prune) {
        /* Seeds: for each function, the cluster of the group whose bound
         * reaches furthest over the clip, blended at that time, so that
         * the clusters that cannot come near the extremes are passed over
         * from the first sample on. */
        double reach[FIT_FUNCTIONS];
        float upper[SKIN_BOUND_MAX_FUNCTIONS];
        int at_sample[FIT_FUNCTIONS], at_group[FIT_FUNCTIONS];
        for (int k = 0; k < functions; k++) reach[k] = -HUGE_VAL, at_sample[k] = at_group[k] = -1;
        for (int s = 0; s < samples; s++) {
            double seconds = start_seconds + (samples > 1 ? duration * s / samples : 0.0);
            if (!frame_pose_at(&seek, walks, drawn, clip, seconds, steady_node, start, &bound, &gather, functions, back))
                continue;
            for (int g = 0; g < bound.group_count; g++) {
                skin_bound_span(&bound, &bound.groups[g], upper);
                for (int k = 0; k < functions; k++)
                    if (upper[k] > reach[k]) reach[k] = upper[k], at_sample[k] = s, at_group[k] = g;
            }
        }
        fs.record = 0;
        for (int s = 0; s < samples; s++) {
            int wanted = 0;
            for (int k = 0; k < functions; k++) wanted |= at_sample[k] == s;
            if (!wanted) continue;
            double seconds = start_seconds + (samples > 1 ? duration * s / samples : 0.0);
            if (!frame_pose_at(&seek, walks, drawn, clip, seconds, steady_node, start, &bound, &gather, functions, back))
                continue;
            frame_sample_begin(&fs, &seek, back, 0);
            fs.best = NULL;
            for (int i = 0; i < bound.always_count; i++) frame_vertex(&fs, bound.always[i]);
            if (!fs.bounded) continue;
            /* The seek pose may differ from the framing's in the last
             * bits: its points count for less by many times that. */
            double slack[FIT_FUNCTIONS];
            for (int k = 0; k < functions; k++) slack[k] = SEED_SLACK * bound.margin[k];
            fs.best = best, fs.slack = slack;
            for (int k = 0; k < functions; k++) {
                if (at_sample[k] != s) continue;
                const skv_skin_span *group = &bound.groups[at_group[k]];
                int pick = group->first;
                double top = -HUGE_VAL;
                for (int cl = group->first; cl < group->first + group->count; cl++) {
                    skin_bound_span(&bound, &bound.clusters[cl], upper);
                    if (upper[k] > top) top = upper[k], pick = cl;
                }
                const skv_skin_span *cluster = &bound.clusters[pick];
                for (int i = cluster->first; i < cluster->first + cluster->count; i++)
                    frame_vertex(&fs, bound.order[i]);
            }
            fs.best = NULL, fs.slack = NULL;
        }
        pose_destroy(&seek);
    }
    fs.record = 1;
    fs.gather = framed ? &gather : NULL;
    /* The last sample's palette, to find the bones that stand still. */
    size_t bones = model->skeleton.bone_count > 0 ? (size_t)model->skeleton.bone_count : 1;
    mat4 *last = prune && samples > 1 ? malloc(bones * sizeof *last) : NULL;
    unsigned char *still = last ? calloc(bones, 1) : NULL;
    if (!still) free(last), last = NULL; /* no memory: every sample pruned by its bounds alone */
    float last_back[3] = {0.0f, 0.0f, 0.0f};
    int last_pruned = 0;
    for (int s = 0; s < samples; s++) {
        double seconds = start_seconds + (samples > 1 ? duration * s / samples : 0.0);
        int bounded = frame_pose_at(&pose, walks, drawn, clip, seconds, steady_node, start, prune ? &bound : NULL, &gather,
                                    functions, back);
        frame_sample_begin(&fs, &pose, back, (long long)s * model->vertex_count);
        /* Which bones stand as at the last sample, that sample pruned. */
        int steady_still = last_pruned && memcmp(back, last_back, sizeof back) == 0;
        for (int b = 0; still && b < model->skeleton.bone_count; b++) {
            still[b] = steady_still && memcmp(last[b], pose.palette[b], sizeof last[b]) == 0;
            memcpy(last[b], pose.palette[b], sizeof last[b]);
        }
        memcpy(last_back, back, sizeof back);
        last_pruned = frame_sample_blend(&fs, &bound, prune && bounded, best, still);
        float slo[3], shi[3];
        for (int a = 0; a < 3; a++) slo[a] = fs.lo[a], shi[a] = fs.hi[a];
        for (int a = 0; a < 3; a += 2) slo[a] -= back[a], shi[a] -= back[a];
        for (int a = 0; a < 3; a++) {
            if (isfinite(slo[a]) && slo[a] < lo[a]) lo[a] = slo[a];
            if (isfinite(shi[a]) && shi[a] > hi[a]) hi[a] = shi[a];
        }
    }
    free(last);
    free(still);
    if (blended) *blended = fs.blended;
    for (int a = 0; a < 3; a++)
        if (lo[a] > hi[a]) lo[a] = hi[a] = 0.0f; /* nothing finite: a point */
    pose_destroy(&pose);
    skin_bound_destroy(&bound);
    if (framed) {
        if (gather.count == 0) {
            camera_frame(framed, lo, hi);
        } else {
            float centre[3] = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])};
            fit_end(&gather, centre, 1, framed);
            framed->radius = box_radius(lo, hi);
        }
    }
    return SKV_OK;
}

skv_result camera_framed_bounds_pruned(skv_walks *walks, int clip, double start_seconds, int samples,
                                       int steady_node, int prune, long long *blended, float lo[3], float hi[3],
                                       skv_camera *framed)
{
    return framed_bounds(walks, NULL, clip, start_seconds, samples, steady_node, prune, blended, lo, hi, framed);
}

skv_result camera_framed_drawn(skv_walks *walks, const skv_frame_pose *drawn, int clip, double start_seconds,
                               int samples, int steady_node, float lo[3], float hi[3], skv_camera *framed)
{
    return framed_bounds(walks, drawn, clip, start_seconds, samples, steady_node, 1, NULL, lo, hi, framed);
}

skv_result camera_framed_bounds(skv_walks *walks, int clip, double start_seconds, int samples, int steady_node,
                                float lo[3], float hi[3], skv_camera *framed)
{
    return camera_framed_bounds_pruned(walks, clip, start_seconds, samples, steady_node, 1, NULL, lo, hi, framed);
}

skv_result camera_animated_bounds(skv_walks *walks, int clip, double start_seconds, int samples, int steady_node,
                                  float lo[3], float hi[3])
{
    return camera_framed_bounds(walks, clip, start_seconds, samples, steady_node, lo, hi, NULL);
}

/* Gathers the corners of box lo..hi (a point or a flat box as a box of
 * its scale, `radius`); its centre into `centre`. */
static void fit_add_box(fit_gather *g, const float lo[3], const float hi[3], float radius, float centre[3])
{
    float box_lo[3], box_hi[3];
    for (int a = 0; a < 3; a++) {
        centre[a] = 0.5f * (lo[a] + hi[a]);
        float half = fmaxf(0.5f * (hi[a] - lo[a]), radius * 1e-3f);
        if (!isfinite(centre[a])) centre[a] = 0.0f;
        if (!isfinite(half)) half = 1.0f;
        box_lo[a] = centre[a] - half, box_hi[a] = centre[a] + half;
    }
    for (int k = 0; k < 8; k++)
        fit_add(g, (float[3]){k & 1 ? box_hi[0] : box_lo[0], k & 2 ? box_hi[1] : box_lo[1], k & 4 ? box_hi[2] : box_lo[2]});
}

void camera_frame(skv_camera *camera, const float lo[3], const float hi[3])
{
    float centre[3], radius = box_radius(lo, hi);
    fit_gather gather;
    fit_begin(&gather);
    fit_add_box(&gather, lo, hi, radius, centre);
    fit_end(&gather, centre, 0, camera);
    camera->radius = radius;
}

void camera_frame_boxes(skv_camera *camera, int count, const float (*lo)[3], const float (*hi)[3])
{
    float all_lo[3], all_hi[3], centre[3];
    for (int a = 0; a < 3; a++) {
        all_lo[a] = lo[0][a], all_hi[a] = hi[0][a];
        for (int b = 1; b < count; b++) all_lo[a] = fminf(all_lo[a], lo[b][a]), all_hi[a] = fmaxf(all_hi[a], hi[b][a]);
    }
    float radius = box_radius(all_lo, all_hi);
    fit_gather gather;
    fit_begin(&gather);
    for (int b = 0; b < count; b++) fit_add_box(&gather, lo[b], hi[b], radius, centre);
    for (int a = 0; a < 3; a++) centre[a] = 0.5f * (all_lo[a] + all_hi[a]);
    fit_end(&gather, centre, 1, camera);
    camera->radius = radius;
}

void camera_centre_box_on(float lo[3], float hi[3], const float at_lo[3], const float at_hi[3])
{
    for (int a = 0; a < 3; a += 2) {
        float at = 0.5f * (at_lo[a] + at_hi[a]), reach = fmaxf(at - lo[a], hi[a] - at);
        if (!(reach >= 0.0f) || !isfinite(reach)) continue;
        lo[a] = at - reach;
        hi[a] = at + reach;
    }
}

void camera_framed_view(const skv_camera *camera, float aspect, float *distance, float look_at[3])
{
    if (!(aspect > 0.0f) || !isfinite(aspect)) aspect = 1.0f;
    float across = 1.0f / (fit_tan_up() * aspect);
    /* The reach to the right and to the left; moving the look-at point by
     * m along the default camera's right takes m * across off the one and
     * adds it to the other (balanced: until they are equal). */
    float reach[2] = {-FLT_MAX, -FLT_MAX};
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++)
        for (int side = 0; side < 2; side++) {
            const float *pair = camera->sideways[k][side];
            reach[side] = fmaxf(reach[side], (side ? -pair[0] : pair[0]) * across - pair[1]);
        }
    float move = camera->balanced ? (reach[0] - reach[1]) / (2.0f * across) : 0.0f;
    float sideways = camera->balanced ? 0.5f * (reach[0] + reach[1]) : fmaxf(reach[0], reach[1]);
    float d = fmaxf(fmaxf(camera->reach_up, sideways), camera->reach_front + 0.05f * camera->radius);
    if (!(d > 0.0f) || !isfinite(d)) d = 3.0f * camera->radius, move = 0.0f;
    if (!isfinite(move)) move = 0.0f;
    float yaw = glm_rad(FRAMING_YAW_DEG);
    vec3 right = {cosf(yaw), 0.0f, -sinf(yaw)}; /* the default camera's right */
    for (int a = 0; a < 3; a++) look_at[a] = camera->center[a] + move * right[a];
    *distance = d;
}

void camera_matrices(const skv_camera *camera, int width, int height, mat4 view, mat4 projection)
{
    float aspect = height > 0 ? (float)width / (float)height : 1.0f;
    float fovy = glm_rad(FIELD_OF_VIEW_DEG);
    float distance, look_at[3];
    camera_framed_view(camera, aspect, &distance, look_at);
    distance *= camera->zoom;

    float yaw = glm_rad(camera->yaw), pitch = glm_rad(camera->pitch);
    vec3 eye = {
        look_at[0] + distance * cosf(pitch) * sinf(yaw),
        look_at[1] + distance * sinf(pitch),
        look_at[2] + distance * cosf(pitch) * cosf(yaw),
    };
    vec3 up = {0.0f, 1.0f, 0.0f};
    glm_lookat(eye, look_at, up, view);
    float near_plane = fmaxf(distance - camera->radius * 2.0f, distance * 0.01f);
    float far_plane = distance + camera->radius * 2.0f;
    glm_perspective(fovy, aspect, near_plane, far_plane, projection);
}
