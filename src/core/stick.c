/* stick.c - the stick figure of a skeleton without a mesh (stick.h). */
#include "stick.h"
#include "anim.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Geometry as it is built: flat-shaded triangles, three vertices each. */
typedef struct figure {
    float *positions, *normals;
    int *bone; /* per vertex */
    int count, capacity;
} figure;

static int grow(figure *f, int more)
{
    if (f->count + more <= f->capacity) return 0;
    int capacity = f->capacity ? f->capacity * 2 : 256;
    while (capacity < f->count + more) capacity *= 2;
    float *p = realloc(f->positions, (size_t)capacity * 3 * sizeof *p);
    if (p) f->positions = p;
    float *n = realloc(f->normals, (size_t)capacity * 3 * sizeof *n);
    if (n) f->normals = n;
    int *b = realloc(f->bone, (size_t)capacity * sizeof *b);
    if (b) f->bone = b;
    if (!p || !n || !b) return -1;
    f->capacity = capacity;
    return 0;
}

/* One triangle, turned to face away from `center` (the solid's middle). */
static int triangle(figure *f, const vec3 a, const vec3 b, const vec3 c, const vec3 center, int bone)
{
    if (grow(f, 3) != 0) return -1;
    vec3 ab, ac, normal, middle;
    glm_vec3_sub((float *)b, (float *)a, ab);
    glm_vec3_sub((float *)c, (float *)a, ac);
    glm_vec3_cross(ab, ac, normal);
    glm_vec3_add((float *)a, (float *)b, middle);
    glm_vec3_add(middle, (float *)c, middle);
    glm_vec3_scale(middle, 1.0f / 3.0f, middle);
    glm_vec3_sub(middle, (float *)center, middle);
    int flip = glm_vec3_dot(normal, middle) < 0.0f;
    if (flip) glm_vec3_negate(normal);
    glm_vec3_normalize(normal);
    const float *corners[3] = {a, flip ? c : b, flip ? b : c};
    for (int k = 0; k < 3; k++) {
        memcpy(&f->positions[(size_t)f->count * 3], corners[k], 3 * sizeof(float));
        memcpy(&f->normals[(size_t)f->count * 3], normal, 3 * sizeof(float));
        f->bone[f->count++] = bone;
    }
    return 0;
}

/* An octahedron: apexes `base` and `tip`, its waist a square of half-width
 * `width` across the axis, `at` of the way from base to tip. */
static int octahedron(figure *f, const vec3 base, const vec3 tip, float at, float width, int bone)
{
    vec3 axis, u, v, waist, center;
    glm_vec3_sub((float *)tip, (float *)base, axis);
    vec3 helper = {1.0f, 0.0f, 0.0f};
    if (fabsf(axis[0]) > 0.9f * glm_vec3_norm(axis)) helper[0] = 0.0f, helper[1] = 1.0f;
    glm_vec3_cross(axis, helper, u);
    glm_vec3_normalize(u);
    glm_vec3_cross(axis, u, v);
    glm_vec3_normalize(v);
    glm_vec3_scale(axis, at, waist);
    glm_vec3_add((float *)base, waist, waist);
    glm_vec3_copy(waist, center);
    vec3 ring[4];
    for (int k = 0; k < 4; k++) {
        float s = k == 0 ? 1.0f : k == 2 ? -1.0f : 0.0f, t = k == 1 ? 1.0f : k == 3 ? -1.0f : 0.0f;
        for (int a = 0; a < 3; a++) ring[k][a] = waist[a] + width * (s * u[a] + t * v[a]);
    }
    for (int k = 0; k < 4; k++) {
        if (triangle(f, base, ring[k], ring[(k + 1) % 4], center, bone) != 0 ||
            triangle(f, tip, ring[k], ring[(k + 1) % 4], center, bone) != 0)
            return -1;
    }
    return 0;
}

/* The nearest joint above node n, or -1. */
static int joint_parent(const skv_skeleton *sk, const unsigned char *joint, int n)
{
    int p = sk->parents[n];
    while (p >= 0 && !joint[p]) p = sk->parents[p];
    return p;
}

/* Which of the moving nodes are the figure: animation files also move
 * cameras, their targets and lights, each a tree of one joint (ozz's
 * walk.fbx: three cameras and a sky far from the character). Those are
 * left out when any tree has two or more joints. Fills `keep`. */
static int choose_joints(const skv_skeleton *sk, const unsigned char *joint, unsigned char *keep, int *tree_size)
{
    int nodes = sk->node_count, any_tree = 0, joints = 0;
    for (int n = 0; n < nodes; n++) tree_size[n] = 0;
    for (int n = 0; n < nodes; n++) {
        if (!joint[n]) continue;
        int top = n;
        for (int p = joint_parent(sk, joint, n); p >= 0; p = joint_parent(sk, joint, p)) top = p;
        if (++tree_size[top] > 1) any_tree = 1;
    }
    for (int n = 0; n < nodes; n++) {
        keep[n] = 0;
        if (!joint[n]) continue;
        int top = n;
        for (int p = joint_parent(sk, joint, n); p >= 0; p = joint_parent(sk, joint, p)) top = p;
        keep[n] = !any_tree || tree_size[top] > 1;
        joints += keep[n];
    }
    return joints;
}

