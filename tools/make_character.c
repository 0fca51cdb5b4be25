/* make_character.c - the bundled default model: a small textured
 * mannequin, written as one binary glTF (tools/make_assets.c calls it).
 *
 *   mannequin.glb   glTF 2.0, Y-up, facing +Z, 1.8 units tall; 21 joints
 *                   (hips, spine, chest, neck, head; each side's clavicle,
 *                   upper arm, forearm, hand, thigh, shin, foot, toe); one
 *                   skinned mesh of capsules and tubes whose vertices near a
 *                   joint blend the two bones meeting there; a 256x256
 *                   texture (shirt, face and hair, trousers, skin, shoes)
 *                   inside the file; clips "walk" (1 s, in place), "wave"
 *                   (2 s) and "idle" (3 s), keyed 15 times a second, every
 *                   joint's rotation and the hips' translation, the last
 *                   key equal to the first (they loop).
 * The joints' rest rotations are the identity: a clip's rotation is the
 * turn from the rest pose, about the scene's axes. */
#include "make_character.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

/* --- skeleton ---------------------------------------------------------- */

enum {
    HIPS, SPINE, CHEST, NECK, HEAD,
    CLAVICLE_L, UPPER_ARM_L, FOREARM_L, HAND_L,
    CLAVICLE_R, UPPER_ARM_R, FOREARM_R, HAND_R,
    THIGH_L, SHIN_L, FOOT_L, TOE_L,
    THIGH_R, SHIN_R, FOOT_R, TOE_R,
    JOINTS
};

static const struct {
    const char *name;
    int parent;
    float at[3]; /* rest position in the scene */
} joints[JOINTS] = {
    {"hips", -1, {0.0f, 0.95f, 0.0f}},          {"spine", HIPS, {0.0f, 1.08f, -0.01f}},
    {"chest", SPINE, {0.0f, 1.26f, -0.01f}},     {"neck", CHEST, {0.0f, 1.48f, -0.01f}},
    {"head", NECK, {0.0f, 1.57f, 0.0f}},         {"clavicle_L", CHEST, {0.04f, 1.42f, -0.01f}},
    {"upper_arm_L", CLAVICLE_L, {0.19f, 1.41f, -0.01f}}, {"forearm_L", UPPER_ARM_L, {0.245f, 1.14f, -0.01f}},
    {"hand_L", FOREARM_L, {0.285f, 0.90f, 0.0f}}, {"clavicle_R", CHEST, {-0.04f, 1.42f, -0.01f}},
    {"upper_arm_R", CLAVICLE_R, {-0.19f, 1.41f, -0.01f}}, {"forearm_R", UPPER_ARM_R, {-0.245f, 1.14f, -0.01f}},
    {"hand_R", FOREARM_R, {-0.285f, 0.90f, 0.0f}}, {"thigh_L", HIPS, {0.095f, 0.90f, 0.0f}},
    {"shin_L", THIGH_L, {0.10f, 0.50f, 0.01f}},   {"foot_L", SHIN_L, {0.10f, 0.09f, -0.01f}},
    {"toe_L", FOOT_L, {0.10f, 0.03f, 0.12f}},     {"thigh_R", HIPS, {-0.095f, 0.90f, 0.0f}},
    {"shin_R", THIGH_R, {-0.10f, 0.50f, 0.01f}},  {"foot_R", SHIN_R, {-0.10f, 0.09f, -0.01f}},
    {"toe_R", FOOT_R, {-0.10f, 0.03f, 0.12f}},
};

/* --- mesh ---------------------------------------------------------------- */

/* Texture regions, as (u0, v0, u1, v1); v = 0 is the image's top row. */
static const float shirt[4] = {0.0f, 0.0f, 0.5f, 0.5f}, face[4] = {0.5f, 0.0f, 1.0f, 0.5f},
                   trousers[4] = {0.0f, 0.5f, 0.5f, 1.0f}, skin[4] = {0.5f, 0.5f, 0.75f, 1.0f},
                   shoes[4] = {0.75f, 0.5f, 1.0f, 1.0f};

/* A ring of a tube: its centre, the radii across (side) and along the
 * front, and the two joints that move it (b weighing w, a the rest). */
typedef struct station {
    float at[3];
    float side, front;
    int a, b;
    float w;
} station;

typedef struct mesh {
    int vertex_count, index_count, vertex_room, index_room;
    float *positions, *normals, *uvs, *weights;
    uint8_t *joints;
    uint16_t *indices;
} mesh;

static int mesh_room(mesh *m, int vertices, int indices)
{
    if (m->vertex_count + vertices > m->vertex_room) {
        int room = (m->vertex_count + vertices) * 2;
        float *p = realloc(m->positions, sizeof(float) * 3 * room), *n = realloc(m->normals, sizeof(float) * 3 * room);
        if (p) m->positions = p;
        if (n) m->normals = n;
        float *t = realloc(m->uvs, sizeof(float) * 2 * room), *w = realloc(m->weights, sizeof(float) * 4 * room);
        if (t) m->uvs = t;
        if (w) m->weights = w;
        uint8_t *j = realloc(m->joints, 4 * (size_t)room);
        if (j) m->joints = j;
        if (!p || !n || !t || !w || !j) return -1;
        m->vertex_room = room;
    }
    if (m->index_count + indices > m->index_room) {
        int room = (m->index_count + indices) * 2;
        uint16_t *i = realloc(m->indices, sizeof(uint16_t) * room);
        if (!i) return -1;
        m->indices = i;
        m->index_room = room;
    }
    return m->vertex_count + vertices <= 65535 ? 0 : -1;
}

static void add_vertex(mesh *m, const float p[3], const float n[3], float u, float v, int a, int b, float w)
{
    int k = m->vertex_count++;
    memcpy(&m->positions[k * 3], p, 3 * sizeof(float));
    memcpy(&m->normals[k * 3], n, 3 * sizeof(float));
    m->uvs[k * 2] = u, m->uvs[k * 2 + 1] = v;
    uint8_t j[4] = {(uint8_t)a, (uint8_t)(w > 0.0f ? b : 0), 0, 0};
    float wt[4] = {1.0f - w, w, 0.0f, 0.0f};
    if (w <= 0.0f) wt[0] = 1.0f, wt[1] = 0.0f;
    memcpy(&m->joints[k * 4], j, 4);
    memcpy(&m->weights[k * 4], wt, sizeof wt);
}

/* A triangle facing the way its vertices' normals do. */
static void add_triangle(mesh *m, int i0, int i1, int i2)
{
    vec3 e1, e2, n, sum;
    glm_vec3_sub(&m->positions[i1 * 3], &m->positions[i0 * 3], e1);
    glm_vec3_sub(&m->positions[i2 * 3], &m->positions[i0 * 3], e2);
    glm_vec3_cross(e1, e2, n);
    glm_vec3_add(&m->normals[i0 * 3], &m->normals[i1 * 3], sum);
    glm_vec3_add(sum, &m->normals[i2 * 3], sum);
    int flip = glm_vec3_dot(n, sum) < 0.0f;
    m->indices[m->index_count++] = (uint16_t)i0;
    m->indices[m->index_count++] = (uint16_t)(flip ? i2 : i1);
    m->indices[m->index_count++] = (uint16_t)(flip ? i1 : i2);
}

/* The ring's plane: `side` across the tube, `front` the other way. */
static void ring_axes(const float along[3], vec3 side, vec3 front)
{
    vec3 d, ref = {0.0f, 0.0f, 1.0f};
    glm_vec3_normalize_to((float *)along, d);
    if (fabsf(d[2]) > 0.9f) ref[1] = 1.0f, ref[2] = 0.0f;
    glm_vec3_cross(ref, d, side);
    glm_vec3_normalize(side);
    glm_vec3_cross(d, side, front);
}

/* A closed tube through `count` stations, `sides` around, textured with
 * region `uv` (around: u, along: v, the last station at the top). The
 * seam has its own copy of the first column; each end is closed by a
 * fan about its station's centre. */
static int add_tube(mesh *m, const station *s, int count, int sides, const float uv[4])
{
    if (mesh_room(m, count * (sides + 1) + 2, (count - 1) * sides * 6 + 2 * sides * 3) != 0) return -1;
    float *length = malloc(sizeof(float) * count);
    if (!length) return -1;
    length[0] = 0.0f;
    for (int i = 1; i < count; i++) length[i] = length[i - 1] + glm_vec3_distance((float *)s[i].at, (float *)s[i - 1].at);
    int first = m->vertex_count;
    for (int i = 0; i < count; i++) {
        vec3 along, side, front;
        glm_vec3_sub((float *)s[i < count - 1 ? i + 1 : i].at, (float *)s[i > 0 ? i - 1 : i].at, along);
        ring_axes(along, side, front);
        float v = uv[3] - (uv[3] - uv[1]) * length[i] / length[count - 1];
        for (int k = 0; k <= sides; k++) {
            float a = 2.0f * (float)M_PI * k / sides, c = cosf(a), sn = sinf(a);
            vec3 p, n;
            for (int x = 0; x < 3; x++) {
                p[x] = s[i].at[x] + s[i].side * c * side[x] + s[i].front * sn * front[x];
                /* The ellipse's outward normal. */
                n[x] = c / fmaxf(s[i].side, 1e-4f) * side[x] + sn / fmaxf(s[i].front, 1e-4f) * front[x];
            }
            glm_vec3_normalize(n);
            add_vertex(m, p, n, uv[0] + (uv[2] - uv[0]) * k / sides, v, s[i].a, s[i].b, s[i].w);
        }
    }
    for (int i = 0; i + 1 < count; i++)
        for (int k = 0; k < sides; k++) {
            int a = first + i * (sides + 1) + k, b = a + 1, c = a + sides + 1, d = c + 1;
            add_triangle(m, a, b, d);
            add_triangle(m, a, d, c);
        }
    for (int end = 0; end < 2; end++) {
        const station *e = &s[end ? count - 1 : 0];
        vec3 axis;
        glm_vec3_sub((float *)s[end ? count - 1 : 1].at, (float *)s[end ? count - 2 : 0].at, axis);
        glm_vec3_normalize(axis);
        if (!end) glm_vec3_negate(axis);
        int centre = m->vertex_count, ring = first + (end ? count - 1 : 0) * (sides + 1);
        add_vertex(m, e->at, axis, uv[0] + 0.4f * (uv[2] - uv[0]), end ? uv[1] : uv[3], e->a, e->b, e->w);
        for (int k = 0; k < sides; k++) {
            /* The cap's triangles face along the axis: they take the
             * centre's normal for their side. */
            int i1 = ring + k, i2 = ring + k + 1;
            vec3 e1, e2, n;
            glm_vec3_sub(&m->positions[i1 * 3], (float *)e->at, e1);
            glm_vec3_sub(&m->positions[i2 * 3], (float *)e->at, e2);
            glm_vec3_cross(e1, e2, n);
            int flip = glm_vec3_dot(n, axis) < 0.0f;
            m->indices[m->index_count++] = (uint16_t)centre;
            m->indices[m->index_count++] = (uint16_t)(flip ? i2 : i1);
            m->indices[m->index_count++] = (uint16_t)(flip ? i1 : i2);
        }
    }
    free(length);
    return 0;
}