skv_result stick_figure_build(skv_model *model, const unsigned char *moving)
{
    skv_skeleton *sk = &model->skeleton;
    int nodes = sk->node_count;
    unsigned char *joint = malloc((size_t)(nodes ? nodes : 1));
    int *tree_size = malloc((size_t)(nodes ? nodes : 1) * sizeof *tree_size);
    if (!joint || !tree_size) {
        free(joint);
        free(tree_size);
        return SKV_ERR_MEMORY;
    }
    int joints = choose_joints(sk, moving, joint, tree_size);
    free(tree_size);
    mat4 *global = malloc((size_t)(nodes ? nodes : 1) * sizeof *global); /* model space */
    int *bone_of = malloc((size_t)(nodes ? nodes : 1) * sizeof *bone_of);
    size_t room = joints > 0 ? (size_t)joints : 1;
    sk->bone_names = calloc(room, sizeof *sk->bone_names);
    sk->bone_node = malloc(room * sizeof *sk->bone_node);
    sk->bone_offset = malloc(room * sizeof *sk->bone_offset);
    sk->bone_from_file = malloc(room);
    figure f = {0};
    skv_result status = SKV_ERR_MEMORY;
    if (!global || !bone_of || !sk->bone_names || !sk->bone_node || !sk->bone_offset || !sk->bone_from_file)
        goto done;

    /* Rest globals, parent first, with the root transform cancelled as
     * the walker cancels it; one palette entry per joint. */
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (int n = 0; n < nodes; n++) {
        if (sk->parents[n] >= 0) glm_mat4_mul(global[sk->parents[n]], sk->rest_local[n], global[n]);
        else glm_mat4_mul(model->global_inverse, sk->rest_local[n], global[n]);
        bone_of[n] = -1;
        if (!joint[n]) continue;
        int b = sk->bone_count;
        sk->bone_names[b] = strdup(sk->node_names[n]);
        if (!sk->bone_names[b]) goto done;
        sk->bone_node[b] = n;
        sk->bone_from_file[b] = 1; /* the file's own joints, though it bound no mesh to them */
        anim_inverse(global[n], sk->bone_offset[b]);
        bone_of[n] = b;
        sk->bone_count++;
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], global[n][3][a]);
            hi[a] = fmaxf(hi[a], global[n][3][a]);
        }
    }
    model->file_bone_count = sk->bone_count;
    float size = 0.0f;
    for (int a = 0; a < 3 && joints; a++) size += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    size = sqrtf(size);
    if (!(size > 0.0f) || !isfinite(size)) size = 1.0f;

    for (int n = 0; n < nodes; n++) {
        if (!joint[n]) continue;
        vec3 at;
        glm_vec3_copy(global[n][3], at);
        float r = 0.012f * size;
        vec3 below = {at[0], at[1] - r, at[2]}, above = {at[0], at[1] + r, at[2]};
        if (octahedron(&f, below, above, 0.5f, r, bone_of[n]) != 0) goto done;
        int p = joint_parent(sk, joint, n);
        if (p < 0) continue;
        vec3 from;
        glm_vec3_copy(global[p][3], from);
        float length = glm_vec3_distance(from, at);
        if (!(length > 1e-5f * size)) continue;
        if (octahedron(&f, from, at, 0.15f, fminf(0.1f * length, 0.03f * size), bone_of[p]) != 0) goto done;
    }

    /* Into the model's arrays: one mesh, one influence per vertex. */
    int nv = f.count, slots = model->influence_slots;
    model->meshes = calloc(1, sizeof *model->meshes);
    model->positions = malloc((size_t)(nv ? nv : 1) * 3 * sizeof(float));
    model->normals = malloc((size_t)(nv ? nv : 1) * 3 * sizeof(float));
    model->uvs = calloc((size_t)(nv ? nv : 1) * 2, sizeof(float));
    model->bone_ids = calloc((size_t)(nv ? nv : 1) * (size_t)slots, sizeof(uint16_t));
    model->weights = calloc((size_t)(nv ? nv : 1) * (size_t)slots, sizeof(float));
    model->indices = malloc((size_t)(nv ? nv : 1) * sizeof(uint32_t));
    model->influence_start = malloc(((size_t)nv + 1) * sizeof(int));
    model->influences = malloc((size_t)(nv ? nv : 1) * sizeof *model->influences);
    if (!model->meshes || !model->positions || !model->normals || !model->uvs || !model->bone_ids ||
        !model->weights || !model->indices || !model->influence_start || !model->influences)
        goto done;
    if (nv) {
        memcpy(model->positions, f.positions, (size_t)nv * 3 * sizeof(float));
        memcpy(model->normals, f.normals, (size_t)nv * 3 * sizeof(float));
    }
    model->influence_start[0] = 0;
    for (int v = 0; v < nv; v++) {
        model->bone_ids[(size_t)v * (size_t)slots] = (uint16_t)f.bone[v];
        model->weights[(size_t)v * (size_t)slots] = 1.0f;
        model->indices[v] = (uint32_t)v;
        model->influences[v] = (skv_influence){f.bone[v], 1.0f};
        model->influence_start[v + 1] = v + 1;
    }
    skv_mesh *mesh = &model->meshes[0];
    mesh->name = strdup("skeleton");
    if (!mesh->name) goto done;
    *mesh = (skv_mesh){.name = mesh->name, .vertex_count = nv, .index_count = nv, .material = 0,
                       .node = 0, .skinned = 1, .bone_count = sk->bone_count, .max_influences = 1};
    model->mesh_count = 1;
    model->vertex_count = nv;
    model->index_count = nv;
    model->skeleton_only = 1;
    status = SKV_OK;
done:
    free(joint);
    free(global);
    free(bone_of);
    free(f.positions);
    free(f.normals);
    free(f.bone);
    return status;
}