static float smooth(float x)
{
    x = x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
    return x * x * (3.0f - 2.0f * x);
}

/* Stations along a chain of joints chain[0..n-1] to `end`, `per` rings a
 * segment, radii interpolated from radius[i] (side, front) at each point;
 * within `blend` (a fraction of the segment) of an inner joint the two
 * bones share the ring, half and half at the joint. Returns the count. */
static int chain_stations(station *out, const int *chain, int n, const float end[3], int per, const float (*radius)[2],
                          float blend)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        const float *from = joints[chain[i]].at, *to = i + 1 < n ? joints[chain[i + 1]].at : end;
        for (int r = 0; r < per + (i == n - 1); r++) {
            float t = (float)r / per;
            station *s = &out[count++];
            for (int x = 0; x < 3; x++) s->at[x] = from[x] + (to[x] - from[x]) * t;
            s->side = radius[i][0] + (radius[i + 1][0] - radius[i][0]) * t;
            s->front = radius[i][1] + (radius[i + 1][1] - radius[i][1]) * t;
            s->a = chain[i], s->b = chain[i], s->w = 0.0f;
            if (i > 0 && t < blend) { /* shared with the bone before */
                s->a = chain[i - 1], s->b = chain[i], s->w = smooth(0.5f + 0.5f * t / blend);
            } else if (i + 1 < n && t > 1.0f - blend) { /* shared with the bone after */
                s->a = chain[i], s->b = chain[i + 1], s->w = 1.0f - smooth(0.5f + 0.5f * (1.0f - t) / blend);
            }
        }
    }
    return count;
}

static int build_mesh(mesh *m)
{
    station s[64];
    int n, failed = 0;
    /* Torso: pelvis to the top of the neck, an ellipse across. */
    {
        static const int chain[] = {HIPS, SPINE, CHEST, NECK};
        static const float radius[][2] = {{0.15f, 0.10f}, {0.13f, 0.09f}, {0.17f, 0.11f}, {0.055f, 0.055f}, {0.05f, 0.05f}};
        n = chain_stations(s, chain, 4, (float[3]){0.0f, 1.60f, 0.0f}, 4, radius, 0.35f);
        /* The pelvis's bottom, below the hips' joint. */
        memmove(&s[1], &s[0], sizeof(station) * n);
        s[0] = s[1], s[0].at[1] = 0.84f, s[0].side = 0.12f, s[0].front = 0.08f;
        n++;
        /* The shoulders: the chest's top is broad until the neck. */
        for (int i = 0; i < n; i++)
            if (s[i].at[1] > 1.36f && s[i].at[1] < 1.47f) s[i].side = 0.17f, s[i].front = 0.10f;
        /* Trousers to the waist, the shirt to the neck, the neck bare:
         * tubes that share their boundary rings. */
        int waist = 0, collar = 0;
        while (waist < n - 1 && s[waist + 1].at[1] <= 1.0f) waist++;
        while (collar < n - 1 && s[collar].at[1] < 1.47f) collar++;
        failed |= add_tube(m, s, waist + 1, 20, trousers);
        failed |= add_tube(m, s + waist, collar - waist + 1, 20, shirt);
        failed |= add_tube(m, s + collar, n - collar, 12, skin);
    }
    /* Head: an egg on the neck, the face to the front (u = 1/4 of the
     * region, where the front axis is). */
    {
        n = 0;
        for (int i = 0; i <= 12; i++) {
            float a = (float)M_PI * i / 12.0f, r = sinf(a);
            station *h = &s[n++];
            h->at[0] = 0.0f, h->at[1] = 1.70f - 0.125f * cosf(a), h->at[2] = 0.01f;
            h->side = fmaxf(0.095f * r, 0.004f), h->front = fmaxf(0.105f * r, 0.004f);
            h->a = h->b = HEAD, h->w = 0.0f;
        }
        failed |= add_tube(m, s, n, 20, face);
    }
    for (int side = 0; side < 2; side++) {
        float x = side ? -1.0f : 1.0f;
        int clavicle = side ? CLAVICLE_R : CLAVICLE_L;
        /* Arm: shoulder to wrist, the sleeve to the elbow. */
        {
            static const float radius[][2] = {{0.055f, 0.055f}, {0.042f, 0.042f}, {0.035f, 0.035f}};
            int chain[] = {clavicle + 1, clavicle + 2};
            n = chain_stations(s, chain, 2, joints[clavicle + 3].at, 5, radius, 0.3f);
            /* The shoulder's top joins the clavicle. */
            s[0].a = clavicle, s[0].b = clavicle + 1, s[0].w = 0.5f;
            failed |= add_tube(m, s, 6, 12, shirt);
            failed |= add_tube(m, s + 5, n - 5, 12, skin);
        }
        /* Hand: a flat mitten from the wrist. */
        {
            const float *wrist = joints[clavicle + 3].at;
            float tip[3] = {wrist[0] + x * 0.02f, wrist[1] - 0.17f, wrist[2] + 0.01f};
            for (int i = 0; i <= 4; i++) {
                float t = i / 4.0f, bulge = sinf((float)M_PI * (0.15f + 0.85f * t));
                station *h = &s[i];
                for (int k = 0; k < 3; k++) h->at[k] = wrist[k] + (tip[k] - wrist[k]) * t;
                h->side = 0.018f + 0.016f * bulge, h->front = 0.040f * bulge + 0.006f;
                h->a = clavicle + 3, h->b = clavicle + 3, h->w = 0.0f;
            }
            s[0].a = clavicle + 2, s[0].w = 0.5f;
            failed |= add_tube(m, s, 5, 10, skin);
        }
        /* Leg: hip to ankle. */
        int thigh = side ? THIGH_R : THIGH_L;
        {
            static const float radius[][2] = {{0.085f, 0.085f}, {0.06f, 0.06f}, {0.045f, 0.045f}};
            int chain[] = {thigh, thigh + 1};
            float ankle[3];
            memcpy(ankle, joints[thigh + 2].at, sizeof ankle);
            n = chain_stations(s, chain, 2, ankle, 6, radius, 0.3f);
            s[0].a = HIPS, s[0].b = thigh, s[0].w = 0.5f;
            s[n - 1].a = thigh + 1, s[n - 1].b = thigh + 2, s[n - 1].w = 0.5f;
            failed |= add_tube(m, s, n, 14, trousers);
        }
        /* Foot: heel to toe tip, a shoe. */
        {
            const float *ankle = joints[thigh + 2].at, *ball = joints[thigh + 3].at;
            static const float along[][4] = {
                /* z, y, width, height; t < 0.5: the foot's */
                {-0.075f, 0.055f, 0.035f, 0.045f}, {-0.04f, 0.06f, 0.048f, 0.06f}, {0.04f, 0.05f, 0.05f, 0.045f},
                {0.12f, 0.035f, 0.052f, 0.035f},   {0.17f, 0.03f, 0.045f, 0.028f}, {0.205f, 0.03f, 0.02f, 0.015f},
            };
            for (int i = 0; i < 6; i++) {
                station *f = &s[i];
                f->at[0] = ankle[0], f->at[1] = along[i][1], f->at[2] = along[i][0];
                f->side = along[i][2], f->front = along[i][3];
                f->a = thigh + 2, f->b = thigh + 3;
                f->w = smooth((along[i][0] - (ball[2] - 0.05f)) / 0.1f);
            }
            failed |= add_tube(m, s, 6, 12, shoes);
        }
    }
    return failed ? -1 : 0;
}

/* --- texture ------------------------------------------------------------- */

enum { TEX = 256 };

static void paint(unsigned char *rgba, int x, int y, const unsigned char rgb[3])
{
    if (x < 0 || y < 0 || x >= TEX || y >= TEX) return;
    unsigned char *p = &rgba[(y * TEX + x) * 4];
    p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2], p[3] = 255;
}

static void fill_region(unsigned char *rgba, const float r[4], const unsigned char rgb[3])
{
    for (int y = (int)(r[1] * TEX); y < (int)(r[3] * TEX); y++)
        for (int x = (int)(r[0] * TEX); x < (int)(r[2] * TEX); x++) paint(rgba, x, y, rgb);
}

static void disc(unsigned char *rgba, float cx, float cy, float rx, float ry, const unsigned char rgb[3])
{
    for (int y = (int)(cy - ry) - 1; y <= (int)(cy + ry) + 1; y++)
        for (int x = (int)(cx - rx) - 1; x <= (int)(cx + rx) + 1; x++) {
            float dx = (x + 0.5f - cx) / rx, dy = (y + 0.5f - cy) / ry;
            if (dx * dx + dy * dy <= 1.0f) paint(rgba, x, y, rgb);
        }
}

static void make_texture(unsigned char *rgba)
{
    static const unsigned char shirt_a[3] = {52, 110, 190}, shirt_b[3] = {236, 240, 245}, skin_c[3] = {232, 180, 140},
                               hair[3] = {92, 56, 34}, eye[3] = {30, 30, 40}, white[3] = {250, 250, 250},
                               mouth[3] = {170, 70, 70}, cheek[3] = {238, 160, 140}, cloth[3] = {58, 62, 78},
                               seam[3] = {96, 102, 124}, shoe[3] = {88, 52, 36}, sole[3] = {36, 30, 28};
    /* Shirt: blue with white bands (they show the torso bend). */
    fill_region(rgba, shirt, shirt_a);
    for (int y = 0; y < TEX / 2; y++)
        if ((y / 8) % 3 == 0)
            for (int x = 0; x < TEX / 2; x++) paint(rgba, x, y, shirt_b);
    /* Face and hair: the face's middle is at u = 1/4 of the region. */
    fill_region(rgba, face, skin_c);
    for (int y = 0; y < TEX / 2; y++)
        for (int x = TEX / 2; x < TEX; x++) {
            float u = (x + 0.5f - TEX / 2) / (TEX / 2), v = (y + 0.5f) / (TEX / 2);
            float from_face = fabsf(u - 0.25f); /* 0 at the face's middle, 0.5 at the back */
            if (from_face > 0.5f) from_face = 1.0f - from_face;
            if (v < 0.36f || (from_face > 0.2f && v < 0.62f)) paint(rgba, x, y, hair);
        }
    float fx = TEX / 2 + 0.25f * TEX / 2, row = TEX / 2;
    for (int e = -1; e <= 1; e += 2) {
        disc(rgba, fx + e * 10.0f, 0.47f * row, 5.0f, 4.0f, white);
        disc(rgba, fx + e * 10.0f, 0.475f * row, 2.6f, 2.8f, eye);
        disc(rgba, fx + e * 15.0f, 0.57f * row, 4.0f, 2.5f, cheek);
    }
    disc(rgba, fx, 0.64f * row, 7.0f, 2.0f, mouth);
    /* Trousers with a seam down each side; skin; shoes with a sole. */
    fill_region(rgba, trousers, cloth);
    for (int y = TEX / 2; y < TEX; y++) {
        paint(rgba, 0, y, seam), paint(rgba, 1, y, seam);
        paint(rgba, TEX / 4, y, seam), paint(rgba, TEX / 4 + 1, y, seam);
    }
    fill_region(rgba, skin, skin_c);
    fill_region(rgba, shoes, shoe);
    for (int x = 3 * TEX / 4; x < TEX; x++)
        for (int y = TEX / 2; y < TEX; y++)
            if (abs((x - 3 * TEX / 4) - TEX / 16) < 5 || abs((x - 3 * TEX / 4) - 3 * TEX / 16) < 5) paint(rgba, x, y, sole);
}

/* --- clips --------------------------------------------------------------- */

#define KEYS_PER_SECOND 15

typedef struct turn {
    float x, y, z; /* degrees about the scene's axes, applied x, then y, then z */
} turn;

/* One clip's pose at `seconds` (its period is the clip's length): each
 * joint's turn and the hips' lift. */
typedef void (*pose_fn)(double seconds, turn *t, float *lift);

static float deg_sin(float amplitude, double phase)
{
    return amplitude * (float)sin(phase);
}

static void walk_pose(double seconds, turn *t, float *lift)
{
    double p = 2.0 * M_PI * seconds; /* one stride a second */
    *lift = -0.015f + 0.015f * (float)cos(2.0 * p);
    t[HIPS].y = deg_sin(6.0f, p);
    t[SPINE].x = 4.0f;
    t[CHEST].y = deg_sin(-9.0f, p);
    t[HEAD].y = deg_sin(3.0f, p);
    for (int side = 0; side < 2; side++) {
        double q = p + (side ? M_PI : 0.0); /* the right side half a stride behind */
        int thigh = side ? THIGH_R : THIGH_L, arm = side ? UPPER_ARM_R : UPPER_ARM_L;
        t[thigh].x = deg_sin(-26.0f, q);
        t[thigh + 1].x = 6.0f + 24.0f * (1.0f - (float)cos(q + 0.9));
        t[thigh + 2].x = deg_sin(12.0f, q - 0.6);
        t[thigh + 3].x = 10.0f * (float)fmax(0.0, sin(q + 2.2));
        t[arm].x = deg_sin(22.0f, q);
        t[arm].z = side ? -4.0f : 4.0f;
        t[arm + 1].x = -18.0f - 12.0f * (1.0f + (float)sin(q)) * 0.5f;
    }
}

static void wave_pose(double seconds, turn *t, float *lift)
{
    double p = 2.0 * M_PI * seconds / 2.0;
    *lift = 0.004f * (float)sin(2.0 * p);
    t[SPINE].z = 2.0f + deg_sin(1.0f, p);
    t[HEAD].z = -7.0f + deg_sin(3.0f, p);
    t[HEAD].y = -10.0f;
    t[CLAVICLE_R].z = -12.0f;
    t[UPPER_ARM_R].z = -128.0f + deg_sin(4.0f, p);
    t[UPPER_ARM_R].x = -15.0f;
    t[FOREARM_R].z = -25.0f + deg_sin(28.0f, 3.0 * p); /* three waves a loop */
    t[HAND_R].z = deg_sin(10.0f, 3.0 * p - 0.5);
    t[UPPER_ARM_L].z = 4.0f;
    t[FOREARM_L].x = -10.0f;
    t[THIGH_L].z = 3.0f, t[THIGH_R].z = -2.0f;
}

static void idle_pose(double seconds, turn *t, float *lift)
{
    double p = 2.0 * M_PI * seconds / 3.0;
    *lift = 0.005f * (float)sin(2.0 * p);
    t[SPINE].x = deg_sin(2.0f, 2.0 * p);
    t[CHEST].x = deg_sin(2.5f, 2.0 * p + 0.5); /* breathing */
    t[HEAD].y = deg_sin(14.0f, p);
    t[HEAD].x = deg_sin(4.0f, 2.0 * p);
    t[HIPS].z = deg_sin(2.0f, p);
    for (int side = 0; side < 2; side++) {
        int arm = side ? UPPER_ARM_R : UPPER_ARM_L;
        float out = side ? -1.0f : 1.0f;
        t[arm].z = out * (5.0f + deg_sin(2.0f, 2.0 * p));
        t[arm + 1].x = -12.0f + deg_sin(3.0f, 2.0 * p + side);
        t[side ? THIGH_R : THIGH_L].z = out * deg_sin(-2.0f, p);
    }
}

static const struct {
    const char *name;
    double seconds;
    pose_fn pose;
} clips[] = {{"walk", 1.0, walk_pose}, {"wave", 2.0, wave_pose}, {"idle", 3.0, idle_pose}};
enum { CLIPS = sizeof clips / sizeof clips[0] };

static void turn_quat(turn t, float q[4])
{
    versor qx, qy, qz, qyx;
    glm_quatv(qx, glm_rad(t.x), (vec3){1.0f, 0.0f, 0.0f});
    glm_quatv(qy, glm_rad(t.y), (vec3){0.0f, 1.0f, 0.0f});
    glm_quatv(qz, glm_rad(t.z), (vec3){0.0f, 0.0f, 1.0f});
    glm_quat_mul(qy, qx, qyx);
    glm_quat_mul(qz, qyx, q);
}

/* --- binary glTF --------------------------------------------------------- */

typedef struct blob {
    unsigned char *data;
    size_t size, room;
} blob;

/* Appends `size` bytes at a 4-byte boundary; returns their offset. */
static size_t blob_add(blob *b, const void *data, size_t size)
{
    size_t at = (b->size + 3) & ~(size_t)3;
    if (at + size > b->room) {
        size_t room = (at + size) * 2;
        unsigned char *d = realloc(b->data, room);
        if (!d) return (size_t)-1;
        b->data = d, b->room = room;
    }
    memset(b->data + b->size, 0, at - b->size);
    memcpy(b->data + at, data, size);
    b->size = at + size;
    return at;
}

static void png_to_blob(void *context, void *data, int size)
{
    blob *b = context;
    if (b->size == (size_t)-1) return;
    size_t at = b->size;
    if (at + (size_t)size > b->room) {
        size_t room = (at + (size_t)size) * 2;
        unsigned char *d = realloc(b->data, room);
        if (!d) {
            b->size = (size_t)-1;
            return;
        }
        b->data = d, b->room = room;
    }
    memcpy(b->data + at, data, (size_t)size);
    b->size += (size_t)size;
}

/* The JSON's views and accessors, written as the data goes into `bin`. */
typedef struct gltf {
    blob bin;
    FILE *views, *accessors; /* open_memstream: their JSON entries */
    char *views_text, *accessors_text;
    size_t views_size, accessors_size;
    int view_count, accessor_count;
    int failed;
} gltf;

/* A buffer view of `data`, and an accessor on it; `minmax` (2 x
 * components floats) for the accessors that need them. Returns the
 * accessor's index. */
static int add_accessor(gltf *g, const void *data, size_t size, int component, int count, const char *type,
                        int target, const float *minmax, int components)
{
    size_t at = blob_add(&g->bin, data, size);
    if (at == (size_t)-1) {
        g->failed = 1;
        return 0;
    }
    fprintf(g->views, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", g->view_count ? "," : "", at, size);
    if (target) fprintf(g->views, ",\"target\":%d", target);
    fprintf(g->views, "}");
    fprintf(g->accessors, "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"%s\"",
            g->accessor_count ? "," : "", g->view_count, component, count, type);
    if (minmax) {
        for (int m = 0; m < 2; m++) {
            fprintf(g->accessors, ",\"%s\":[", m ? "max" : "min");
            for (int c = 0; c < components; c++) fprintf(g->accessors, "%s%.9g", c ? "," : "", minmax[m * components + c]);
            fprintf(g->accessors, "]");
        }
    }
    fprintf(g->accessors, "}");
    g->view_count++;
    return g->accessor_count++;
}

enum { FLOAT = 5126, UNSIGNED_BYTE = 5121, UNSIGNED_SHORT = 5123, ARRAY_BUFFER = 34962, ELEMENT_ARRAY_BUFFER = 34963 };

static void minmax_of(const float *values, int count, int components, float *out)
{
    for (int c = 0; c < components; c++) {
        out[c] = out[components + c] = values[c];
        for (int i = 1; i < count; i++) {
            out[c] = fminf(out[c], values[i * components + c]);
            out[components + c] = fmaxf(out[components + c], values[i * components + c]);
        }
    }
}

static void write_u32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    fwrite(b, 1, 4, f);
}

int write_character(const char *path)
{
    mesh m = {0};
    gltf g = {0};
    unsigned char *rgba = calloc(TEX * TEX, 4);
    char *json = NULL;
    size_t json_size = 0;
    FILE *j = open_memstream(&json, &json_size);
    g.views = open_memstream(&g.views_text, &g.views_size);
    g.accessors = open_memstream(&g.accessors_text, &g.accessors_size);
    int failed = !rgba || !j || !g.views || !g.accessors || build_mesh(&m) != 0;
    if (failed) goto done;

    /* The mesh. */
    float minmax[8];
    minmax_of(m.positions, m.vertex_count, 3, minmax);
    int a_position = add_accessor(&g, m.positions, sizeof(float) * 3 * m.vertex_count, FLOAT, m.vertex_count, "VEC3",
                                  ARRAY_BUFFER, minmax, 3);
    int a_normal = add_accessor(&g, m.normals, sizeof(float) * 3 * m.vertex_count, FLOAT, m.vertex_count, "VEC3",
                                ARRAY_BUFFER, NULL, 0);
    int a_uv = add_accessor(&g, m.uvs, sizeof(float) * 2 * m.vertex_count, FLOAT, m.vertex_count, "VEC2", ARRAY_BUFFER,
                            NULL, 0);
    int a_joints = add_accessor(&g, m.joints, 4 * (size_t)m.vertex_count, UNSIGNED_BYTE, m.vertex_count, "VEC4",
                                ARRAY_BUFFER, NULL, 0);
    int a_weights = add_accessor(&g, m.weights, sizeof(float) * 4 * m.vertex_count, FLOAT, m.vertex_count, "VEC4",
                                 ARRAY_BUFFER, NULL, 0);
    int a_indices = add_accessor(&g, m.indices, sizeof(uint16_t) * m.index_count, UNSIGNED_SHORT, m.index_count,
                                 "SCALAR", ELEMENT_ARRAY_BUFFER, NULL, 0);
    /* Inverse bind matrices: the joints stand unturned at their places. */
    float ibm[JOINTS][16];
    for (int k = 0; k < JOINTS; k++) {
        mat4 t;
        glm_translate_make(t, (vec3){-joints[k].at[0], -joints[k].at[1], -joints[k].at[2]});
        memcpy(ibm[k], t, sizeof ibm[k]);
    }
    int a_ibm = add_accessor(&g, ibm, sizeof ibm, FLOAT, JOINTS, "MAT4", 0, NULL, 0);
    /* The texture, as a view of its own. */
    make_texture(rgba);
    blob png = {0};
    if (!stbi_write_png_to_func(png_to_blob, &png, TEX, TEX, 4, rgba, TEX * 4) || png.size == (size_t)-1) {
        free(png.data);
        failed = 1;
        goto done;
    }
    size_t png_at = blob_add(&g.bin, png.data, png.size);
    free(png.data);
    if (png_at == (size_t)-1) {
        failed = 1;
        goto done;
    }
    int png_view = g.view_count++;
    fprintf(g.views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", png_at, png.size);

    /* The clips: one time line each, every joint's rotation, the hips'
     * translation. */
    int clip_input[CLIPS], clip_rotation[CLIPS][JOINTS], clip_lift[CLIPS];
    for (int c = 0; c < CLIPS; c++) {
        int keys = (int)lround(clips[c].seconds * KEYS_PER_SECOND) + 1;
        float *times = malloc(sizeof(float) * keys), *rotations = malloc(sizeof(float) * 4 * keys * JOINTS);
        float *lifts = malloc(sizeof(float) * 3 * keys);
        if (!times || !rotations || !lifts) {
            free(times), free(rotations), free(lifts);
            failed = 1;
            goto done;
        }
        for (int k = 0; k < keys; k++) {
            times[k] = (float)k / KEYS_PER_SECOND;
            double seconds = k == keys - 1 ? 0.0 : (double)k / KEYS_PER_SECOND; /* the last key is the first */
            turn t[JOINTS] = {{0}};
            float lift = 0.0f;
            clips[c].pose(seconds, t, &lift);
            for (int n = 0; n < JOINTS; n++) turn_quat(t[n], &rotations[(n * keys + k) * 4]);
            lifts[k * 3 + 0] = joints[HIPS].at[0];
            lifts[k * 3 + 1] = joints[HIPS].at[1] + lift;
            lifts[k * 3 + 2] = joints[HIPS].at[2];
        }
        float time_range[2] = {times[0], times[keys - 1]};
        clip_input[c] = add_accessor(&g, times, sizeof(float) * keys, FLOAT, keys, "SCALAR", 0, time_range, 1);
        for (int n = 0; n < JOINTS; n++)
            clip_rotation[c][n] = add_accessor(&g, &rotations[n * keys * 4], sizeof(float) * 4 * keys, FLOAT, keys,
                                               "VEC4", 0, NULL, 0);
        clip_lift[c] = add_accessor(&g, lifts, sizeof(float) * 3 * keys, FLOAT, keys, "VEC3", 0, NULL, 0);
        free(times), free(rotations), free(lifts);
    }
    if (g.failed) {
        failed = 1;
        goto done;
    }
    fclose(g.views), g.views = NULL;
    fclose(g.accessors), g.accessors = NULL;

    /* Nodes: 0 the character, 1 its mesh, 2.. the joints. */
    fprintf(j, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"skinview tools/make_character.c\"},\"scene\":0,"
               "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"mannequin\",\"children\":[1,2]},"
               "{\"name\":\"body\",\"mesh\":0,\"skin\":0}");
    for (int k = 0; k < JOINTS; k++) {
        const float *at = joints[k].at, *from = joints[k].parent >= 0 ? joints[joints[k].parent].at : (float[3]){0};
        fprintf(j, ",{\"name\":\"%s\",\"translation\":[%.9g,%.9g,%.9g]", joints[k].name, at[0] - from[0],
                at[1] - from[1], at[2] - from[2]);
        int children = 0;
        for (int c = 0; c < JOINTS; c++)
            if (joints[c].parent == k) fprintf(j, "%s%d", children++ ? "," : ",\"children\":[", 2 + c);
        fprintf(j, "%s}", children ? "]" : "");
    }
    fprintf(j, "],\"skins\":[{\"name\":\"mannequin\",\"inverseBindMatrices\":%d,\"skeleton\":2,\"joints\":[", a_ibm);
    for (int k = 0; k < JOINTS; k++) fprintf(j, "%s%d", k ? "," : "", 2 + k);
    fprintf(j, "]}],\"meshes\":[{\"name\":\"body\",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d,"
               "\"TEXCOORD_0\":%d,\"JOINTS_0\":%d,\"WEIGHTS_0\":%d},\"indices\":%d,\"material\":0}]}],",
            a_position, a_normal, a_uv, a_joints, a_weights, a_indices);
    fprintf(j, "\"materials\":[{\"name\":\"mannequin\",\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0},"
               "\"metallicFactor\":0,\"roughnessFactor\":0.7}}],"
               "\"textures\":[{\"source\":0,\"sampler\":0}],\"images\":[{\"bufferView\":%d,\"mimeType\":\"image/png\"}],"
               "\"samplers\":[{\"magFilter\":9729,\"minFilter\":9987,\"wrapS\":33071,\"wrapT\":33071}],"
               "\"animations\":[",
            png_view);
    for (int c = 0; c < CLIPS; c++) {
        fprintf(j, "%s{\"name\":\"%s\",\"samplers\":[", c ? "," : "", clips[c].name);
        for (int n = 0; n < JOINTS; n++)
            fprintf(j, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}", n ? "," : "", clip_input[c],
                    clip_rotation[c][n]);
        fprintf(j, ",{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}],\"channels\":[", clip_input[c],
                clip_lift[c]);
        for (int n = 0; n < JOINTS; n++)
            fprintf(j, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"rotation\"}}", n ? "," : "", n, 2 + n);
        fprintf(j, ",{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"translation\"}}]}", JOINTS, 2 + HIPS);
    }
    fprintf(j, "],\"bufferViews\":[%s],\"accessors\":[%s],\"buffers\":[{\"byteLength\":%zu}]}", g.views_text,
            g.accessors_text, (g.bin.size + 3) & ~(size_t)3);
    if (fclose(j) != 0) {
        j = NULL;
        failed = 1;
        goto done;
    }
    j = NULL;

    /* GLB: the header, the JSON chunk (padded with spaces), the binary
     * chunk (padded with zeros). */
    {
        size_t json_padded = (json_size + 3) & ~(size_t)3, bin_padded = (g.bin.size + 3) & ~(size_t)3;
        FILE *f = fopen(path, "wb");
        if (!f) {
            failed = 1;
            goto done;
        }
        fwrite("glTF", 1, 4, f);
        write_u32(f, 2);
        write_u32(f, (uint32_t)(12 + 8 + json_padded + 8 + bin_padded));
        write_u32(f, (uint32_t)json_padded);
        fwrite("JSON", 1, 4, f);
        fwrite(json, 1, json_size, f);
        for (size_t k = json_size; k < json_padded; k++) fputc(' ', f);
        write_u32(f, (uint32_t)bin_padded);
        fwrite("BIN\0", 1, 4, f);
        fwrite(g.bin.data, 1, g.bin.size, f);
        for (size_t k = g.bin.size; k < bin_padded; k++) fputc(0, f);
        failed |= ferror(f) != 0;
        failed |= fclose(f) != 0;
    }
done:
    if (j) fclose(j);
    if (g.views) fclose(g.views);
    if (g.accessors) fclose(g.accessors);
    free(json), free(g.views_text), free(g.accessors_text), free(g.bin.data), free(rgba);
    free(m.positions), free(m.normals), free(m.uvs), free(m.weights), free(m.joints), free(m.indices);
    return failed ? -1 : 0;
}
